package walk

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/mwallet/mwallet-go/openapi/validate/tour"
)

// action is one kind of step, drawn with its weight.
type action struct {
	weight int
	run    func(w *walker)
}

// actions are the walk's steps: business traffic on every endpoint and
// control traffic on the operator's and the upstreams' side.
var actions = []action{
	{2, (*walker).tokenStep}, {2, (*walker).readsStep}, {4, (*walker).qrStep}, {3, (*walker).depositStep},
	{4, (*walker).cardApplyStep}, {6, (*walker).cardStep}, {3, (*walker).remitStep}, {2, (*walker).kycStep},
	{2, (*walker).deliveriesStep}, {3, (*walker).stepUpStep},
	{3, (*walker).clockStep}, {2, (*walker).memberStep}, {5, (*walker).outcomeStep}, {2, (*walker).webhookStep},
	{2, (*walker).knobStep}, {1, (*walker).inspectStep}, {2, (*walker).rareStep},
}

var totalWeight = func() int {
	n := 0
	for _, a := range actions {
		n += a.weight
	}
	return n
}()

func (w *walker) walkStep() {
	w.runRestores()
	n := w.rng.IntN(totalWeight)
	for _, a := range actions {
		if n < a.weight {
			a.run(w)
			return
		}
		n -= a.weight
	}
}

// setup reads the credentials and the clock, subscribes a receiver that
// accepts and one that fails, and takes a token.
func (w *walker) setup() error {
	c := w.ctl("GET /_sim/credentials", "/_sim/credentials", nil)
	if c.status != 200 {
		return fmt.Errorf("walk: GET /_sim/credentials of %s: %d %s", w.cfg.Targets[0], c.status, c.body)
	}
	w.m.clientID, w.m.apiKey, w.m.signingKey = c.str("client_id"), c.str("api_key"), c.str("signing_key")
	w.readClock()
	w.m.memIDs = map[string]string{}
	w.m.payees = map[string][]string{}
	w.m.members = []string{"member-1"}
	w.learnMember("member-1")
	for _, p := range []string{"/hook/ok", "/hook/fail"} {
		if a := w.ctl("POST /_sim/webhooks/endpoints", "/_sim/webhooks/endpoints", map[string]any{"url": w.recv.url + p}); a.str("id") != "" {
			w.m.eps = append(w.m.eps, a.str("id"))
		}
	}
	w.ensureToken()
	return nil
}

func (w *walker) readClock() {
	if a := w.ctl("GET /_sim/clock", "/_sim/clock", nil); a.json["unix"] != nil {
		if u, ok := a.json["unix"].(float64); ok {
			w.m.now = int64(u)
		}
	}
}

func (w *walker) learnMember(ext string) {
	a := w.ctl("GET /_sim/members/{id}", "/_sim/members/"+url.PathEscape(ext), nil)
	if id := a.str("id"); id != "" {
		w.m.memIDs[ext] = id
	}
}

// finish checks the books and reads each target's digest (sent to every
// target, compared like any answer).
func (w *walker) finish() {
	w.ctl("POST /_sim/webhooks/flush", "/_sim/webhooks/flush", nil)
	for _, p := range reads {
		// Every control read once more, compared and validated like
		// every answer.
		op, _, _ := strings.Cut(p, "?")
		w.ctl("GET "+op, p, nil)
	}
	for _, base := range w.cfg.Targets {
		var problems []string
		l := w.do(base, &request{method: "GET", target: "/_sim/ledger"})
		if l.json["balanced"] != true {
			problems = append(problems, fmt.Sprintf("ledger: %.300s", l.body))
		}
		inv := w.do(base, &request{method: "GET", target: "/_sim/invariants"})
		if v, _ := inv.json["violations"].([]any); inv.json["hold"] != true || len(v) != 0 {
			problems = append(problems, fmt.Sprintf("invariants: %.600s", inv.body))
		}
		s := ""
		for _, p := range problems {
			s += p + "; "
		}
		w.res.Books = append(w.res.Books, s)
		d := w.do(base, &request{method: "GET", target: "/_sim/digest"})
		w.res.Digests = append(w.res.Digests, d.str("digest"))
	}
}

