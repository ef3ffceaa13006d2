package simulator

import (
	"crypto/subtle"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"time"

	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// serveToken answers POST /v1/connect/token.
func (g *gateway) serveToken(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, maxBodyBytes))
	x := g.ex.Begin(w, r)
	defer x.Tx.Release()
	if x.PreFault() {
		return
	}
	x.Delay()
	clientID := r.Header.Get("X-Client-Id")
	if g.st.keys.Has(x.Tx, clientID) {
		// Only known client ids: a secret pasted into the wrong header is
		// never journaled.
		x.Rec.ClientID = clientID
	}
	resp := g.issueToken(x.Tx, r, clientID, x.ID)
	x.Finish(x.AfterFault(resp))
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
	recent, ae := g.st.gw.ExchangeRate(tx, clientID, now)
	if ae != nil {
		return pipeline.ErrorResponse(ae, requestID)
	}
	// The checks above refuse before anything is written (but the rate
	// window's trim, a record of the pipeline); the issue is the
	// exchange's step.
	var t token
	_ = tx.Step("POST /v1/connect/token", func() error {
		value := g.st.gw.TokenValue(tx, clientID, recent, now)
		t = token{Value: value, ClientID: key.ClientID, Env: Environment(g.st.merchant.Env(tx)), ExpiresAt: now.Add(tokenTTL)}
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
	ts, nonce := r.Header.Get("X-Timestamp"), r.Header.Get("X-Nonce")
	// A refusal carries its explanation for the request journal; the
	// answer itself is the contract's.
	if code, message, problem := pipeline.CheckSignature(r, key.SigningKey, body, now); code != "" {
		ae := newErr(code, message)
		ae.Signature = pipeline.ExplainSignature(r, ts, nonce, body, now, problem)
		return ae
	}
	return g.st.gw.ConsumeNonce(tx, g.st.merchant.Env(tx), nonce, now)
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
