package simulator_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/simulator"
)

// The tests generated from the control declarations (control_decl.go): every
// argument of every op gets each value outside its domain; every write gets
// the refused variants a world of objects in every state gives it; every
// business endpoint gets refused variants. Each refusal leaves the state
// digest as it was (for a business refusal, all but the records the
// contract makes it keep).

// genWorld is a simulator holding one object of every kind the control
// ops name, and the good value of every domain.
type genWorld struct {
	*edge
	good map[string]any   // domain key -> a value inside it
	alts map[string][]any // object domains -> objects in other states
}

func newGenWorld(t *testing.T) *genWorld {
	t.Helper()
	e := newEdge(t)
	w := &genWorld{edge: e, alts: map[string][]any{}}
	card := e.issue(member1, "cpd_virtual_std", "")
	topUp := e.topUp(member1, card, "50")
	credited := e.topUp(member1, card, "50")
	e.mustAct("cards/topups/"+credited+"/credit", nil)
	closed := e.issue(member1, "cpd_virtual_std", "")
	e.mustAct("cards/"+closed+"/set_status", map[string]any{"status": "closed"})
	app := e.mustApply(member1, cards.ApplyParams{ProductID: "cpd_virtual_std"})
	order, _, err := e.qrPay(member1, thaiQR("100.00", "gen1"))
	if err != nil {
		t.Fatal(err)
	}
	done, _, err := e.qrPay(member1, thaiQR("120.00", "gen2"))
	if err != nil {
		t.Fatal(err)
	}
	e.mustAct("qrpay/orders/"+done.ID+"/complete", nil)
	remit, err := e.remit(member1, "10.00", false)
	if err != nil {
		t.Fatal(err)
	}
	// A challenge left open: the first call of a payment.
	r := e.raw.write(e.raw.token(), "POST", "/v1/qrpay/payments", member1, uuidN(900), []byte(`{"code_value":"`+thaiQR("50.00", "gen3")+`"}`))
	challenge, _ := r.body["challenge_id"].(string)
	if challenge == "" {
		t.Fatalf("no challenge: %v", r)
	}
	session := e.raw.write(e.raw.token(), "POST", "/v1/kyc/profile-sessions", member1, uuidN(901), nil)
	sessionID, _ := session.body["id"].(string)
	binding := e.raw.write(e.raw.token(), "POST", "/v1/kyc/quick", member1, uuidN(902), []byte(`{"email":"gen@example.com"}`))
	bindingID, _ := binding.body["id"].(string)
	if sessionID == "" || bindingID == "" {
		t.Fatalf("KYC session %v, binding %v", session, binding)
	}
	secure := e.raw.write(e.raw.token(), "POST", "/v1/cards/"+card+"/secure-session", member1, uuidN(904), nil)
	hosted, _ := secure.body["hosted_url"].(string)
	_, secureID, _ := strings.Cut(hosted, "/_sim/cards/secure-sessions/")
	if secureID == "" {
		t.Fatalf("card secure session: %v", secure)
	}
	endpoint, _, err := e.sim.Webhooks.AddEndpoint("http://127.0.0.1:9/gen")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.sim.Events.Emit("member.created", "member", "gen", member1, "created", 0); err != nil {
		t.Fatal(err)
	}
	deliveries := e.sim.Webhooks.Deliveries()
	// A member without a KYC profile.
	if _, err := e.sim.Members.Create(simulator.MemberSeed{ExternalID: "gen-noprofile"}); err != nil {
		t.Fatal(err)
	}
	w.good = map[string]any{
		"form_factor": "virtual", "card_status": "active", "member_status": "active", "merchant_model": "platform_hosted",
		"merchant_status": "active", "environment": "sandbox", "fault_kind": "error", "fault_method": "GET", "http_method": "POST",
		"write_method": "POST", "qr_scenario": "timeout", "compensation_source": "admin", "tx_direction": "none",
		"event_type": "member.created", "event_object": "member", "error_code": "api_error", "outcome_collection": "qrpay/orders",
		"action": "cards/plastic", "asset": "USDT",
		"member": member1, "member_ctx": member1, "card": card, "card_application": app.ID, "card_topup": topUp,
		"card_product": "cpd_virtual_std", "qr_order": order.ID, "remittance": remit.ID, "kyc_session": sessionID,
		"quick_binding": bindingID, "secure_session": secureID, "webhook_endpoint": endpoint, "webhook_delivery": deliveries[0].ID, "challenge": challenge,
		"key": simulator.DefaultClientID, "outcome_object": order.ID, "dashboard_file": "app.js",
		"currency": "THB", "country": "SG", "business_path": "/v1/assets", "business_target": "/v1/deposits",
		"idempotency_key": uuidN(903), "decimal": "1", "positive_decimal": "1", "minor_amount": "100",
		"url": "http://127.0.0.1:9/hook", "go_duration": "1s", "outcome_mode": "manual", "event_extra": map[string]any{"a": "b"},
		"text": "x", "name": "x", "member_ref": "gen-new", "body_text": "{}", "qr_code": thaiQR("10.00", "gen4"),
		"snake_code": "payout_rejected", "bin": "489012", "seconds_advance": 1, "seconds_in_progress": 60, "kyc_level": 1,
		"kyc_approval_level": 1, "count": 1, "card_limit": 5, "quota": 0, "fee_rate": 10, "status_version": 1,
		"fault_status": 500, "delay_ms": 1, "scale": 2, "boolean": false, "time": "2026-01-01T00:00:00Z", "seq": 0, "step": "0",
	}
	w.alts = map[string][]any{
		"card": {closed}, "card_topup": {credited}, "qr_order": {done.ID}, "member": {"gen-noprofile"},
		"member_ctx": {"gen-noprofile"}, "outcome_object": {done.ID},
	}
	return w
}