// member is the fixture's member half the time (funded, KYC level 1),
// otherwise any member the walk created.
func (w *walker) member() string {
	if w.one(2) {
		return "member-1"
	}
	m, _ := pick(w, w.m.members)
	return m
}

// someID is a known id, or now and then one nobody has.
func (w *walker) someID(list []string, prefix string) string {
	if id, ok := pick(w, list); ok && !w.one(8) {
		return id
	}
	return prefix + w.uuid()
}

func keep(list *[]string, id string) {
	if id == "" {
		return
	}
	*list = append(*list, id)
	if len(*list) > 48 {
		*list = (*list)[1:]
	}
}

var assets = []string{"USDT", "USDC", "BTC", "ETH", "DOGE"}
var amounts = []string{"1", "5", "10.5", "20.000000", "250", "0", "-1", "1e3", "0.0000001", "99999999"}

func (w *walker) amount() string { a, _ := pick(w, amounts); return a }
func (w *walker) asset() string  { a, _ := pick(w, assets); return a }

func (w *walker) tokenStep() {
	switch w.rng.IntN(4) {
	case 0:
		w.exchange(w.m.clientID, "not-the-api-key")
	case 1:
		w.exchange("no_such_client", w.m.apiKey)
	default:
		w.m.token = ""
		w.ensureToken()
	}
}

func (w *walker) readsStep() {
	switch w.rng.IntN(6) {
	case 0:
		w.biz("GET /v1/assets", nil, nil, bizOpt{})
	case 1:
		id, ok := w.m.memIDs[w.member()]
		if !ok || w.one(4) {
			id = "mem_" + w.uuid()
		}
		w.bizAt("GET /v1/members/{id}", path("GET /v1/members/{id}", id), nil, nil, bizOpt{})
	case 2:
		w.biz("GET /v1/qrpay/schemes", nil, nil, bizOpt{})
	case 3:
		w.biz("GET /v1/cards/products", nil, nil, bizOpt{})
	case 4:
		w.biz("GET /v1/remit/products", nil, nil, bizOpt{})
	default:
		cur := []string{"GBP", "EUR", "NGN", "XXX", ""}[w.rng.IntN(5)]
		w.biz("GET /v1/remit/conversion-dates", url.Values{"payout_currency": {cur}}, nil, bizOpt{})
	}
}

func (w *walker) qrCode() string {
	if w.one(6) {
		return []string{"not a QR code", "000201", ""}[w.rng.IntN(3)]
	}
	return tour.QRCode
}

func (w *walker) qrStep() {
	m := w.member()
	switch w.rng.IntN(5) {
	case 0:
		w.biz("POST /v1/qrpay/decode", nil, map[string]any{"code_value": w.qrCode()}, bizOpt{member: m})
	case 1:
		w.biz("POST /v1/qrpay/quotes", nil, map[string]any{"code_value": w.qrCode()}, bizOpt{member: m})
	case 2, 3:
		body := map[string]any{"code_value": w.qrCode(), "preferred_asset": []string{"USDT", "USDC", "BTC"}[w.rng.IntN(3)]}
		if w.one(3) {
			body["amount"] = w.amount()
		}
		a := w.biz("POST /v1/qrpay/payments", nil, body, bizOpt{member: m, keyed: true})
		keep(&w.m.qr, a.str("id"))
	default:
		w.bizAt("GET /v1/qrpay/orders/{id}", path("GET /v1/qrpay/orders/{id}", w.someID(w.m.qr, "qrp_")), nil, nil, bizOpt{member: m})
	}
}

