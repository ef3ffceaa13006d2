package gateway

import (
	"crypto/hmac"
	"encoding/base64"
	"net/http"
	"strconv"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

const (
	// TokenExchangesPerMinute is the token exchange quota per API key.
	TokenExchangesPerMinute = 20
	// NonceWindow is how long a consumed nonce stays refused.
	NonceWindow = 5 * time.Minute
)

// ExchangeRate applies the token exchange quota of clientID at now: the
// exchanges of the last minute, or, when they reach the quota, the
// rate_limited refusal (retry_after and Retry-After: the seconds until the
// oldest leaves the minute), the trimmed window kept.
func (g *State) ExchangeRate(tx *kernel.Tx, clientID string, now time.Time) (kernel.List[time.Time], *api.Error) {
	recent, _ := g.Exchanges.Get(tx, clientID)
	cut := 0
	for cut < recent.Len() && !now.Before(recent.At(cut).Add(time.Minute)) {
		cut++
	}
	recent = recent.From(cut)
	if recent.Len() < TokenExchangesPerMinute {
		return recent, nil
	}
	wait := recent.At(0).Add(time.Minute).Sub(now)
	secs := int64((wait + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	ae := api.NewErr("rate_limited", "token exchange quota exceeded (20 per minute)").With("retry_after", secs)
	ae.Header = map[string]string{"Retry-After": strconv.FormatInt(secs, 10)}
	g.Exchanges.Put(tx, clientID, recent)
	return recent, ae
}

// TokenValue counts a token exchange of clientID at now in recent (what
// ExchangeRate returned) and draws the new access token's value.
func (g *State) TokenValue(tx *kernel.Tx, clientID string, recent kernel.List[time.Time], now time.Time) string {
	g.Exchanges.Put(tx, clientID, recent.Append(now))
	var raw [24]byte
	for i := 0; i < len(raw); i += 8 {
		v := g.Rng.Uint64(tx)
		for j := 0; j < 8; j++ {
			raw[i+j] = byte(v >> (8 * j))
		}
	}
	return "tok_" + base64.RawURLEncoding.EncodeToString(raw[:])
}

// ConsumeNonce consumes the nonce of a verified signature in env for
// NonceWindow: nonce_reused when it was consumed within the window, the
// refusal of a full nonce store when the store holds its cap.
func (g *State) ConsumeNonce(tx *kernel.Tx, env, nonce string, now time.Time) *api.Error {
	nk := env + "|" + nonce
	if exp, used := g.Nonces.Get(tx, nk); used && now.Before(exp) {
		return api.NewErr("nonce_reused", "x-nonce was already used within 5 minutes")
	}
	if c := g.Caps.Get(tx).Nonces; g.Nonces.Len(tx) >= c {
		return StoreFull(tx, CapNonces, c, g.NonceQ, now)
	}
	g.Nonces.Put(tx, nk, now.Add(NonceWindow))
	g.NonceQ.Push(tx, nk, now.Add(NonceWindow))
	return nil
}

// CheckSignature checks a signed request's x-timestamp, x-nonce and
// x-signature against signingKey and the clock's now. It returns the
// refusal's code and message and the problem the journal explains, or three
// empty strings when the signature holds (the nonce is consumed apart:
// ConsumeNonce).
func CheckSignature(r *http.Request, signingKey string, body []byte, now time.Time) (code, message, problem string) {
	ts, nonce, sig := r.Header.Get("X-Timestamp"), r.Header.Get("X-Nonce"), r.Header.Get("X-Signature")
	if ts == "" || nonce == "" || sig == "" {
		return "invalid_signature", "x-timestamp, x-nonce and x-signature are required on signed requests", MissingSigningHeaders(ts, nonce, sig)
	}
	if !api.AllDigits(ts) {
		return "invalid_signature", "x-timestamp must be Unix seconds", "x-timestamp is not Unix seconds (digits only)"
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sec > now.Unix()+int64(SignatureTolerance/time.Second) || sec < now.Unix()-int64(SignatureTolerance/time.Second) {
		return "timestamp_out_of_range", "x-timestamp is more than 300 seconds from the server clock", SkewProblem(ts, now)
	}
	want := Sign(signingKey, r.Method, RequestTarget(r), ts, nonce, body)
	if !hmac.Equal([]byte(want), []byte(sig)) {
		return "invalid_signature", "signature mismatch", MismatchProblem(sig)
	}
	return "", "", ""
}
