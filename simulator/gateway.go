package simulator

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxBodyBytes caps request bodies; larger ones get invalid_request.
const maxBodyBytes = 1 << 20

// tokenTTL is the access token validity.
const tokenTTL = 30 * time.Minute

// gatewayState holds the gateway's windows: nonces, idempotency records,
// token-exchange rate, request journal and faults.
type gatewayState struct {
	requestSeq int64
}

func (s *Simulator) registerGateway() {
	s.gw = &gatewayState{}
	s.mux.HandleFunc("POST /v1/connect/token", s.serveToken)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		id := s.nextRequestID()
		s.mu.Unlock()
		w.Header().Set("X-Request-Id", id)
		writeJSON(w, http.StatusNotFound, errNotFound("path "+r.URL.Path).envelope(id))
	})
}

// ServeHTTP serves the business API and the control API.
func (s *Simulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mux.ServeHTTP(w, r)
}

func (s *Simulator) nextRequestID() string {
	s.gw.requestSeq++
	return "req_" + strconv.FormatInt(s.gw.requestSeq, 10) + "_" + s.newUUID()[:8]
}

func (s *Simulator) serveToken(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.nextRequestID()
	w.Header().Set("X-Request-Id", id)
	key := s.keys[r.Header.Get("X-Client-Id")]
	if key == nil || key.Disabled || key.APIKey != r.Header.Get("X-Api-Key") {
		writeJSON(w, 401, newErr("invalid_credentials", "invalid client credentials").envelope(id))
		return
	}
	now := s.clock.Now()
	t := &token{Value: "tok_" + strings.ReplaceAll(s.newUUID(), "-", ""), ClientID: key.ClientID, Env: key.Env, ExpiresAt: now.Add(tokenTTL)}
	s.tokens[t.Value] = t
	scopes := make([]string, 0, len(key.Scopes))
	for _, sc := range fixtureScopes {
		if key.Scopes[sc] {
			scopes = append(scopes, sc)
		}
	}
	writeJSON(w, 200, map[string]any{"auth_token": t.Value, "expired_at": t.ExpiresAt.Unix(), "token_type": "Bearer", "scopes": scopes})
}

// serveEndpoint runs the gateway rules for e, then its handler.
func (s *Simulator) serveEndpoint(w http.ResponseWriter, r *http.Request, e *endpoint) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.nextRequestID()
	w.Header().Set("X-Request-Id", id)
	fail := func(ae *apiError) {
		for k, v := range ae.header {
			w.Header().Set(k, v)
		}
		writeJSON(w, ae.status, ae.envelope(id))
	}
	if err != nil || len(body) > maxBodyBytes {
		fail(errInvalidRequest("request body unreadable or larger than 1 MiB"))
		return
	}
	c := &rc{s: s, r: r, now: s.clock.Now(), requestID: id, body: body, header: w.Header()}
	tok := s.tokens[bearer(r)]
	if tok == nil || !c.now.Before(tok.ExpiresAt) {
		fail(newErr("invalid_token", "access token missing, malformed or expired"))
		return
	}
	c.key = s.keys[tok.ClientID]
	if e.member {
		m, ae := s.resolveMember(r.Header.Get("X-On-Behalf-Of"))
		if ae != nil {
			fail(ae)
			return
		}
		c.member = m
	}
	if e.idempotent {
		c.idemKey = strings.TrimSpace(r.Header.Get("X-Idempotency-Key"))
		if c.idemKey == "" {
			fail(newErr("idempotency_key_required", "x-idempotency-key is required"))
			return
		}
	}
	c.stepUp = strings.TrimSpace(r.Header.Get("X-Step-Up"))
	status, out, herr := e.handle(c)
	if herr != nil {
		fail(asAPIError(herr))
		return
	}
	writeJSON(w, status, out)
	s.runDueLocked()
}

// resolveMember resolves x-on-behalf-of: an external_member_id or mem_<uuid>,
// trimmed. Blank gives member_context_required; anything unknown, foreign,
// suspended or blocklisted gives member_not_found.
func (s *Simulator) resolveMember(h string) (*member, *apiError) {
	v := strings.TrimSpace(h)
	if v == "" {
		return nil, newErr("member_context_required", "x-on-behalf-of is required")
	}
	m := s.members[v]
	if m == nil && !strings.HasPrefix(v, "mem_") {
		m = s.membersByExt[v]
	}
	if m == nil || m.Status == "suspended" || m.Status == "blocklisted" {
		return nil, newErr("member_not_found", "member not found")
	}
	return m, nil
}