func (w *walker) depositStep() {
	m := w.member()
	switch w.rng.IntN(4) {
	case 0, 1:
		body := map[string]any{"asset": w.asset(), "amount": w.amount(), "reference": w.ref()}
		if w.one(2) {
			body["network"], body["txid"] = "TRON", "0x"+w.uuid()[:8]
		}
		w.biz("POST /v1/deposits", nil, body, bizOpt{member: m, keyed: true})
	case 2:
		q := url.Values{"limit": {strconv.Itoa(1 + w.rng.IntN(60))}}
		if w.one(3) {
			q.Set("reference", fmt.Sprintf("walk-%d-%d", w.cfg.Seed, 1+w.rng.IntN(w.m.refs+1)))
		}
		if w.one(5) {
			q.Set("cursor", "bogus")
		}
		w.biz("GET /v1/deposits", q, nil, bizOpt{})
	default:
		id := fmt.Sprintf("dep_walk-%d-%d", w.cfg.Seed, 1+w.rng.IntN(w.m.refs+1))
		w.bizAt("GET /v1/deposits/{id}", path("GET /v1/deposits/{id}", id), nil, nil, bizOpt{})
	}
}

var products = []string{"cpd_virtual_std", "cpd_virtual_std", "cpd_physical_std", "cpd_no_such_product"}

