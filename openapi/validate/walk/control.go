package walk

import (
	"fmt"
	"net/url"
	"strings"
)

// The control side of the walk: the clock, members, the upstreams'
// outcomes, webhook endpoints and deliveries, the operator's knobs and
// reads.

var advances = []int{1, 30, 61, 299, 301, 1800, 3600, 7200, 21600}

func (w *walker) clockStep() {
	secs, _ := pick(w, advances)
	var body map[string]any
	switch {
	case w.one(10):
		body = map[string]any{"advance": fmt.Sprintf("%ds", secs)}
	case w.one(30):
		body = map[string]any{"advance_seconds": -5}
	default:
		body = map[string]any{"advance_seconds": secs}
	}
	w.ctl("POST /_sim/clock", "/_sim/clock", body)
	w.readClock()
}

var statuses = []string{"active", "active", "suspended", "blocklisted", "banned", "frozen"}

func (w *walker) memberStep() {
	switch w.rng.IntN(3) {
	case 0, 1:
		ext := fmt.Sprintf("walk-%d-m%d", w.cfg.Seed, len(w.m.members))
		body := map[string]any{"external_member_id": ext, "kyc_level": w.rng.IntN(3),
			"balances": map[string]string{"USDT": []string{"0", "50", "1000", "100000"}[w.rng.IntN(4)], "USDC": "10"}}
		if w.one(8) {
			body["kyc_level"] = 7
		}
		if a := w.ctl("POST /_sim/members", "/_sim/members", body); a.status == 201 {
			w.m.members = append(w.m.members, ext)
			if id := a.str("id"); id != "" {
				w.m.memIDs[ext] = id
			}
		}
	default:
		st, _ := pick(w, statuses)
		p := "/_sim/members/" + url.PathEscape(w.member()) + "/status"
		w.ctl("POST /_sim/members/{id}/status", p, map[string]any{"status": st})
		if st != "active" && !w.one(4) {
			w.restoreLater("POST /_sim/members/{id}/status", p, map[string]any{"status": "active"})
		}
	}
}

// objectActions are the upstreams' and the operator's outcomes, by the
// list of ids they apply to.
func (w *walker) outcomeStep() {
	type act struct {
		list   []string
		prefix string
		coll   string
		verbs  []string
	}
	acts := []act{
		{w.m.qr, "qrp_", "qrpay/orders", []string{"complete", "complete", "fail", "refund", "timeout"}},
		{w.m.apps, "cap_", "cards/applications", []string{"approve", "approve", "approve", "reject"}},
		{w.m.cards, "crd_", "cards", []string{"ship", "plastic", "close_complete", "unlock", "transactions"}},
		{w.m.topups, "ctp_", "cards/topups", []string{"credit", "credit", "reject", "timeout"}},
		{w.m.remits, "rmt_", "remittances", []string{"dispatch", "complete", "fail", "refund", "needs_reconfirm", "advance"}},
		{w.m.members, "", "kyc", []string{"approve", "reject", "update", "supplement"}},
	}
	a := acts[w.rng.IntN(len(acts))]
	id := w.someID(a.list, a.prefix)
	verb, _ := pick(w, a.verbs)
	var body any
	switch {
	case a.coll == "cards" && verb == "transactions":
		tx := map[string]any{"kind": "auth", "status": "succeed", "direction": "debit", "amount": "1250", "bill_amount": "1250",
			"merchant_name": "WALK CAFE", "mcc": "5814", "auth_code": "WALK01"}
		if !w.cfg.RefusalProbes {
			// A debit of an ended card, or one the card cannot cover, is
			// refused; builds before the fix drew an id first (Config).
			tx["kind"], tx["direction"] = "refund", "credit"
		}
		body = tx
	case a.coll == "kyc" && verb == "approve":
		body = map[string]any{"level": 1 + w.rng.IntN(2)}
	}
	ans := w.ctl("POST /_sim/"+a.coll+"/{id}/{action}", "/_sim/"+a.coll+"/"+url.PathEscape(id)+"/"+verb, body)
	if a.coll == "kyc" && verb != "approve" && !w.one(4) {
		w.restoreLater("POST /_sim/kyc/{id}/{action}", "/_sim/kyc/"+url.PathEscape(id)+"/approve", map[string]any{"level": 1})
	}
	if a.coll == "cards/applications" && verb == "approve" {
		if c := ans.str("card_id"); c != "" && !contains(w.m.cards, c) {
			keep(&w.m.cards, c)
		}
	}
	if w.one(6) {
		// Outcomes: immediate or after a while, per collection.
		coll := []string{"qrpay/orders", "cards/applications", "cards/topups", "remittances"}[w.rng.IntN(4)]
		mode := []string{"manual", "immediate", "after:5m"}[w.rng.IntN(3)]
		w.ctl("POST /_sim/outcomes", "/_sim/outcomes", map[string]any{"collection": coll, "mode": mode})
	}
}

