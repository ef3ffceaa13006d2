package exchange

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Directory is what the checks of the caller look up in the simulator's
// state: the API keys, the access tokens, the merchant and its members.
type Directory interface {
	// APIKey is the API key of clientID, if there is one.
	APIKey(tx *kernel.Tx, clientID string) (gateway.Key, bool)
	// AccessToken is the access token of value, if one was issued and has
	// not been swept.
	AccessToken(tx *kernel.Tx, value string) (gateway.Token, bool)
	// PutAccessToken keeps an issued access token.
	PutAccessToken(tx *kernel.Tx, t gateway.Token)
	// Merchant is the merchant's environment and status.
	Merchant(tx *kernel.Tx) (env, status string)
	// Member is the member of id, MemberByExternal the member of an
	// external_member_id; nil when there is none.
	Member(tx *kernel.Tx, id string) *api.Member
	MemberByExternal(tx *kernel.Tx, external string) *api.Member
}

// The merchant statuses the checks of the caller tell apart: a suspended
// merchant may read but not write; any status but these two may do
// neither.
const (
	merchantActive    = "active"
	merchantSuspended = "suspended"
)

// errInvalidToken is the refusal of a token that is missing, unknown,
// expired or of a key that may not be used.
func errInvalidToken() *api.Error {
	return api.NewErr("invalid_token", "access token missing, malformed or expired")
}

// errIPNotAllowed is the refusal of a caller address the key's allowlist
// does not admit.
func errIPNotAllowed() *api.Error {
	return api.NewErr("ip_not_allowed", "the caller address is not allowed for this key")
}

// authorize applies the checks of the caller for e to the request of x, in
// the order Serve lists: token, IP allowlist, environment, merchant status,
// scope, body size, signature, write quota. What it learns of the caller
// (its client id, the explanation of a refused signature) goes in x.Rec.
func (p *Pipeline) authorize(x *Exchange, e *api.Endpoint, body []byte, bodyTooLarge bool, now time.Time) *api.Error {
	r := x.R
	if ae := gateway.HeaderAmbiguity(r.Header); ae != nil {
		return ae
	}
	tok, ok := p.host.AccessToken(x.Tx, bearer(r))
	if !ok || !now.Before(tok.ExpiresAt) {
		return errInvalidToken()
	}
	key, ok := p.host.APIKey(x.Tx, tok.ClientID)
	if !ok || !key.Usable(now) {
		return errInvalidToken()
	}
	x.Rec.ClientID = key.ClientID
	if !key.IPAllowed(gateway.RemoteIP(r)) {
		return errIPNotAllowed()
	}
	env, status := p.host.Merchant(x.Tx)
	if tok.Env != env || key.Env != env {
		return api.NewErr("environment_mismatch", "the access token belongs to another environment")
	}
	switch status {
	case merchantActive:
	case merchantSuspended:
		if gateway.IsWrite(r.Method) {
			return api.NewErr("merchant_disabled", "the merchant is suspended: reads only")
		}
	default:
		return api.NewErr("merchant_disabled", "the merchant is disabled")
	}
	if e.Scope != "" && !key.Allows(e.Scope) {
		return api.NewErr("insufficient_scope", "the key lacks the scope "+e.Scope)
	}
	if bodyTooLarge {
		return api.InvalidRequest("request body unreadable or larger than 1 MiB")
	}
	if ae := gateway.ContentTypeRule(r, body); ae != nil {
		return ae
	}
	if gateway.IsWrite(r.Method) && (key.SignatureRequired || alwaysSigned(e)) {
		if ae := p.VerifySignature(x.Tx, r, key, body, now); ae != nil {
			if sr, ok := ae.Signature.(gateway.SignatureRow); ok {
				x.Rec.Signature, x.Rec.HasSignature = sr, true
			}
			return ae
		}
	}
	return p.takeWriteQuota(x.Tx, r, now)
}

// bearer extracts the token from x-auth-token or authorization.
func bearer(r *http.Request) string {
	for _, h := range []string{"X-Auth-Token", "Authorization"} {
		if v := strings.TrimSpace(r.Header.Get(h)); v != "" {
			return gateway.BearerToken(v)
		}
	}
	return ""
}

// alwaysSigned reports endpoints signed whatever the key's setting: the
// contract makes POST /v1/deposits always signed.
func alwaysSigned(e *api.Endpoint) bool {
	return e.Method == http.MethodPost && e.Pattern == "/v1/deposits"
}

// VerifySignature checks x-timestamp, x-nonce and x-signature of r against
// key at now. The nonce is consumed only once the signature has been
// verified, so a request with a bad signature does not burn it. A refusal
// carries its explanation for the request journal (Signature); the answer
// itself is the contract's.
func (p *Pipeline) VerifySignature(tx *kernel.Tx, r *http.Request, key gateway.Key, body []byte, now time.Time) *api.Error {
	ts, nonce := r.Header.Get("X-Timestamp"), r.Header.Get("X-Nonce")
	if code, message, problem := gateway.CheckSignature(r, key.SigningKey, body, now); code != "" {
		ae := api.NewErr(code, message)
		ae.Signature = gateway.ExplainSignature(r, ts, nonce, body, now, problem)
		return ae
	}
	env, _ := p.host.Merchant(tx)
	return p.st.ConsumeNonce(tx, env, nonce, now)
}

// takeWriteQuota applies the merchant-level write quota (windows.Quota) to
// a business write that passed authentication and its signature: with a
// quota of n per minute, the n+1th write within a minute of the simulator
// clock answers 429 rate_limited with retry_after and Retry-After (seconds
// until the oldest counted write leaves the window). Refused writes are not
// counted, reads never are, and the contract shows no number: the quota is
// off (0) until set.
func (p *Pipeline) takeWriteQuota(tx *kernel.Tx, r *http.Request, now time.Time) *api.Error {
	if !gateway.IsWrite(r.Method) {
		return nil
	}
	wait, ok := p.st.Quota.Take(tx, now)
	if ok {
		return nil
	}
	ae := api.NewErr("rate_limited", "the merchant-level write quota is exhausted").With("retry_after", wait)
	ae.Header = map[string]string{"Retry-After": strconv.FormatInt(wait, 10)}
	return ae
}

// ResolveMember resolves x-on-behalf-of: an external_member_id or
// mem_<uuid>, trimmed. Blank gives member_context_required; anything
// unknown, foreign, suspended or blocklisted gives member_not_found (one
// response, so nothing is revealed). An e-mail, phone number or bare uuid
// is only found if it is literally some member's external_member_id.
func (p *Pipeline) ResolveMember(tx *kernel.Tx, v string) (*api.Member, *api.Error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, api.NewErr("member_context_required", "x-on-behalf-of is required")
	}
	var m *api.Member
	if strings.HasPrefix(v, "mem_") {
		m = p.host.Member(tx, v)
	} else {
		m = p.host.MemberByExternal(tx, v)
	}
	if m == nil || (m.MerchantID != "" && m.MerchantID != p.host.MerchantID(tx)) || m.Status == "suspended" || m.Status == "blocklisted" {
		return nil, api.NewErr("member_not_found", "member not found")
	}
	return m, nil
}