func (w *walker) cardApplyStep() {
	m := w.member()
	switch w.rng.IntN(4) {
	case 0, 1:
		prod, _ := pick(w, products)
		a := w.biz("POST /v1/cards/applications", nil, map[string]any{"source_asset": "USDT", "product_id": prod, "client_key": w.uuid()}, bizOpt{member: m, keyed: true})
		id := a.str("id")
		keep(&w.m.apps, id)
		if id != "" && !w.one(3) {
			// The issuer's review, then the card's id.
			w.ctl("POST /_sim/cards/applications/{id}/{action}", "/_sim/cards/applications/"+url.PathEscape(id)+"/approve", nil)
			g := w.bizAt("GET /v1/cards/applications/{id}", path("GET /v1/cards/applications/{id}", id), nil, nil, bizOpt{member: m})
			if c := g.str("card_id"); c != "" && !contains(w.m.cards, c) {
				keep(&w.m.cards, c)
			}
		}
	case 2:
		a := w.bizAt("GET /v1/cards/applications/{id}", path("GET /v1/cards/applications/{id}", w.someID(w.m.apps, "cap_")), nil, nil, bizOpt{member: m})
		if id := a.str("card_id"); id != "" && !contains(w.m.cards, id) {
			keep(&w.m.cards, id)
		}
	default:
		prod, _ := pick(w, products)
		w.bizAt("GET /v1/cards/products/{id}/quote", path("GET /v1/cards/products/{id}/quote", prod), nil, nil, bizOpt{member: m})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var cardOps = []string{
	"GET /v1/cards/{id}", "GET /v1/cards/{id}/close-check", "GET /v1/cards/{id}/transactions", "GET /v1/cards/{id}/topups/estimate",
	"POST /v1/cards/{id}/activate", "POST /v1/cards/{id}/pin", "POST /v1/cards/{id}/lost", "POST /v1/cards/{id}/freeze",
	"POST /v1/cards/{id}/unfreeze", "POST /v1/cards/{id}/close", "POST /v1/cards/{id}/replacements",
	"POST /v1/cards/{id}/secure-session", "POST /v1/cards/{id}/topups", "POST /v1/cards/{id}/topups", "GET /v1/cards",
}

func (w *walker) cardStep() {
	m := w.member()
	op, _ := pick(w, cardOps)
	p := path(op, w.someID(w.m.cards, "crd_"))
	var q url.Values
	var body any
	o := bizOpt{member: m}
	switch op {
	case "GET /v1/cards":
		q = url.Values{"limit": {strconv.Itoa(1 + w.rng.IntN(5))}}
	case "GET /v1/cards/{id}/transactions":
		if w.one(2) {
			q = url.Values{"direction": {"debit"}}
		}
	case "GET /v1/cards/{id}/topups/estimate":
		q = url.Values{"amount": {w.amount()}}
	case "POST /v1/cards/{id}/activate":
		o.keyed = true
		body = map[string]any{"expiry": []string{"01/30", "12/99", "12/28"}[w.rng.IntN(3)], "pin": "135790"}
	case "POST /v1/cards/{id}/pin":
		o.keyed = true
		body = map[string]any{"new_pin": []string{"246809", "123", "123456"}[w.rng.IntN(3)], "current_pin": "135790"}
	case "POST /v1/cards/{id}/lost":
		o.keyed = true
		body = map[string]any{"kind": []string{"lost", "stolen"}[w.rng.IntN(2)]}
	case "POST /v1/cards/{id}/close":
		o.keyed = true
		body = map[string]any{"reason": "walk"}
	case "POST /v1/cards/{id}/replacements":
		o.keyed = true
		body = map[string]any{"reason": []string{"lost", "stolen", "damaged"}[w.rng.IntN(3)]}
	case "POST /v1/cards/{id}/topups":
		o.keyed = true
		body = map[string]any{"amount": w.amount(), "source_asset": "USDT"}
	default:
		if op[:4] == "POST" {
			body = map[string]any{}
		}
	}
	a := w.bizAt(op, p, q, body, o)
	switch op {
	case "POST /v1/cards/{id}/topups":
		keep(&w.m.topups, a.str("id"))
	case "POST /v1/cards/{id}/replacements":
		if id := a.str("card_id"); id != "" {
			keep(&w.m.cards, id)
		}
	case "POST /v1/cards/{id}/secure-session":
		// The hosted page's id is the last segment of hosted_url.
		if u := a.str("hosted_url"); strings.Contains(u, "/secure-sessions/") {
			keep(&w.m.secure, u[strings.LastIndex(u, "/")+1:])
		}
	}
}

func (w *walker) remitStep() {
	m := w.member()
	payee := ""
	if list := w.m.payees[m]; len(list) > 0 && !w.one(10) {
		payee, _ = pick(w, list)
	} else {
		payee = fmt.Sprintf("pye_%d", 100000+w.rng.IntN(10))
	}
	op := w.rng.IntN(8)
	if len(w.m.payees[m]) == 0 {
		op = 0 // learn the member's payees first
	}
	switch op {
	case 0:
		a := w.biz("GET /v1/remit/payees", nil, nil, bizOpt{member: m})
		if data, ok := a.json["data"].([]any); ok {
			for _, d := range data {
				if p, ok := d.(map[string]any); ok {
					if id, _ := p["id"].(string); id != "" && !contains(w.m.payees[m], id) {
						w.m.payees[m] = append(w.m.payees[m], id)
					}
				}
			}
		}
	case 1:
		body := map[string]any{"country": "GB", "currency": "GBP", "holder_name": "Walk Payee", "account_number": fmt.Sprintf("GB33BUKB20201555%06d", w.rng.IntN(50))}
		if a := w.biz("POST /v1/remit/payees", nil, body, bizOpt{member: m, keyed: true}); a.str("id") != "" {
			w.m.payees[m] = append(w.m.payees[m], a.str("id"))
		}
	case 2:
		w.biz("GET /v1/remit/quotes", url.Values{"payee_id": {payee}, "payout_amount": {w.amount()}, "slippage_bps": {"100"}}, nil, bizOpt{member: m})
	case 3, 4:
		body := map[string]any{"payee_id": payee, "payout_amount": []string{"10.00", "10.00", "25.50", "5", "100000.00", "0.01"}[w.rng.IntN(6)], "slippage_bps": 100,
			"purpose_code": "FAMILY_SUPPORT", "reference": w.ref()}
		a := w.biz("POST /v1/remittances", nil, body, bizOpt{member: m, keyed: true})
		keep(&w.m.remits, a.str("id"))
	case 5:
		q := url.Values{"limit": {strconv.Itoa(1 + w.rng.IntN(10))}}
		w.biz("GET /v1/remittances", q, nil, bizOpt{member: m})
	case 6:
		w.bizAt("GET /v1/remittances/{id}", path("GET /v1/remittances/{id}", w.someID(w.m.remits, "rmt_")), nil, nil, bizOpt{member: m})
	default:
		w.biz("POST /v1/remit/vp/applications/query", nil, map[string]any{"members": []string{m, "nobody-here"}}, bizOpt{})
	}
}

func (w *walker) kycStep() {
	m := w.member()
	switch w.rng.IntN(4) {
	case 0:
		w.biz("GET /v1/kyc", nil, nil, bizOpt{member: m})
	case 1:
		a := w.biz("POST /v1/kyc/quick", nil, map[string]any{}, bizOpt{member: m, keyed: true})
		keep(&w.m.quick, a.str("id"))
	case 2:
		a := w.biz("GET /v1/kyc/quick", nil, nil, bizOpt{member: m})
		if data, ok := a.json["data"].([]any); ok && len(data) > 0 {
			if b, ok := data[0].(map[string]any); ok {
				id, _ := b["id"].(string)
				keep(&w.m.quick, id)
			}
		}
	default:
		a := w.biz("POST /v1/kyc/profile-sessions", nil, nil, bizOpt{member: m, keyed: true})
		keep(&w.m.sessions, a.str("id"))
	}
}

func (w *walker) deliveriesStep() {
	if w.one(2) {
		q := url.Values{"limit": {strconv.Itoa(1 + w.rng.IntN(50))}}
		if w.m.cursor != "" && w.one(2) {
			q.Set("cursor", w.m.cursor)
		}
		a := w.biz("GET /v1/webhooks/deliveries", q, nil, bizOpt{})
		w.m.cursor = ""
		if more, _ := a.json["has_more"].(bool); more {
			w.m.cursor = a.str("next_cursor")
		}
		w.learnDeliveries(a)
		return
	}
	// Mostly rows that can be redelivered (dead, failed, no_subscriber).
	list := w.m.deliveries
	if len(w.m.redeliverable) > 0 && !w.one(3) {
		list = w.m.redeliverable
	}
	w.bizAt("POST /v1/webhooks/deliveries/{id}/redeliver", path("POST /v1/webhooks/deliveries/{id}/redeliver", w.someID(list, "whd_")), nil, nil, bizOpt{keyed: true})
}

// learnDeliveries keeps the ids of a deliveries list (business or
// control), and apart those that can be redelivered.
func (w *walker) learnDeliveries(a *answer) {
	data, _ := a.json["data"].([]any) // GET /v1/webhooks/deliveries
	if rows, ok := a.json["deliveries"].([]any); ok {
		data = rows // GET /_sim/webhooks/deliveries
	}
	for _, d := range data {
		row, _ := d.(map[string]any)
		id, _ := row["id"].(string)
		if id == "" {
			continue
		}
		if !contains(w.m.deliveries, id) {
			keep(&w.m.deliveries, id)
		}
		switch row["status"] {
		case "dead", "failed", "no_subscriber":
			if !contains(w.m.redeliverable, id) {
				keep(&w.m.redeliverable, id)
			}
		}
	}
}

// stepUpStep completes a pending challenge (or leaves it) and resends its
// request with the same key and body.
func (w *walker) stepUpStep() {
	if len(w.m.pending) == 0 {
		return
	}
	i := w.rng.IntN(len(w.m.pending))
	c := w.m.pending[i]
	w.m.pending = append(w.m.pending[:i], w.m.pending[i+1:]...)
	if w.one(4) {
		w.ctl("GET /_sim/step-up/{challenge_id}", "/_sim/step-up/"+url.PathEscape(c.challenge), nil)
	}
	if !w.one(5) {
		w.ctl("POST /_sim/step-up/{challenge_id}/complete", "/_sim/step-up/"+url.PathEscape(c.challenge)+"/complete", nil)
	}
	a := w.bizAt(c.op, c.path, nil, c.body, bizOpt{member: c.member, keyed: true, key: c.key, stepUp: c.challenge})
	if c.op == "POST /v1/qrpay/payments" {
		keep(&w.m.qr, a.str("id"))
	}
}
