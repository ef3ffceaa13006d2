package simulator

import (
	"crypto/hmac"
	crand "crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Contract windows and gateway bounds.
const (
	// maxBodyBytes caps request bodies; larger ones get invalid_request.
	maxBodyBytes = 1 << 20
	// tokenTTL is the access token validity.
	tokenTTL = 30 * time.Minute
	// tokenExchangesPerMinute is the token exchange quota per Key.
	tokenExchangesPerMinute = 20
	// signatureTolerance is the accepted distance of x-timestamp from the clock.
	signatureTolerance = 300 * time.Second
	// nonceWindow is how long a consumed nonce stays refused.
	nonceWindow = 5 * time.Minute
	// idempotencyWindow is how long an idempotency record lives.
	idempotencyWindow = 24 * time.Hour
	// maxNonces and maxIdempotencyRecords bound the windows' memory when the
	// clock stands still under heavy traffic: beyond them the oldest entries
	// are forgotten early. Both are far above anything a test sends inside
	// one window.
	maxNonces             = 100_000
	maxIdempotencyRecords = 100_000
)

// gatewayState holds the gateway's windows: nonces, idempotency records,
// token-exchange rate, request journal and faults.
type gatewayState struct {
	requestSeq int64
	rng        *rand.Rand // request ids and token values; apart from s.rng so object ids do not depend on traffic

	nonces map[string]time.Time // environment|nonce -> expiry
	nonceQ expiryQueue

	idem  map[string]*idemRecord // merchant|key -> record
	idemQ expiryQueue

	tokenQ    expiryQueue            // token values by expiry
	exchanges map[string][]time.Time // client id -> recent token exchanges (at most the quota)

	faults  []*faultRule
	journal *journal

	// scopeCatalog holds every scope the service knows: the scopes the
	// contract names and every scope an endpoint requires.
	scopeCatalog map[string]bool

	// maxNonces and maxIdem bound the windows (maxNonces and
	// maxIdempotencyRecords unless a test lowers them).
	maxNonces, maxIdem int

	// bodyKey keys the idempotency body digests, so a stored digest of a
	// low-entropy body (a PIN change) cannot be reversed by trying every PIN.
	bodyKey [32]byte
}

func newGatewayState(seed int64) *gatewayState {
	g := &gatewayState{
		rng:          rand.New(rand.NewPCG(uint64(seed)^0x5bd1e995, uint64(seed)+0x27d4eb2f)),
		nonces:       map[string]time.Time{},
		idem:         map[string]*idemRecord{},
		exchanges:    map[string][]time.Time{},
		journal:      newJournal(journalCapacity),
		scopeCatalog: map[string]bool{},
		maxNonces:    maxNonces,
		maxIdem:      maxIdempotencyRecords,
	}
	// The key never leaves the process and nothing observable depends on
	// it, so it comes from crypto/rand rather than the seeded generator.
	_, _ = crand.Read(g.bodyKey[:])
	return g
}

// bodyDigest is the keyed digest of a request body kept in an idempotency
// record.
func (g *gatewayState) bodyDigest(body []byte) [sha256.Size]byte {
	m := hmac.New(sha256.New, g.bodyKey[:])
	m.Write(body)
	var d [sha256.Size]byte
	m.Sum(d[:0])
	return d
}

// idemRecord is the stored result of an idempotent request.
type idemRecord struct {
	endpoint   string            // METHOD and escaped path
	bodyHash   [sha256.Size]byte // keyed digest (bodyDigest), never a plain hash
	expiresAt  time.Time
	inProgress bool
	status     int
	header     http.Header
	body       []byte
	code       string
}

// expiryQueue is a FIFO of keys in expiry order. The clock never goes back
// and every window has a fixed length, so insertion order is expiry order and
// sweeping costs only the entries that expire.
type expiryQueue struct {
	items []expiring
	head  int
}

type expiring struct {
	key string
	at  time.Time
}

func (q *expiryQueue) push(key string, at time.Time) { q.items = append(q.items, expiring{key, at}) }

func (q *expiryQueue) len() int { return len(q.items) - q.head }

// pop removes the oldest entry if it has expired at now (or force is set).
func (q *expiryQueue) pop(now time.Time, force bool) (expiring, bool) {
	if q.head >= len(q.items) {
		return expiring{}, false
	}
	it := q.items[q.head]
	if !force && now.Before(it.at) {
		return expiring{}, false
	}
	q.items[q.head] = expiring{}
	q.head++
	if q.head > 1024 && q.head*2 >= len(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items = q.items[:n]
		q.head = 0
	}
	return it, true
}

// sweepLocked deletes expired nonces, idempotency records and tokens, and
// enforces the memory bounds. It runs on every request; each call costs only
// what it removes.
func (s *Simulator) sweepLocked(now time.Time) {
	g := s.gw
	for {
		it, ok := g.nonceQ.pop(now, g.nonceQ.len() > g.maxNonces)
		if !ok {
			break
		}
		if exp, ok := g.nonces[it.key]; ok && !exp.After(it.at) {
			delete(g.nonces, it.key)
		}
	}
	for {
		it, ok := g.idemQ.pop(now, g.idemQ.len() > g.maxIdem)
		if !ok {
			break
		}
		rec, ok := g.idem[it.key]
		if !ok || rec.expiresAt.After(it.at) {
			continue // replaced by a newer record, which has its own entry
		}
		if rec.inProgress && !now.Before(it.at) && g.idemQ.len() <= g.maxIdem {
			// Still running after its window (a held request): look again later.
			g.idemQ.push(it.key, it.at)
			break
		}
		delete(g.idem, it.key)
	}
	for {
		it, ok := g.tokenQ.pop(now, false)
		if !ok {
			break
		}
		delete(s.tokens, it.key)
	}
}

func (s *Simulator) registerGateway() {
	s.mux.HandleFunc("POST /v1/connect/token", s.serveToken)
	s.mux.HandleFunc("/", s.serveNotFound)
}

// ServeHTTP serves the business API and the control API.
func (s *Simulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mux.ServeHTTP(w, r)
}

func (s *Simulator) nextRequestID() string {
	s.gw.requestSeq++
	return "req_" + strconv.FormatInt(s.gw.requestSeq, 10) + "_" + strconv.FormatUint(s.gw.rng.Uint64()&0xffffffffff, 36)
}

// response is one answer of the gateway, built under the lock and written
// after it is released.
type response struct {
	status int
	header http.Header
	body   []byte
	code   string // error code, for the journal
	replay bool
}

func errorResponse(ae *apiError, requestID string) response {
	b, _ := json.Marshal(ae.envelope(requestID))
	resp := response{status: ae.status, body: b, code: ae.Code}
	if len(ae.header) > 0 {
		resp.header = http.Header{}
		for k, v := range ae.header {
			resp.header.Set(k, v)
		}
	}
	return resp
}

func jsonResponse(status int, v any) response {
	var b []byte
	switch x := v.(type) {
	case json.RawMessage:
		b = x
	case []byte:
		b = x
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			return response{status: 500, body: []byte(`{"type":"api_error","code":"api_error","message":"encoding failed"}`), code: "api_error"}
		}
	}
	return response{status: status, body: b}
}

