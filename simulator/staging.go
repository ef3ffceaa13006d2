package simulator

import (
	"fmt"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/exchange"
	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/idempotency"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// defaultInProgress is how long a request started with StartInProgress runs
// when no duration is given.
const defaultInProgress = time.Minute

// SignedRequest is what KeysControl.Sign computes: the three signing
// headers of one request (x-timestamp, x-nonce, x-signature).
type SignedRequest struct {
	Timestamp string `json:"timestamp"`
	Nonce     string `json:"nonce"`
	Signature string `json:"signature"`
}

// sign signs a request as the holder of Key clientID would, at the
// simulator clock. An empty nonce gets a fresh one.
func (g *gateway) sign(tx *kernel.Tx, clientID, method, target, nonce string, body []byte) (SignedRequest, error) {
	k, ok := g.st.keys.Get(tx, clientID)
	if !ok {
		return SignedRequest{}, errNotFound("key " + clientID)
	}
	method = strings.ToUpper(strings.TrimSpace(method))
	if method == "" || !strings.HasPrefix(target, "/") {
		return SignedRequest{}, errInvalidRequest("method and a path starting with / are required")
	}
	if nonce == "" {
		nonce = fmt.Sprintf("%016x%016x", g.st.gw.Rng.Uint64(tx), g.st.gw.Rng.Uint64(tx))
	}
	ts := fmt.Sprint(g.st.clock.Now().Unix())
	return SignedRequest{Timestamp: ts, Nonce: nonce, Signature: signRequest(k.SigningKey, method, target, ts, nonce, body)}, nil
}

// startInProgress records an idempotency key as taken by a first
// request that is still running: until d of simulator clock has passed, a
// request with the same key, endpoint and body answers 409
// idempotency_in_progress (another body or endpoint 409
// idempotency_key_reused). Then the first request ends without a stored
// result, so the next request with the key executes.
func (g *gateway) startInProgress(tx *kernel.Tx, method, target, key string, body []byte, d time.Duration) error {
	method = strings.ToUpper(strings.TrimSpace(method))
	path, _, _ := strings.Cut(target, "?")
	switch {
	case method == "" || !pipeline.IsWrite(method):
		return errInvalidRequest("method must be a write method (POST, PUT, PATCH or DELETE)")
	case !strings.HasPrefix(path, "/v1/"):
		return errInvalidRequest("path must be a business API path (/v1/...)")
	case !api.UUIDShaped(key):
		return errInvalidRequest("idempotency_key must be UUID-shaped (8-4-4-4-12 hex)")
	case d <= 0:
		return errInvalidRequest("the duration must be positive")
	}
	now := g.st.clock.Now()
	return exchange.Stage(tx, &g.st.gw.Idem, idempotency.Key(g.st.merchant.ID(tx), key), method+" "+path, g.st.gw.BodyDigest(body), now, now.Add(d))
}
