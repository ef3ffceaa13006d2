package simulator

import (
	"time"

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
// simulator clock (internal/exchange's Pipeline.Sign). An empty nonce gets
// a fresh one.
func (g *gateway) sign(tx *kernel.Tx, clientID, method, target, nonce string, body []byte) (SignedRequest, error) {
	ts, nonce, sig, err := g.ex.Sign(tx, clientID, method, target, nonce, body)
	if err != nil {
		return SignedRequest{}, err
	}
	return SignedRequest{Timestamp: ts, Nonce: nonce, Signature: sig}, nil
}
