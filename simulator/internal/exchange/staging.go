package exchange

import (
	"fmt"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/idempotency"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Sign signs a request as the holder of the API key clientID would, at the
// simulator clock: its x-timestamp, x-nonce and x-signature. An empty
// nonce gets a fresh one, drawn from the gateway's generator.
func (p *Pipeline) Sign(tx *kernel.Tx, clientID, method, target, nonce string, body []byte) (ts, usedNonce, signature string, err error) {
	k, ok := p.host.APIKey(tx, clientID)
	if !ok {
		return "", "", "", api.NotFound("key " + clientID)
	}
	method = strings.ToUpper(strings.TrimSpace(method))
	if method == "" || !strings.HasPrefix(target, "/") {
		return "", "", "", api.InvalidRequest("method and a path starting with / are required")
	}
	if nonce == "" {
		nonce = fmt.Sprintf("%016x%016x", p.st.Rng.Uint64(tx), p.st.Rng.Uint64(tx))
	}
	ts = fmt.Sprint(p.host.Now().Unix())
	return ts, nonce, gateway.Sign(k.SigningKey, method, target, ts, nonce, body), nil
}

// StartInProgress records an idempotency key as taken by a first request
// that is still running: until d of simulator clock has passed, a request
// with the same key, endpoint and body answers 409 idempotency_in_progress
// (another body or endpoint 409 idempotency_key_reused). Then the first
// request ends without a stored result, so the next request with the key
// executes.
func (p *Pipeline) StartInProgress(tx *kernel.Tx, method, target, key string, body []byte, d time.Duration) error {
	method = strings.ToUpper(strings.TrimSpace(method))
	path, _, _ := strings.Cut(target, "?")
	switch {
	case method == "" || !gateway.IsWrite(method):
		return api.InvalidRequest("method must be a write method (POST, PUT, PATCH or DELETE)")
	case !strings.HasPrefix(path, "/v1/"):
		return api.InvalidRequest("path must be a business API path (/v1/...)")
	case !api.UUIDShaped(key):
		return api.InvalidRequest("idempotency_key must be UUID-shaped (8-4-4-4-12 hex)")
	case d <= 0:
		return api.InvalidRequest("the duration must be positive")
	}
	now := p.host.Now()
	return Stage(tx, &p.st.Idem, idempotency.Key(p.host.MerchantID(tx), key), method+" "+path, p.st.BodyDigest(body), now, now.Add(d))
}
