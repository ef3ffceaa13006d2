package simulator_test

import (
	"net/http"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
)

// TestSameInputsSameDigest: two simulators built apart with the same
// options and fed the same inputs (a token, deposits under idempotency
// keys, a replay of one, a refused write) have the same state digest, the
// idempotency records' keyed body digests included; another seed gives
// another digest. A digest can so compare two processes or two builds, not
// only a recording and its replay.
func TestSameInputsSameDigest(t *testing.T) {
	t.Parallel()
	run := func(seed int64) string {
		sim, c := newRaw(t, simulator.WithSeed(seed))
		tok := c.token()
		for i, ref := range []string{"dep-a", "dep-b", "dep-a"} {
			r := c.write(tok, http.MethodPost, "/v1/deposits", "member-1", uuidN(i%2+1), depositBody(ref, "5"))
			if r.status != http.StatusCreated && r.status != http.StatusOK {
				t.Fatalf("deposit %d: %s", i, r)
			}
		}
		wantCode(t, c.write(tok, http.MethodPost, "/v1/deposits", "member-1", uuidN(1), depositBody("dep-c", "5")), http.StatusConflict, "idempotency_key_reused")
		d, err := sim.Digest()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	a, b, other := run(7), run(7), run(8)
	if a != b {
		t.Errorf("two simulators of seed 7 fed the same inputs: digests %s and %s", a, b)
	}
	if a == other {
		t.Errorf("seeds 7 and 8 gave the same digest %s", a)
	}
}
