package simulator

import (
	"crypto/hmac"
	"crypto/subtle"
	"encoding/base64"
	"io"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"

	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// serveToken answers POST /v1/connect/token.
func (g *gateway) serveToken(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, maxBodyBytes))
	x := g.begin(w, r)
	defer x.tx.Release()
	if x.preFault() {
		return
	}
	x.delay()
	clientID := r.Header.Get("X-Client-Id")
	if g.st.keys.Has(x.tx, clientID) {
		// Only known client ids: a secret pasted into the wrong header is
		// never journaled.
		x.rec.ClientID = clientID
	}
	resp := g.issueToken(x.tx, r, clientID, x.id)
	x.finish(x.afterFault(resp))
}

// issueToken checks the credentials of a token exchange and issues an
// access token, or answers why not.
func (g *gateway) issueToken(tx *kernel.Tx, r *http.Request, clientID, requestID string) response {
	if ae := pipeline.HeaderAmbiguity(r.Header); ae != nil {
		return pipeline.ErrorResponse(ae, requestID)
	}
	now := g.st.clock.Now()
	key, known := g.st.keys.Get(tx, clientID)
	given := r.Header.Get("X-Api-Key")
	// Unknown client, wrong secret, disabled or expired Key: one answer.
	if !known || subtle.ConstantTimeCompare([]byte(key.APIKey), []byte(given)) != 1 || !key.usable(now) {
		return pipeline.ErrorResponse(newErr("invalid_credentials", "invalid client credentials"), requestID)
	}
	if !key.ipAllowed(pipeline.RemoteIP(r)) {
		return pipeline.ErrorResponse(newErr("ip_not_allowed", "the caller address is not allowed for this key"), requestID)
	}
	if key.Env != Environment(g.st.merchant.Env(tx)) {
		return pipeline.ErrorResponse(newErr("environment_mismatch", "the credentials belong to another environment"), requestID)
	}
	recent, _ := g.st.gw.Exchanges.Get(tx, clientID)
	cut := 0
	for cut < recent.Len() && !now.Before(recent.At(cut).Add(time.Minute)) {
		cut++
	}
	recent = recent.From(cut)
	if recent.Len() >= tokenExchangesPerMinute {
		wait := recent.At(0).Add(time.Minute).Sub(now)
		secs := int64((wait + time.Second - 1) / time.Second)
		if secs < 1 {
			secs = 1
		}
		ae := newErr("rate_limited", "token exchange quota exceeded (20 per minute)").With("retry_after", secs)
		ae.Header = map[string]string{"Retry-After": strconv.FormatInt(secs, 10)}
		g.st.gw.Exchanges.Put(tx, clientID, recent)
		return pipeline.ErrorResponse(ae, requestID)
	}
	// The checks above refuse before anything is written (but the rate
	// window's trim, a record of the pipeline); the issue is the
	// exchange's step.
	var t token
	_ = tx.Step("POST /v1/connect/token", func() error {
		g.st.gw.Exchanges.Put(tx, clientID, recent.Append(now))
		var raw [24]byte
		for i := 0; i < len(raw); i += 8 {
			v := g.st.gw.Rng.Uint64(tx)
			for j := 0; j < 8; j++ {
				raw[i+j] = byte(v >> (8 * j))
			}
		}
		t = token{Value: "tok_" + base64.RawURLEncoding.EncodeToString(raw[:]), ClientID: key.ClientID, Env: Environment(g.st.merchant.Env(tx)), ExpiresAt: now.Add(tokenTTL)}
		g.st.tokens.Put(tx, t.Value, t)
		g.st.gw.TokenQ.Push(tx, t.Value, t.ExpiresAt)
		return nil
	})
	return pipeline.JSONResponse(http.StatusOK, map[string]any{
		"auth_token": t.Value, "expired_at": t.ExpiresAt.Unix(), "token_type": "Bearer", "scopes": key.effectiveScopes(),
	})
}

// alwaysSigned reports endpoints signed whatever the Key's setting: the
// contract makes POST /v1/deposits always signed.
func alwaysSigned(e *endpoint) bool {
	return e.Method == http.MethodPost && e.Pattern == "/v1/deposits"
}