// base is the op's input with every required argument but skip at its
// good value, keyed by fieldKey.
func (w *genWorld) base(t *testing.T, op simulator.OpInfo, skip string) map[string]any {
	return w.input(t, op, skip, false)
}

// input is base, or with all every argument at a good value.
func (w *genWorld) input(t *testing.T, op simulator.OpInfo, skip string, all bool) map[string]any {
	t.Helper()
	v := map[string]any{}
	for _, f := range op.Fields {
		if !f.Req && !all || fieldKey(f) == skip {
			continue
		}
		g, ok := w.good[f.Domain]
		if !ok {
			t.Fatalf("%s: no good value of domain %s (add one to newGenWorld)", opLabel(op), f.Domain)
		}
		v[fieldKey(f)] = shaped(f, g)
	}
	return v
}

// bodyOf is the body fields of values.
func bodyOf(op simulator.OpInfo, values map[string]any) map[string]any {
	out := map[string]any{}
	for _, f := range op.Fields {
		if v, ok := values[fieldKey(f)]; ok && f.Where == "body" {
			out[f.Name] = v
		}
	}
	return out
}

// fieldKey names a field by where it comes from and its name (a path id
// and a body id are two fields).
func fieldKey(f simulator.FieldInfo) string { return f.Where + ":" + f.Name }

// shaped puts a value of a field's domain in the field's JSON shape: an
// array for a list, an object for a map.
func shaped(f simulator.FieldInfo, v any) any {
	switch f.Kind {
	case "strings":
		return []any{v}
	case "map":
		return map[string]any{"USDT": v}
	}
	return v
}

func opLabel(op simulator.OpInfo) string {
	if op.Route != "" {
		return op.Route
	}
	return op.Name
}

var wildcardRE = regexp.MustCompile(`\{([a-z_]+)(\.\.\.)?\}`)

// send runs an op with values: over HTTP when it has a route, otherwise as
// its Go method does. It returns the status (400 or 404 for a Go error
// that maps so) and the message.
func (w *genWorld) send(t *testing.T, op simulator.OpInfo, values map[string]any, viaGo bool) (int, string) {
	t.Helper()
	path, query, body := split(op, values)
	b, _ := json.Marshal(body)
	if viaGo || op.Route == "" {
		if op.Name == "Action" {
			// Action's body argument is bytes: base64 in JSON.
			if s, ok := body["body"].(string); ok {
				body["body"] = []byte(s)
			}
			b, _ = json.Marshal(body)
		}
		route, name := "", op.Name
		if name == "" {
			route = op.Route
		}
		_, err := simulator.InvokeControlOp(w.sim, route, name, b, path)
		if err == nil {
			return 200, ""
		}
		var ne *simulator.NameError
		if errors.As(err, &ne) && ne.NotFound {
			return 404, err.Error()
		}
		return 400, err.Error()
	}
	r := w.overHTTP(op, path, query, body)
	msg, _ := r.body["message"].(string)
	return r.status, msg
}