// write sends resp with its request id.
func (resp response) write(w http.ResponseWriter, requestID string) {
	h := w.Header()
	for k, v := range resp.header {
		h[k] = v
	}
	h.Set("X-Request-Id", requestID)
	h.Set("Content-Type", "application/json")
	if resp.replay {
		h.Set("X-Idempotent-Replay", "true")
	}
	w.WriteHeader(resp.status)
	_, _ = w.Write(resp.body)
}

// exchange is the gateway's view of one request from arrival to answer.
type exchange struct {
	s     *Simulator
	w     http.ResponseWriter
	r     *http.Request
	id    string
	fault *faultRule
	rec   RequestRecord
}

// begin takes the lock, assigns the request id, sweeps the windows and takes
// the first matching fault. The caller must call finish.
func (s *Simulator) begin(w http.ResponseWriter, r *http.Request) *exchange {
	s.mu.Lock()
	now := s.clock.Now()
	s.sweepLocked(now)
	x := &exchange{s: s, w: w, r: r, id: s.nextRequestID()}
	x.rec = RequestRecord{
		RequestID: x.id, Time: now, Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery,
		Member:         strings.TrimSpace(r.Header.Get("X-On-Behalf-Of")),
		IdempotencyKey: strings.TrimSpace(r.Header.Get("X-Idempotency-Key")),
	}
	x.fault = s.takeFault(r)
	if x.fault != nil {
		x.rec.Fault = string(x.fault.Kind)
	}
	return x
}