// verifySignature checks x-timestamp, x-nonce and x-signature. The nonce is
// consumed only once the signature has been verified, so a request with a bad
// signature does not burn it.
func (g *gateway) verifySignature(tx *kernel.Tx, r *http.Request, key apiKey, body []byte, now time.Time) *apiError {
	ts, nonce, sig := r.Header.Get("X-Timestamp"), r.Header.Get("X-Nonce"), r.Header.Get("X-Signature")
	// A refusal carries its explanation for the request journal; the
	// answer itself is the contract's.
	refuse := func(code, message, problem string) *apiError {
		ae := newErr(code, message)
		ae.Signature = explainSignature(r, ts, nonce, body, now, problem)
		return ae
	}
	if ts == "" || nonce == "" || sig == "" {
		return refuse("invalid_signature", "x-timestamp, x-nonce and x-signature are required on signed requests", pipeline.MissingSigningHeaders(ts, nonce, sig))
	}
	if !api.AllDigits(ts) {
		return refuse("invalid_signature", "x-timestamp must be Unix seconds", "x-timestamp is not Unix seconds (digits only)")
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sec > now.Unix()+int64(pipeline.SignatureTolerance/time.Second) || sec < now.Unix()-int64(pipeline.SignatureTolerance/time.Second) {
		return refuse("timestamp_out_of_range", "x-timestamp is more than 300 seconds from the server clock", pipeline.SkewProblem(ts, now))
	}
	want := pipeline.Sign(key.SigningKey, r.Method, pipeline.RequestTarget(r), ts, nonce, body)
	if !hmac.Equal([]byte(want), []byte(sig)) {
		return refuse("invalid_signature", "signature mismatch", pipeline.MismatchProblem(sig))
	}
	nk := g.st.merchant.Env(tx) + "|" + nonce
	if exp, used := g.st.gw.Nonces.Get(tx, nk); used && now.Before(exp) {
		return newErr("nonce_reused", "x-nonce was already used within 5 minutes")
	}
	if c := g.st.gw.Caps.Get(tx).Nonces; g.st.gw.Nonces.Len(tx) >= c {
		return pipeline.StoreFull(tx, pipeline.CapNonces, c, g.st.gw.NonceQ, now)
	}
	g.st.gw.Nonces.Put(tx, nk, now.Add(nonceWindow))
	g.st.gw.NonceQ.Push(tx, nk, now.Add(nonceWindow))
	return nil
}

// signRequest computes the contract's x-signature (internal/gateway's
// Sign); the recipes' host and staging sign with it.
func signRequest(signingKey, method, target, ts, nonce string, body []byte) string {
	return pipeline.Sign(signingKey, method, target, ts, nonce, body)
}

// ipAllowed applies the Key's allowlist (internal/gateway's IPAllowed).
func (k apiKey) ipAllowed(ip netip.Addr) bool {
	return pipeline.IPAllowed(k.IPAllowlist, k.Env == Production, ip)
}

// resolveMember resolves x-on-behalf-of (already trimmed): an
// external_member_id or mem_<uuid>. Blank gives member_context_required;
// anything unknown, foreign, suspended or blocklisted gives member_not_found
// (one response, so nothing is revealed). An e-mail, phone number or bare
// uuid is only found if it is literally some member's external_member_id.
func (g *gateway) resolveMember(tx *kernel.Tx, v string) (*member, *apiError) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, newErr("member_context_required", "x-on-behalf-of is required")
	}
	var m *member
	if strings.HasPrefix(v, "mem_") {
		m = g.st.members.Get(tx, v)
	} else {
		m = g.st.members.ByExternal(tx, v)
	}
	if m == nil || (m.MerchantID != "" && m.MerchantID != g.st.merchant.ID(tx)) || m.Status == "suspended" || m.Status == "blocklisted" {
		return nil, newErr("member_not_found", "member not found")
	}
	return m, nil
}

// usable reports whether the Key may be used at now.
func (k apiKey) usable(now time.Time) bool {
	return !k.Disabled && (k.ValidUntil.IsZero() || now.Before(k.ValidUntil))
}

// restrictedScopes count only once the operator has approved them.
var restrictedScopes = pipeline.RestrictedScopes

// scopes are the Key's scopes under internal/gateway's rules.
func (k apiKey) scopes() pipeline.Scopes {
	return pipeline.Scopes{Granted: k.Scopes, Approved: k.Approved}
}

// allows reports whether the Key may call an endpoint needing scope: write on
// a resource includes read of the same resource.
func (k apiKey) allows(scope string) bool { return k.scopes().Allows(scope) }

// effectiveScopes lists the effective scopes, sorted.
func (k apiKey) effectiveScopes() []string { return k.scopes().List() }