func (w *walker) webhookStep() {
	switch w.rng.IntN(8) {
	case 0, 1, 2:
		w.ctl("POST /_sim/webhooks/flush", "/_sim/webhooks/flush", nil)
	case 3:
		id := w.someID(w.m.deliveries, "whd_")
		w.ctl("POST /_sim/webhooks/deliveries/{id}/redeliver", "/_sim/webhooks/deliveries/"+url.PathEscape(id)+"/redeliver", nil)
	case 4:
		w.learnDeliveries(w.ctl("GET /_sim/webhooks/deliveries", "/_sim/webhooks/deliveries", nil))
	case 5:
		id := w.someID(w.m.eps, "whe_")
		verb := []string{"disable", "enable", "enable"}[w.rng.IntN(3)]
		w.ctl("POST /_sim/webhooks/endpoints/{id}/{action}", "/_sim/webhooks/endpoints/"+url.PathEscape(id)+"/"+verb, nil)
	case 6:
		if len(w.m.eps) < 4 {
			p := []string{"/hook/ok", "/hook/fail"}[w.rng.IntN(2)]
			body := map[string]any{"url": w.recv.url + p}
			if w.one(2) {
				body["events"] = []string{"qrpay.order.completed", "card.status.updated", "remittance.order.completed"}
			}
			if a := w.ctl("POST /_sim/webhooks/endpoints", "/_sim/webhooks/endpoints", body); a.str("id") != "" {
				w.m.eps = append(w.m.eps, a.str("id"))
			}
		} else {
			id := w.m.eps[len(w.m.eps)-1]
			w.m.eps = w.m.eps[:len(w.m.eps)-1]
			w.ctl("DELETE /_sim/webhooks/endpoints/{id}", "/_sim/webhooks/endpoints/"+url.PathEscape(id), nil)
		}
	default:
		w.ctl("POST /_sim/webhooks/events", "/_sim/webhooks/events", map[string]any{"event_type": "earn.order.settled", "object": "earn_order",
			"id": w.uuid(), "external_member_id": w.member(), "status": "settled", "status_version": 1})
	}
}

// knobStep turns one of the operator's knobs. A knob that shuts a line
// down is turned back a few steps later (restoreLater), so the walk spends
// most of its steps where requests can succeed.
func (w *walker) knobStep() {
	off := w.one(3)
	m := url.PathEscape(w.member())
	switch w.rng.IntN(10) {
	case 0:
		if off {
			w.ctl("POST /_sim/merchant", "/_sim/merchant", map[string]any{"status": []string{"suspended", "frozen"}[w.rng.IntN(2)]})
			w.restoreLater("POST /_sim/merchant", "/_sim/merchant", map[string]any{"status": "active"})
		} else {
			w.ctl("POST /_sim/merchant", "/_sim/merchant", map[string]any{"fee_rate_bps": w.rng.IntN(100)})
		}
	case 1:
		w.ctl("POST /_sim/merchant/prepaid/topup", "/_sim/merchant/prepaid/topup", map[string]any{"asset": "USDT", "amount": w.amount()})
	case 2:
		w.toggle("POST /_sim/qrpay/line", "/_sim/qrpay/line", "enabled", off)
	case 3:
		body := map[string]any{"enabled": !off}
		if w.one(2) {
			body["pool"] = w.rng.IntN(4)
		}
		w.ctl("POST /_sim/kyc/quick", "/_sim/kyc/quick", body)
		if off {
			w.restoreLater("POST /_sim/kyc/quick", "/_sim/kyc/quick", map[string]any{"enabled": true, "pool": 10})
		}
	case 4:
		w.toggle("POST /_sim/members/{id}/funds_protection", "/_sim/members/"+m+"/funds_protection", "enabled", !off)
	case 5:
		w.toggle("POST /_sim/members/{id}/card_penalty", "/_sim/members/"+m+"/card_penalty", "outstanding", !off)
	case 6:
		w.ctl("POST /_sim/cards/topups/upstream_timeout", "/_sim/cards/topups/upstream_timeout", map[string]any{"count": w.rng.IntN(2)})
	case 7:
		w.ctl("POST /_sim/cards/limits", "/_sim/cards/limits", map[string]any{"form_factor": "virtual", "limit": 1 + w.rng.IntN(8)})
		w.restoreLater("POST /_sim/cards/limits", "/_sim/cards/limits", map[string]any{"form_factor": "virtual", "limit": 50})
	case 8:
		if off {
			w.ctl("POST /_sim/merchant/write_quota", "/_sim/merchant/write_quota", map[string]any{"per_minute": 1 + w.rng.IntN(3)})
		}
		w.restoreLater("POST /_sim/merchant/write_quota", "/_sim/merchant/write_quota", map[string]any{"per_minute": 0})
	default:
		w.ctl("DELETE /_sim/faults", "/_sim/faults", nil)
	}
}