// split sorts an op's values into its path parameters (query parameters
// too: the Go method takes them as arguments), query and body.
func split(op simulator.OpInfo, values map[string]any) (map[string]string, url.Values, map[string]any) {
	path, query, body := map[string]string{}, url.Values{}, map[string]any{}
	for _, f := range op.Fields {
		v, ok := values[fieldKey(f)]
		if !ok {
			continue
		}
		switch f.Where {
		case "path":
			path[f.Name] = fmt.Sprint(v)
		case "query":
			query.Set(f.Name, fmt.Sprint(v))
			path[f.Name] = fmt.Sprint(v)
		default:
			body[f.Name] = v
		}
	}
	return path, query, body
}

// overHTTP sends an op's route with its path and query parameters and body.
func (w *genWorld) overHTTP(op simulator.OpInfo, path map[string]string, query url.Values, body map[string]any) result {
	method, pattern, _ := strings.Cut(op.Route, " ")
	target := wildcardRE.ReplaceAllStringFunc(pattern, func(m string) string {
		name := wildcardRE.FindStringSubmatch(m)[1]
		return url.PathEscape(path[name])
	})
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	var raw []byte
	if method != "GET" && len(body) > 0 {
		raw, _ = json.Marshal(body)
	}
	return w.raw.send(method, target, raw, http.Header{"Content-Type": {"application/json"}})
}

// TestControlListsAnswerOneEnvelope runs every control route with its
// required arguments at good values and holds every answer that is a list
// (an object whose fields are arrays, and paging fields) to the business
// API's list envelope: exactly data, next_cursor and has_more.
func TestControlListsAnswerOneEnvelope(t *testing.T) {
	t.Parallel()
	w := newGenWorld(t)
	paging := map[string]bool{"next_cursor": true, "has_more": true, "total": true, "count": true}
	lists := 0
	var names []string
	for _, op := range simulator.ControlOps() {
		if op.Route == "" || op.NotFound {
			continue
		}
		path, query, body := split(op, w.base(t, op, ""))
		r := w.overHTTP(op, path, query, body)
		if r.status >= 300 || r.body == nil {
			continue
		}
		arrays, other := 0, 0
		for k, v := range r.body {
			switch {
			case paging[k]:
			case isArray(v):
				arrays++
			default:
				other++
			}
		}
		if arrays == 0 || other > 0 || echoes(op, r.body) {
			continue
		}
		lists++
		names = append(names, op.Route)
		_, hasData := r.body["data"]
		cursor, hasCursor := r.body["next_cursor"]
		more, hasMore := r.body["has_more"].(bool)
		if len(r.body) != 3 || !hasData || !hasCursor || !hasMore || !isArray(r.body["data"]) || (cursor == nil) == more {
			t.Errorf("%s answers a list outside the envelope {data, next_cursor, has_more}: %.300s", op.Route, r.raw)
		}
	}
	if lists < 10 {
		t.Errorf("%d list answers, want the 10 control lists and more", lists)
	}
	t.Logf("%d control routes answer a list, each in the envelope: %s", lists, strings.Join(names, ", "))
}

func isArray(v any) bool { _, ok := v.([]any); return ok }

// echoes reports whether an answer's arrays are body fields of the op: a
// setting answered back (POST /_sim/cards/bin_authorizations answers its
// bins), not a list.
func echoes(op simulator.OpInfo, answer map[string]any) bool {
	for k, v := range answer {
		if !isArray(v) {
			continue
		}
		found := false
		for _, f := range op.Fields {
			found = found || f.Where == "body" && f.Name == k
		}
		if !found {
			return false
		}
	}
	return true
}

