package walk

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The fixture's credentials (mwallet-sim's defaults); setup reads them
// from GET /_sim/credentials of the reference.
const tokenLife = 25 * 60 // a token is renewed after 25 minutes of simulator clock (it lives 30)

// model is what the walk knows of the simulators' state, learned from the
// reference's answers.
type model struct {
	clientID, apiKey, signingKey string
	now                          int64 // simulator clock, Unix seconds
	token                        string
	tokenAt                      int64
	members                      []string          // external member ids
	memIDs                       map[string]string // external id to mem_ id
	payees                       map[string][]string
	nonces, keys                 []string
	lastKeyed                    *request // the last keyed request, for a replay or a reuse
	qr, apps, cards, phys        []string
	topups, remits, quick        []string
	sessions, deliveries, eps    []string
	redeliverable                []string // dead, failed or no_subscriber rows
	cursor                       string   // the next page of GET /v1/webhooks/deliveries
	secure, steps                []string
	pending                      []stepCall // keyed requests answered step_up_required
	refs                         int
	restores                     []restore // control calls due at a later step
}

// stepCall is a keyed request answered step_up_required, to be resent
// with the same key and body once its challenge is completed.
type stepCall struct {
	op, path  string
	body      any
	member    string
	key       string
	challenge string
}

// bizOpt modifies one business request.
type bizOpt struct {
	member  string
	keyed   bool
	stepUp  string
	noBreak bool // never break this request on purpose
	key     string
}