// toggle sets a boolean knob; when it sets the disruptive value (field
// true for funds protection and penalties, false for a line's enabled) it
// turns it back later.
func (w *walker) toggle(op, path, field string, value bool) {
	w.ctl(op, path, map[string]any{field: value})
	disruptive := value
	if field == "enabled" && op == "POST /_sim/qrpay/line" {
		disruptive = !value
	}
	if field == "enabled" && strings.HasPrefix(op, "POST /_sim/cards/products/") {
		disruptive = !value
	}
	if disruptive {
		w.restoreLater(op, path, map[string]any{field: !value})
	}
}

// restore is a control call the walk sends at a later step.
type restore struct {
	at       int
	op, path string
	body     any
}

func (w *walker) restoreLater(op, path string, body any) {
	w.m.restores = append(w.m.restores, restore{at: w.step + 1 + w.rng.IntN(8), op: op, path: path, body: body})
}

// runRestores sends the restores due at this step, in the order scheduled.
func (w *walker) runRestores() {
	keep := w.m.restores[:0]
	for _, r := range w.m.restores {
		if r.at <= w.step {
			w.ctl(r.op, r.path, r.body)
		} else {
			keep = append(keep, r)
		}
	}
	w.m.restores = keep
}

var reads = []string{
	"/_sim/credentials", "/_sim/stats", "/_sim/clock", "/_sim/members", "/_sim/merchant", "/_sim/keys", "/_sim/faults",
	"/_sim/requests?limit=20", "/_sim/events", "/_sim/ledger", "/_sim/invariants", "/_sim/state", "/_sim/webhooks/endpoints",
	"/_sim/webhooks/deliveries", "/_sim/qrpay/upstream", "/_sim/digest", "/_sim/qr-samples",
}

// inspectStep reads the control API (the answers must be equal too).
func (w *walker) inspectStep() {
	p, _ := pick(w, reads)
	switch w.rng.IntN(5) {
	case 0:
		if id, ok := pick(w, w.m.cards); ok {
			p = "/_sim/cards/" + url.PathEscape(id)
		}
	case 1:
		p = "/_sim/cards/topups/" + url.PathEscape(w.someID(w.m.topups, "ctp_"))
	case 2:
		if id, ok := pick(w, w.m.qr); ok {
			p = "/_sim/qrpay/orders/" + url.PathEscape(id) + "/trace"
		}
	}
	tmpl := p
	if i := len("/_sim/cards/"); len(p) > i && p[:i] == "/_sim/cards/" {
		tmpl = "/_sim/cards/{id}"
		if len(p) > len("/_sim/cards/topups/") && p[:len("/_sim/cards/topups/")] == "/_sim/cards/topups/" {
			tmpl = "/_sim/cards/topups/{id}"
		}
	} else if len(p) > len("/_sim/qrpay/orders/") && p[:len("/_sim/qrpay/orders/")] == "/_sim/qrpay/orders/" {
		tmpl = "/_sim/qrpay/orders/{id}/trace"
	} else if p == "/_sim/requests?limit=20" {
		tmpl = "/_sim/requests"
	}
	w.ctl("GET "+tmpl, p, nil)
}