// TestControlArgumentDomains sends every declared argument of every control
// op each value outside its domain (the domain's own list, bad), the other
// required arguments at good values: over HTTP to its route, and as its Go
// method (Action for an object action without one). Each answers 400
// invalid_request, or 404 not_found for the id of an object that does not
// exist, with a message naming the argument's domain, and the state digest
// is unchanged.
func TestControlArgumentDomains(t *testing.T) {
	t.Parallel()
	w := newGenWorld(t)
	doms := simulator.ControlDomains()
	ops := simulator.ControlOps()
	args, rows, noBad := 0, 0, map[string]bool{}
	used := map[string]bool{}
	for _, op := range ops {
		if op.NotFound {
			continue
		}
		for _, f := range op.Fields {
			args++
			used[f.Domain] = true
			type bad struct {
				dom string
				v   any
			}
			var bads []bad
			for _, v := range doms[f.Domain].Bad {
				bads = append(bads, bad{f.Domain, shaped(f, v)})
			}
			if f.KeyDomain != "" {
				used[f.KeyDomain] = true
				g := w.good[f.Domain]
				for _, k := range doms[f.KeyDomain].Bad {
					bads = append(bads, bad{f.KeyDomain, map[string]any{fmt.Sprint(k): g}})
				}
			}
			if len(bads) == 0 {
				noBad[f.Domain] = true
			}
			for _, b := range bads {
				for _, viaGo := range []bool{false, true} {
					if viaGo && (op.Name == "" || op.Route == "") || !viaGo && op.Route == "" && op.Name == "" {
						continue
					}
					values := w.base(t, op, fieldKey(f))
					values[fieldKey(f)] = b.v
					before := mustDigest(t, w.sim)
					status, msg := w.send(t, op, values, viaGo)
					want, name := 400, doms[b.dom].Name
					if doms[b.dom].Object {
						want = 404
					}
					if status != want || !strings.Contains(msg, name) {
						t.Errorf("%s (go %v): %s = %#v: %d %q, want %d naming %q", opLabel(op), viaGo, f.Name, b.v, status, msg, want, name)
					}
					if after := mustDigest(t, w.sim); after != before {
						t.Errorf("%s (go %v): %s = %#v was refused but changed the state", opLabel(op), viaGo, f.Name, b.v)
					}
					rows++
				}
			}
		}
	}
	var names []string
	for k := range used {
		names = append(names, k+" ("+doms[k].Name+")")
	}
	sort.Strings(names)
	var none []string
	for k := range noBad {
		none = append(none, k)
	}
	sort.Strings(none)
	t.Logf("%d rows over %d declared arguments of %d ops; %d domains: %s", rows, args, len(ops), len(names), strings.Join(names, "; "))
	t.Logf("domains every JSON value of whose type is inside (no row): %v", none)
	for k := range doms {
		if !used[k] {
			t.Errorf("domain %s is registered but no argument names it", k)
		}
	}
}

// TestRoutesAndGoMethodsRunOneWay runs every control write that has a Go
// method twice, on two worlds built alike: over HTTP on one, as the Go
// method on the other (Action for an object action without one of its
// own). Each logs the same call with the same arguments, and the two
// worlds stay in the same state (the answers kept under idempotency keys,
// whose links name each simulator's own address, left out).
func TestRoutesAndGoMethodsRunOneWay(t *testing.T) {
	t.Parallel()
	a := newGenWorld(t)
	rec, err := a.sim.Recording()
	if err != nil {
		t.Fatal(err)
	}
	bs, err := simulator.New(simulator.WithRecording(rec))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bs.Close)
	b := &genWorld{edge: &edge{t: t, sim: bs}, good: a.good}
	random := []string{"gatewayState.idem"}
	same := func(when string) {
		t.Helper()
		da, _ := simulator.DigestLeaving(a.sim, random...)
		db, _ := simulator.DigestLeaving(b.sim, random...)
		if da != db {
			t.Fatalf("%s: the worlds are in different states", when)
		}
	}
	same("built")
	n := 0
	for _, op := range simulator.ControlOps() {
		method, _, _ := strings.Cut(op.Route, " ")
		if op.Route == "" || op.NotFound || op.Unlocked || method == "GET" || (op.Name == "" && op.Action == "") {
			continue
		}
		values := a.input(t, op, "", true)
		sa, _ := a.send(t, op, values, false)
		goOp := op
		if op.Name == "" || op.NoCall || strings.HasPrefix(simulator.LastInput(a.sim), "call Action ") {
			// No Go method of its own: Action.
			var id string
			for _, f := range op.Fields {
				if f.Where == "path" {
					id = fmt.Sprint(values[fieldKey(f)])
				}
			}
			goOp = simulator.OpInfo{Name: "Action", Fields: []simulator.FieldInfo{{Name: "key", Where: "body"}, {Name: "id", Where: "body"}, {Name: "body", Where: "body"}}}
			body, _ := json.Marshal(bodyOf(op, values))
			if string(body) == "{}" {
				body = nil
			}
			values = map[string]any{"body:key": op.Action, "body:id": id, "body:body": string(body)}
		}
		sb, _ := b.send(t, goOp, values, true)
		la, lb := simulator.LastInput(a.sim), simulator.LastInput(b.sim)
		if la != lb || (sa < 300) != (sb < 300) {
			t.Errorf("%s: over HTTP %d, logged %s; the Go method %d, logged %s", op.Route, sa, la, sb, lb)
		}
		same(op.Route)
		n++
	}
	t.Logf("%d control writes logged alike and left the worlds alike over HTTP and as Go methods", n)
}

