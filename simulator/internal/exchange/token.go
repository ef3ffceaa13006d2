package exchange

import (
	"crypto/subtle"
	"io"
	"net/http"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// TokenTTL is how long an access token is valid.
const TokenTTL = 30 * time.Minute

// ServeToken answers POST /v1/connect/token: the token exchange, an
// exchange of its own (its input, request id, faults, journal row).
func (p *Pipeline) ServeToken(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, MaxBodyBytes))
	x := p.Begin(w, r)
	defer x.Tx.Release()
	if x.PreFault() {
		return
	}
	x.Delay()
	clientID := r.Header.Get("X-Client-Id")
	if _, known := p.host.APIKey(x.Tx, clientID); known {
		// Only known client ids: a secret pasted into the wrong header is
		// never journaled.
		x.Rec.ClientID = clientID
	}
	resp := p.issueToken(x.Tx, r, clientID, x.ID)
	x.Finish(x.AfterFault(resp))
}

// issueToken checks the credentials of a token exchange and issues an
// access token, or answers why not.
func (p *Pipeline) issueToken(tx *kernel.Tx, r *http.Request, clientID, requestID string) gateway.Response {
	fail := func(ae *api.Error) gateway.Response { return gateway.ErrorResponse(ae, requestID) }
	if ae := gateway.HeaderAmbiguity(r.Header); ae != nil {
		return fail(ae)
	}
	now := p.host.Now()
	key, known := p.host.APIKey(tx, clientID)
	given := r.Header.Get("X-Api-Key")
	// Unknown client, wrong secret, disabled or expired key: one answer.
	if !known || subtle.ConstantTimeCompare([]byte(key.APIKey), []byte(given)) != 1 || !key.Usable(now) {
		return fail(api.NewErr("invalid_credentials", "invalid client credentials"))
	}
	if !key.IPAllowed(gateway.RemoteIP(r)) {
		return fail(errIPNotAllowed())
	}
	if env, _ := p.host.Merchant(tx); key.Env != env {
		return fail(api.NewErr("environment_mismatch", "the credentials belong to another environment"))
	}
	recent, ae := p.st.ExchangeRate(tx, clientID, now)
	if ae != nil {
		return fail(ae)
	}
	// The checks above refuse before anything is written (but the rate
	// window's trim, a record of the pipeline); the issue is the
	// exchange's step.
	var t gateway.Token
	_ = tx.Step("POST /v1/connect/token", func() error {
		env, _ := p.host.Merchant(tx)
		t = gateway.Token{Value: p.st.TokenValue(tx, clientID, recent, now), ClientID: key.ClientID, Env: env, ExpiresAt: now.Add(TokenTTL)}
		p.host.PutAccessToken(tx, t)
		p.st.TokenQ.Push(tx, t.Value, t.ExpiresAt)
		return nil
	})
	return gateway.JSONResponse(http.StatusOK, map[string]any{
		"auth_token": t.Value, "expired_at": t.ExpiresAt.Unix(), "token_type": "Bearer", "scopes": key.EffectiveScopes(),
	})
}