// uuid draws a version-4 UUID from the walk's generator.
func (w *walker) uuid() string {
	var b [16]byte
	for i := 0; i < 16; i += 8 {
		v := w.rng.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func (w *walker) one(n int) bool { return w.rng.IntN(n) == 0 }

func pick[T any](w *walker, list []T) (T, bool) {
	var zero T
	if len(list) == 0 {
		return zero, false
	}
	return list[w.rng.IntN(len(list))], true
}

// jsonBody encodes v compactly, without HTML escaping (map keys sorted).
func jsonBody(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // the walk's own values always encode
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// ctl sends a control request. Around a control write each target's state
// digest is read (on every target, so their control request ids stay in
// step); a write the working tree's build refuses must leave its digest as
// it was (Result.Leaks).
func (w *walker) ctl(op, path string, body any) *answer {
	method, _, _ := strings.Cut(op, " ")
	r := &request{op: op, method: method, target: path}
	write := method != http.MethodGet && method != http.MethodHead
	if write {
		// Control writes are JSON, with a body or without one (the
		// simulator refuses any other type: a cross-site page's request).
		r.set("Content-Type", "application/json")
	}
	if body != nil {
		r.body, r.hasBody = jsonBody(body), true
		if w.one(40) {
			w.malform(r)
		}
	}
	if !write {
		return w.send(r)
	}
	before := w.digests()
	a := w.send(r)
	if a.status >= 400 {
		w.res.RefusedWrites++
		if after := w.digests(); after[0] != before[0] {
			w.res.Leaks = append(w.res.Leaks, fmt.Sprintf("step %d request %d %s answered %d %s but changed the state: %.200s",
				w.step, w.res.Requests, op, a.status, a.code(), r.text()))
		}
	}
	return a
}

// digests reads each target's state digest (GET /_sim/digest), outside
// the comparison.
func (w *walker) digests() []string {
	out := make([]string, len(w.cfg.Targets))
	for i, base := range w.cfg.Targets {
		a := w.do(base, &request{method: http.MethodGet, target: "/_sim/digest"})
		out[i] = a.str("digest")
	}
	return out
}

// ensureToken exchanges a new token when the one held is older than
// tokenLife on the simulator clock.
func (w *walker) ensureToken() {
	if w.m.token != "" && w.m.now-w.m.tokenAt < tokenLife {
		return
	}
	w.exchange(w.m.clientID, w.m.apiKey)
}

func (w *walker) exchange(clientID, apiKey string) *answer {
	r := &request{op: "POST /v1/connect/token", method: "POST", target: "/v1/connect/token"}
	r.set("x-client-id", clientID)
	r.set("x-api-key", apiKey)
	a := w.send(r)
	if a.status == 200 && clientID == w.m.clientID && apiKey == w.m.apiKey {
		w.m.token, w.m.tokenAt = a.str("auth_token"), w.m.now
	}
	return a
}

// biz builds, signs and sends one business request; sometimes it breaks
// it on purpose (a bad token, signature, timestamp, nonce, idempotency key,
// member or body) or arms a fault for it first.
func (w *walker) biz(op string, query url.Values, body any, o bizOpt) *answer {
	return w.bizAt(op, path(op), query, body, o)
}

// path fills the template of op with ids in order.
func path(op string, ids ...string) string {
	_, tmpl, _ := strings.Cut(op, " ")
	for _, id := range ids {
		i := strings.Index(tmpl, "{")
		j := strings.Index(tmpl, "}")
		if i < 0 || j < i {
			break
		}
		tmpl = tmpl[:i] + url.PathEscape(id) + tmpl[j+1:]
	}
	return tmpl
}

func (w *walker) bizAt(op, p string, query url.Values, body any, o bizOpt) *answer {
	w.ensureToken()
	method, _, _ := strings.Cut(op, " ")
	r := &request{op: op, method: method, target: p}
	return w.bizSend(r, query, body, o)
}

func (w *walker) bizSend(r *request, query url.Values, body any, o bizOpt) *answer {
	p := r.target
	if len(query) > 0 {
		r.target += "?" + query.Encode()
	}
	if body != nil {
		r.body, r.hasBody = jsonBody(body), true
	} else if r.method == "POST" && !o.keyed {
		r.hasBody = false
	}
	brk := -1
	if !o.noBreak && w.one(12) {
		brk = w.rng.IntN(14)
	}
	tok := w.m.token
	switch brk {
	case 0:
		tok = "tok_" + strings.ReplaceAll(w.uuid(), "-", "")[:32]
	case 1:
		tok = ""
	}
	if tok != "" {
		if brk == 2 {
			r.set("authorization", "Bearer "+tok)
		} else {
			r.set("x-auth-token", "Bearer "+tok)
		}
	}
	if r.hasBody {
		r.set("Content-Type", "application/json")
	}
	member := o.member
	switch brk {
	case 3:
		member = ""
	case 4:
		member = "nobody-" + w.uuid()[:8]
	case 5:
		member = "  " + member + " "
	}
	if member != "" {
		r.set("x-on-behalf-of", member)
	}
	key := ""
	if o.keyed {
		key = o.key
		if key == "" {
			key = w.uuid()
		}
		switch brk {
		case 6:
			key = ""
		case 7:
			key = "not-a-uuid"
		case 8:
			if k, ok := pick(w, w.m.keys); ok {
				key = k
			}
		}
		if key != "" {
			r.set("x-idempotency-key", key)
			w.m.keys = append(w.m.keys, key)
			if len(w.m.keys) > 64 {
				w.m.keys = w.m.keys[1:]
			}
		}
	}
	if o.stepUp != "" {
		r.set("x-step-up", o.stepUp)
	}
	if brk == 9 && r.hasBody {
		w.malform(r)
	}
	if r.method != "GET" && r.method != "HEAD" && brk != 10 {
		w.sign(r, brk)
	}
	if brk == 13 {
		w.oddRoute(r)
	}
	if !o.noBreak && brk < 0 && w.one(25) {
		w.armFault(r)
	}
	a := w.send(r)
	if key != "" && len(query) == 0 && a.code() == "step_up_required" && a.str("challenge_id") != "" && len(w.m.pending) < 16 {
		w.m.pending = append(w.m.pending, stepCall{op: r.op, path: p, body: body, member: o.member, key: key, challenge: a.str("challenge_id")})
	}
	return a
}

// sign adds x-timestamp, x-nonce and x-signature; brk 11 signs with a
// stale timestamp, 12 with a used nonce or a wrong signature.
func (w *walker) sign(r *request, brk int) {
	ts := w.m.now
	if brk == 11 {
		ts -= 1000
	}
	nonce := w.uuid()
	if brk == 12 && len(w.m.nonces) > 0 && w.one(2) {
		nonce, _ = pick(w, w.m.nonces)
	}
	w.m.nonces = append(w.m.nonces, nonce)
	if len(w.m.nonces) > 64 {
		w.m.nonces = w.m.nonces[1:]
	}
	sum := sha256.Sum256(r.body)
	msg := strings.Join([]string{r.method, r.target, strconv.FormatInt(ts, 10), nonce, hex.EncodeToString(sum[:])}, "\n")
	mac := hmac.New(sha256.New, []byte(w.m.signingKey))
	mac.Write([]byte(msg))
	sig := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	if brk == 12 && w.one(2) {
		sig = base64.StdEncoding.EncodeToString(sum[:])
	}
	r.set("x-timestamp", strconv.FormatInt(ts, 10))
	r.set("x-nonce", nonce)
	r.set("x-signature", sig)
}

// malform breaks a JSON body the way a careless client does.
func (w *walker) malform(r *request) {
	switch w.rng.IntN(6) {
	case 0:
		r.body = append(r.body, '}')
	case 1:
		r.body = []byte(`{"amount":1.5,"asset":7}`)
	case 2:
		r.body = []byte(`{"a":1,"a":2}`)
	case 3:
		r.body = bytes.Replace(r.body, []byte(`{"`), []byte(`{"Unknown_Field":true,"`), 1)
	case 4:
		r.body = r.body[:len(r.body)/2]
	default:
		r.body = []byte("[]")
	}
}

// oddRoute sends the request where nothing serves it: another method, a
// trailing slash, an empty segment.
func (w *walker) oddRoute(r *request) {
	switch w.rng.IntN(3) {
	case 0:
		r.method = "PUT"
	case 1:
		p, q, _ := strings.Cut(r.target, "?")
		r.target = p + "/"
		if q != "" {
			r.target += "?" + q
		}
	default:
		r.target = strings.Replace(r.target, "/v1/", "/v1//", 1)
	}
	r.op = r.method + " (no route)"
}

// faultKinds are the faults the walk arms, each for exactly the next
// request (count 1 on its method and exact path). delay is left out: its
// interleaving with other requests depends on timing.
var faultKinds = []struct {
	kind, code string
	status     int
}{
	{"error", "upstream_error", 502}, {"error", "api_error", 500}, {"error", "upstream_timeout", 504},
	{"error", "rate_limited", 429},
	{"error_after", "upstream_timeout", 504}, {"drop_before", "", 0}, {"drop_after", "", 0},
}

func (w *walker) armFault(r *request) {
	f, _ := pick(w, faultKinds)
	p, _, _ := strings.Cut(r.target, "?")
	body := map[string]any{"method": r.method, "path": p, "kind": f.kind, "count": 1}
	if f.code != "" {
		body["code"] = f.code
		body["status"] = f.status
	}
	if a := w.send(&request{op: "POST /_sim/faults", method: "POST", target: "/_sim/faults", body: jsonBody(body), hasBody: true,
		header: [][2]string{{"Content-Type", "application/json"}}}); a.status == 201 {
		r.fault = f.kind
	}
}

func (w *walker) ref() string {
	w.m.refs++
	return fmt.Sprintf("walk-%d-%d", w.cfg.Seed, w.m.refs)
}