// finish records the request, releases the lock and answers (or drops the
// connection, as the fault says).
func (x *exchange) finish(resp response) {
	x.rec.Status = resp.status
	x.rec.Code = resp.code
	x.rec.Replay = resp.replay
	if x.fault != nil && (x.fault.Kind == FaultDropBefore || x.fault.Kind == FaultDropAfter) {
		x.rec.Status = 0
		x.rec.Dropped = true
	}
	x.s.gw.journal.add(x.rec)
	x.s.mu.Unlock()
	if x.rec.Dropped {
		dropConnection(x.w)
		return
	}
	resp.write(x.w, x.id)
}

// preFault applies the faults that act before anything runs: error answers
// the fault's envelope, drop_before drops the connection. It reports whether
// the request is finished.
func (x *exchange) preFault() bool {
	if x.fault == nil {
		return false
	}
	switch x.fault.Kind {
	case FaultError:
		x.finish(errorResponse(x.fault.apiError(), x.id))
		return true
	case FaultDropBefore:
		x.finish(response{})
		return true
	}
	return false
}

// delay applies a delay fault: it releases the lock for the delay (so other
// requests run meanwhile, and see an idempotency record in progress), then
// takes it again.
func (x *exchange) delay() {
	if x.fault == nil || x.fault.Kind != FaultDelay {
		return
	}
	f := x.fault.Fault
	x.s.mu.Unlock()
	if f.Held != nil {
		f.Held <- x.id
	}
	var timeout <-chan time.Time
	if f.DelayMS > 0 {
		t := time.NewTimer(time.Duration(f.DelayMS) * time.Millisecond)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-f.Hold:
	case <-timeout:
	case <-x.r.Context().Done():
	}
	x.s.mu.Lock()
}

// dropConnection closes the client connection without an answer.
func dropConnection(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

func (s *Simulator) serveNotFound(w http.ResponseWriter, r *http.Request) {
	x := s.begin(w, r)
	if x.preFault() {
		return
	}
	x.delay()
	x.finish(errorResponse(errNotFound("path "+r.URL.Path), x.id))
}

// serveToken answers POST /v1/connect/token.
func (s *Simulator) serveToken(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, maxBodyBytes))
	x := s.begin(w, r)
	if x.preFault() {
		return
	}
	x.delay()
	clientID := r.Header.Get("X-Client-Id")
	if s.keys[clientID] != nil {
		// Only known client ids: a secret pasted into the wrong header is
		// never journaled.
		x.rec.ClientID = clientID
	}
	resp := s.issueToken(r, clientID, x.id)
	x.finish(resp)
}

func (s *Simulator) issueToken(r *http.Request, clientID, requestID string) response {
	now := s.clock.Now()
	key := s.keys[clientID]
	given := r.Header.Get("X-Api-Key")
	// Unknown client, wrong secret, disabled or expired Key: one answer.
	if key == nil || subtle.ConstantTimeCompare([]byte(key.APIKey), []byte(given)) != 1 || !key.usable(now) {
		return errorResponse(newErr("invalid_credentials", "invalid client credentials"), requestID)
	}
	if !key.ipAllowed(remoteIP(r)) {
		return errorResponse(newErr("ip_not_allowed", "the caller address is not allowed for this key"), requestID)
	}
	if key.Env != s.merchant.Env {
		return errorResponse(newErr("environment_mismatch", "the credentials belong to another environment"), requestID)
	}
	recent := s.gw.exchanges[clientID]
	for len(recent) > 0 && !now.Before(recent[0].Add(time.Minute)) {
		recent = recent[1:]
	}
	if len(recent) >= tokenExchangesPerMinute {
		wait := recent[0].Add(time.Minute).Sub(now)
		secs := int64((wait + time.Second - 1) / time.Second)
		if secs < 1 {
			secs = 1
		}
		ae := newErr("rate_limited", "token exchange quota exceeded (20 per minute)").with("retry_after", secs)
		ae.header = map[string]string{"Retry-After": strconv.FormatInt(secs, 10)}
		s.gw.exchanges[clientID] = recent
		return errorResponse(ae, requestID)
	}
	s.gw.exchanges[clientID] = append(append(make([]time.Time, 0, tokenExchangesPerMinute), recent...), now)
	var raw [24]byte
	for i := 0; i < len(raw); i += 8 {
		v := s.gw.rng.Uint64()
		for j := 0; j < 8; j++ {
			raw[i+j] = byte(v >> (8 * j))
		}
	}
	t := &token{Value: "tok_" + base64.RawURLEncoding.EncodeToString(raw[:]), ClientID: key.ClientID, Env: s.merchant.Env, ExpiresAt: now.Add(tokenTTL)}
	s.tokens[t.Value] = t
	s.gw.tokenQ.push(t.Value, t.ExpiresAt)
	return jsonResponse(http.StatusOK, map[string]any{
		"auth_token": t.Value, "expired_at": t.ExpiresAt.Unix(), "token_type": "Bearer", "scopes": key.effectiveScopes(),
	})
}

