package gateway

import (
	"crypto/sha256"
	"testing"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The idempotency records keep a keyed digest of the request body: a PIN
// change body has so little entropy that a plain SHA-256 could be reversed
// by hashing every PIN. The key comes from the seed, so two simulators of
// the same seed hold the same state (DESIGN: no per-process random key in
// the digest); simulators of other seeds do not share it.
func TestIdempotencyBodyDigestIsKeyed(t *testing.T) {
	t.Parallel()
	body := []byte(`{"new_pin":"123456","current_pin":"654321"}`)
	a, b, c := NewState(new(kernel.Kernel), 1, nil, StoreCaps{}, 10), NewState(new(kernel.Kernel), 1, nil, StoreCaps{}, 10), NewState(new(kernel.Kernel), 2, nil, StoreCaps{}, 10)
	da, db := a.BodyDigest(body), b.BodyDigest(body)
	if da == sha256.Sum256(body) {
		t.Fatal("the body digest is a plain SHA-256 of the body")
	}
	if da != db {
		t.Fatal("two simulators of one seed keep different body digests")
	}
	if c.BodyDigest(body) == da {
		t.Fatal("simulators of two seeds share a body digest key")
	}
	if a.BodyDigest(body) != da {
		t.Fatal("the body digest is not stable within one simulator")
	}
	if a.BodyDigest([]byte(`{"new_pin":"123457","current_pin":"654321"}`)) == da {
		t.Fatal("different bodies share a digest")
	}
}