// businessKept are the records the refused business requests of this test
// keep, by the contract: its request id and the fault draws of the
// pipeline (requestSeq, rng: the gateway's seeded source, with its PCG
// shared), the request journal, a nonce consumed once the signature
// verified, the definite failure stored under its idempotency key, and the
// QR rate window that counts a refused decode or quote (Tx.Keep). The
// pipeline writes the first five outside the request's step; the kernel
// undoes every other write of a refused step. Everything else of the
// state is compared: a refusal that kept anything else (a step-up
// challenge, a token exchange, the write quota, a PIN window) would show.
var businessKept = []string{
	"gatewayState.requestSeq", "gatewayState.rng", "gatewayState.pcg", "gatewayState.journal",
	"gatewayState.nonces", "gatewayState.nonceQ", "gatewayState.idem",
	"qrpay.state.window",
}

// TestRefusedInputsChangeNothing sends refused variants of every control
// write (an unknown body field; then, with its arguments at good values and
// at the objects of the world in other states, twice, whatever is refused)
// and of every business endpoint (without a token; with one, at unknown
// ids, an empty body, a broken body, a bad query): each refusal leaves the
// state digest as it was, all of it for a control write, all but
// businessKept for a business request. Among them the three refusals that
// changed the state before: KYC approval of a member without a profile at
// a level outside 1 and 2, a member whose balance its asset cannot hold,
// and a debit of a closed card; and a debit the card cannot cover, which
// the walk found.
func TestRefusedInputsChangeNothing(t *testing.T) {
	t.Parallel()
	w := newGenWorld(t)
	tok := w.raw.token()
	type row struct{ what, variant string }
	var refused []row
	named := true // log the named rows with their digests
	check := func(what, variant string, send func() int, leave []string) {
		t.Helper()
		before, err := simulator.DigestLeaving(w.sim, leave...)
		if err != nil {
			t.Fatal(err)
		}
		status := send()
		if status < 400 {
			return // not a refusal
		}
		after, _ := simulator.DigestLeaving(w.sim, leave...)
		if after != before {
			t.Errorf("%s, %s: refused (%d) but changed the state", what, variant, status)
		}
		if named {
			t.Logf("%s, %s: %d, digest %.19s before, %.19s after", what, variant, status, before, after)
		}
		refused = append(refused, row{what, variant})
	}

	// The three named ones.
	check("POST /_sim/kyc/{id}/approve", "level 7, a member without a KYC profile", func() int {
		return w.raw.control("POST", "/_sim/kyc/gen-noprofile/approve", map[string]any{"level": 7}).status
	}, nil)
	check("POST /_sim/members", "a balance with more decimals than USDT holds", func() int {
		return w.raw.control("POST", "/_sim/members", map[string]any{"external_member_id": "gen-bad-balance", "balances": map[string]string{"USDT": "1.1234567"}}).status
	}, nil)
	check("POST /_sim/cards/{id}/transactions", "a debit of a closed card", func() int {
		return w.raw.control("POST", "/_sim/cards/"+w.alts["card"][0].(string)+"/transactions",
			map[string]any{"kind": "auth", "status": "succeed", "direction": "debit", "amount": "1250", "bill_amount": "1250"}).status
	}, nil)
	check("POST /_sim/cards/{id}/transactions", "a debit the card cannot cover", func() int {
		return w.raw.control("POST", "/_sim/cards/"+w.good["card"].(string)+"/transactions",
			map[string]any{"kind": "auth", "status": "succeed", "direction": "debit", "amount": "99999999", "bill_amount": "99999999"}).status
	}, nil)
	// An amount its asset cannot hold, on the other writes that take one.
	for _, c := range []struct {
		route, path string
		body        map[string]any
	}{
		{"POST /_sim/merchant/prepaid/topup", "/_sim/merchant/prepaid/topup", map[string]any{"asset": "USDT", "amount": "0.0000001"}},
		{"POST /_sim/merchant/prepaid/withdraw", "/_sim/merchant/prepaid/withdraw", map[string]any{"asset": "USDT", "amount": "0.0000001"}},
		{"POST /_sim/merchant", "/_sim/merchant", map[string]any{"prepaid": map[string]string{"USDT": "0.0000001"}}},
	} {
		check(c.route, "an amount with more decimals than USDT holds", func() int {
			r := w.raw.control("POST", c.path, c.body)
			if r.status != 400 || !strings.Contains(fmt.Sprint(r.body["message"]), "more decimals than the ledger scale") {
				t.Errorf("%s with an amount USDT cannot hold: %d %s", c.route, r.status, r.raw)
			}
			return r.status
		}, nil)
	}
	named = false
	if r := w.raw.get(tok, "/v1/kyc", "gen-noprofile"); r.body["status"] != "none" {
		t.Errorf("GET /v1/kyc of the member without a profile after the refused approval: %s", r.raw)
	}

	// Every control write.
	writes := 0
	for _, op := range simulator.ControlOps() {
		method, _, _ := strings.Cut(op.Route, " ")
		if op.Route == "" || op.NotFound || method == "GET" {
			continue
		}
		writes++
		check(op.Route, "an unknown body field", func() int {
			values := w.base(t, op, "")
			body := bodyOf(op, values)
			body["no_such_field"] = 1
			b, _ := json.Marshal(body)
			target := w.target(op, values)
			return w.raw.send(method, target, b, http.Header{"Content-Type": {"application/json"}}).status
		}, nil)
		for _, variant := range w.variants(t, op) {
			for i := 1; i <= 2; i++ {
				check(op.Route, fmt.Sprintf("%s, sent %d", variant.name, i), func() int {
					st, _ := w.send(t, op, variant.values, false)
					return st
				}, nil)
			}
		}
	}

	// Every business endpoint.
	endpoints := 0
	for _, route := range simulator.Routes(w.sim) {
		method, pattern, _ := strings.Cut(route, " ")
		endpoints++
		unknown := wildcardRE.ReplaceAllString(pattern, "00000000-0000-4000-8000-00000000dead")
		check(route, "without a token", func() int {
			return w.raw.send(method, unknown, nil, http.Header{}).status
		}, businessKept)
		if pattern == "/v1/connect/token" {
			continue
		}
		if method == "GET" {
			check(route, "unknown ids, a bad query", func() int {
				return w.raw.get(tok, unknown+"?limit=-1&cursor=%00", member1).status
			}, businessKept)
			continue
		}
		for _, body := range []string{"{}", `{"amount":"-1","asset":"QQQ"}`, "{"} {
			check(route, "unknown ids, body "+body, func() int {
				return w.raw.write(tok, method, unknown, member1, uuidN(7000+len(refused)), []byte(body)).status
			}, businessKept)
		}
	}
	perOp := map[string]int{}
	for _, r := range refused {
		perOp[r.what]++
	}
	t.Logf("%d refused variants, each leaving the digest as it was: %d control writes, %d business endpoints (%d routes with a refusal)",
		len(refused), writes, endpoints, len(perOp))
}

// target is the path of op's route with values' path parameters.
func (w *genWorld) target(op simulator.OpInfo, values map[string]any) string {
	_, pattern, _ := strings.Cut(op.Route, " ")
	return wildcardRE.ReplaceAllStringFunc(pattern, func(m string) string {
		name := wildcardRE.FindStringSubmatch(m)[1]
		return url.PathEscape(fmt.Sprint(values["path:"+name]))
	})
}

// genVariant is one input of an op.
type genVariant struct {
	name   string
	values map[string]any
}

// variants are op's input at good values, and with each object argument at
// each object of the world in another state (a closed card, a credited
// top-up, a completed order, a member without a KYC profile).
func (w *genWorld) variants(t *testing.T, op simulator.OpInfo) []genVariant {
	out := []genVariant{{"good values", w.base(t, op, "")}}
	for _, f := range op.Fields {
		for _, alt := range w.alts[f.Domain] {
			v := w.base(t, op, "")
			v[fieldKey(f)] = shaped(f, alt)
			out = append(out, genVariant{fmt.Sprintf("%s %v", f.Name, alt), v})
		}
	}
	return out
}