// serveEndpoint runs the gateway rules for e, then its handler. The order of
// the checks is:
//
//	request id, faults, token, IP allowlist, environment, merchant status,
//	scope, body size, signature, member, precheck, idempotency, handler
//
// Everything before the idempotency step answers without creating an
// idempotency record, so such a rejection is never replayed.
func (s *Simulator) serveEndpoint(w http.ResponseWriter, r *http.Request, e *endpoint) {
	body, rerr := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	x := s.begin(w, r)
	if x.preFault() {
		return
	}
	resp := s.runEndpoint(x, e, body, rerr != nil || len(body) > maxBodyBytes)
	s.runDueLocked()
	x.finish(resp)
}

func (s *Simulator) runEndpoint(x *exchange, e *endpoint, body []byte, bodyTooLarge bool) response {
	r := x.r
	now := s.clock.Now()
	fail := func(ae *apiError) response { return errorResponse(ae, x.id) }
	if s.setupErr != nil {
		return fail(newErr("api_error", s.setupErr.Error()))
	}

	tok := s.tokens[bearer(r)]
	if tok == nil || !now.Before(tok.ExpiresAt) {
		return fail(newErr("invalid_token", "access token missing, malformed or expired"))
	}
	key := s.keys[tok.ClientID]
	if key == nil || !key.usable(now) {
		return fail(newErr("invalid_token", "access token missing, malformed or expired"))
	}
	x.rec.ClientID = key.ClientID
	if !key.ipAllowed(remoteIP(r)) {
		return fail(newErr("ip_not_allowed", "the caller address is not allowed for this key"))
	}
	if tok.Env != s.merchant.Env || key.Env != s.merchant.Env {
		return fail(newErr("environment_mismatch", "the access token belongs to another environment"))
	}
	switch s.merchant.Status {
	case MerchantActive:
	case MerchantSuspended:
		if isWrite(r.Method) {
			return fail(newErr("merchant_disabled", "the merchant is suspended: reads only"))
		}
	default:
		return fail(newErr("merchant_disabled", "the merchant is disabled"))
	}
	if e.scope != "" && !key.allows(e.scope) {
		return fail(newErr("insufficient_scope", "the key lacks the scope "+e.scope))
	}
	if bodyTooLarge {
		return fail(errInvalidRequest("request body unreadable or larger than 1 MiB"))
	}
	if isWrite(r.Method) && (key.SignatureRequired || alwaysSigned(e)) {
		if ae := s.verifySignature(r, key, body, now); ae != nil {
			return fail(ae)
		}
	}
	c := &rc{s: s, r: r, now: now, requestID: x.id, key: key, body: body, header: http.Header{}}
	c.stepUp = strings.TrimSpace(r.Header.Get("X-Step-Up"))
	if e.member {
		m, ae := s.resolveMember(x.rec.Member)
		if ae != nil {
			return fail(ae)
		}
		c.member = m
	}
	if e.precheck != nil {
		if err := e.precheck(c); err != nil {
			return fail(asAPIError(err))
		}
	}
	if !e.idempotent {
		x.delay()
		c.now = s.clock.Now()
		return s.callHandler(c, e)
	}

	c.idemKey = x.rec.IdempotencyKey
	if c.idemKey == "" {
		return fail(newErr("idempotency_key_required", "x-idempotency-key is required"))
	}
	if !uuidShaped(c.idemKey) {
		return fail(newErr("idempotency_key_invalid", "x-idempotency-key must be UUID-shaped (8-4-4-4-12 hex)"))
	}
	recKey := s.merchant.ID + "|" + c.idemKey
	endpointID := r.Method + " " + r.URL.EscapedPath()
	hash := s.gw.bodyDigest(body)
	if rec, ok := s.gw.idem[recKey]; ok && (rec.inProgress || now.Before(rec.expiresAt)) {
		if rec.endpoint != endpointID || rec.bodyHash != hash {
			return fail(newErr("idempotency_key_reused", "the idempotency key was used with a different body or endpoint"))
		}
		if rec.inProgress {
			return fail(newErr("idempotency_in_progress", "the first request with this idempotency key is still running"))
		}
		if e.ownReplay && rec.status < 300 {
			c.replay = true
			c.replayBody = rec.body
			resp := s.callHandler(c, e)
			resp.replay = true
			return resp
		}
		return response{status: rec.status, header: rec.header.Clone(), body: rec.body, code: rec.code, replay: true}
	}
	rec := &idemRecord{endpoint: endpointID, bodyHash: hash, expiresAt: now.Add(idempotencyWindow), inProgress: true}
	s.gw.idem[recKey] = rec
	s.gw.idemQ.push(recKey, rec.expiresAt)
	x.delay()
	c.now = s.clock.Now()
	resp := s.callHandler(c, e)
	if resp.code == "step_up_required" {
		// The resend with x-step-up and the same key must execute.
		delete(s.gw.idem, recKey)
		return resp
	}
	rec.inProgress = false
	rec.status, rec.header, rec.body, rec.code = resp.status, resp.header.Clone(), resp.body, resp.code
	return resp
}

// callHandler runs the endpoint's handler, turning its result (or a panic)
// into a response.
func (s *Simulator) callHandler(c *rc, e *endpoint) (resp response) {
	defer func() {
		if p := recover(); p != nil {
			resp = errorResponse(newErr("api_error", fmt.Sprintf("simulator fault in %s %s: %v", e.method, e.pattern, p)), c.requestID)
		}
	}()
	status, out, err := e.handle(c)
	if err != nil {
		resp = errorResponse(asAPIError(err), c.requestID)
	} else {
		resp = jsonResponse(status, out)
	}
	if len(c.header) > 0 {
		if resp.header == nil {
			resp.header = http.Header{}
		}
		for k, v := range c.header {
			resp.header[k] = v
		}
	}
	return resp
}

// alwaysSigned reports endpoints signed whatever the Key's setting: the
// contract makes POST /v1/deposits always signed.
func alwaysSigned(e *endpoint) bool {
	return e.method == http.MethodPost && e.pattern == "/v1/deposits"
}

// verifySignature checks x-timestamp, x-nonce and x-signature. The nonce is
// consumed only once the signature has been verified, so a request with a bad
// signature does not burn it.
func (s *Simulator) verifySignature(r *http.Request, key *apiKey, body []byte, now time.Time) *apiError {
	ts, nonce, sig := r.Header.Get("X-Timestamp"), r.Header.Get("X-Nonce"), r.Header.Get("X-Signature")
	if ts == "" || nonce == "" || sig == "" {
		return newErr("invalid_signature", "x-timestamp, x-nonce and x-signature are required on signed requests")
	}
	if !allDigits(ts) {
		return newErr("invalid_signature", "x-timestamp must be Unix seconds")
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sec > now.Unix()+int64(signatureTolerance/time.Second) || sec < now.Unix()-int64(signatureTolerance/time.Second) {
		return newErr("timestamp_out_of_range", "x-timestamp is more than 300 seconds from the server clock")
	}
	want := signRequest(key.SigningKey, r.Method, requestTarget(r), ts, nonce, body)
	if !hmac.Equal([]byte(want), []byte(sig)) {
		return newErr("invalid_signature", "signature mismatch")
	}
	nk := string(s.merchant.Env) + "|" + nonce
	if exp, used := s.gw.nonces[nk]; used && now.Before(exp) {
		return newErr("nonce_reused", "x-nonce was already used within 5 minutes")
	}
	s.gw.nonces[nk] = now.Add(nonceWindow)
	s.gw.nonceQ.push(nk, now.Add(nonceWindow))
	return nil
}

// signRequest computes the contract's x-signature: base64 of HMAC-SHA-256
// with the signing key over METHOD, path with query as sent, timestamp, nonce
// and the hex SHA-256 of the body, joined by newlines.
func signRequest(signingKey, method, target, ts, nonce string, body []byte) string {
	sum := sha256.Sum256(body)
	m := hmac.New(sha256.New, []byte(signingKey))
	m.Write([]byte(method))
	m.Write([]byte{'\n'})
	m.Write([]byte(target))
	m.Write([]byte{'\n'})
	m.Write([]byte(ts))
	m.Write([]byte{'\n'})
	m.Write([]byte(nonce))
	m.Write([]byte{'\n'})
	var hx [2 * sha256.Size]byte
	hex.Encode(hx[:], sum[:])
	m.Write(hx[:])
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// requestTarget is the path with its query exactly as the client sent it.
func requestTarget(r *http.Request) string {
	if strings.HasPrefix(r.RequestURI, "/") {
		return r.RequestURI
	}
	return r.URL.RequestURI()
}

func allDigits(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}

// uuidShaped reports the 8-4-4-4-12 hex shape (any version, any case).
func uuidShaped(v string) bool {
	if len(v) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := v[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// remoteIP is the caller's address from the connection.
func remoteIP(r *http.Request) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap()
}

// ipAllowed applies the Key's allowlist. An empty list admits everyone on a
// sandbox Key and no one on a production Key. Entries are a single IPv4
// address, a wildcard prefix (a.*, a.b.* or a.b.c.*) or an IPv4 CIDR with
// prefix length /8, /16 or /24; any other entry never matches.
func (k *apiKey) ipAllowed(ip netip.Addr) bool {
	if len(k.IPAllowlist) == 0 {
		return k.Env != Production
	}
	if !ip.Is4() {
		return false
	}
	for _, e := range k.IPAllowlist {
		if allowEntryMatches(strings.TrimSpace(e), ip) {
			return true
		}
	}
	return false
}

func allowEntryMatches(entry string, ip netip.Addr) bool {
	if base, bits, ok := strings.Cut(entry, "/"); ok {
		if bits != "8" && bits != "16" && bits != "24" {
			return false
		}
		a, err := netip.ParseAddr(base)
		if err != nil || !a.Is4() || a.Zone() != "" {
			return false
		}
		n, _ := strconv.Atoi(bits)
		p, err := a.Prefix(n)
		return err == nil && p.Contains(ip)
	}
	if prefix, ok := strings.CutSuffix(entry, ".*"); ok {
		parts := strings.Split(prefix, ".")
		if len(parts) < 1 || len(parts) > 3 {
			return false
		}
		oct := ip.As4()
		for i, p := range parts {
			if !allDigits(p) || len(p) > 3 || (len(p) > 1 && p[0] == '0') {
				return false
			}
			v, _ := strconv.Atoi(p)
			if v > 255 || byte(v) != oct[i] {
				return false
			}
		}
		return true
	}
	a, err := netip.ParseAddr(entry)
	return err == nil && a.Is4() && a == ip
}

// resolveMember resolves x-on-behalf-of (already trimmed): an
// external_member_id or mem_<uuid>. Blank gives member_context_required;
// anything unknown, foreign, suspended or blocklisted gives member_not_found
// (one response, so nothing is revealed). An e-mail, phone number or bare
// uuid is only found if it is literally some member's external_member_id.
func (s *Simulator) resolveMember(v string) (*member, *apiError) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, newErr("member_context_required", "x-on-behalf-of is required")
	}
	var m *member
	if strings.HasPrefix(v, "mem_") {
		m = s.members[v]
	} else {
		m = s.membersByExt[v]
	}
	if m == nil || (m.MerchantID != "" && m.MerchantID != s.merchant.ID) || m.Status == "suspended" || m.Status == "blocklisted" {
		return nil, newErr("member_not_found", "member not found")
	}
	return m, nil
}

// usable reports whether the Key may be used at now.
func (k *apiKey) usable(now time.Time) bool {
	return !k.Disabled && (k.ValidUntil.IsZero() || now.Before(k.ValidUntil))
}

// restrictedScopes count only once the operator has approved them.
var restrictedScopes = map[string]bool{"deposits:write": true, "cards:secure": true}

// effective reports whether scope is granted and, when restricted, approved.
func (k *apiKey) effective(scope string) bool {
	return k.Scopes[scope] && (!restrictedScopes[scope] || k.Approved[scope])
}

// allows reports whether the Key may call an endpoint needing scope: write on
// a resource includes read of the same resource.
func (k *apiKey) allows(scope string) bool {
	if k.effective(scope) {
		return true
	}
	if res, ok := strings.CutSuffix(scope, ":read"); ok {
		return k.effective(res + ":write")
	}
	return false
}

// effectiveScopes lists the effective scopes, sorted.
func (k *apiKey) effectiveScopes() []string {
	out := make([]string, 0, len(k.Scopes))
	for sc := range k.Scopes {
		if k.effective(sc) {
			out = append(out, sc)
		}
	}
	sort.Strings(out)
	return out
}
