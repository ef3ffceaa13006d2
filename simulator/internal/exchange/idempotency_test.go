package exchange

import (
	"crypto/sha256"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/idempotency"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// TestCheckRefusals: each refusal of the idempotency store is the
// contract's error: a full store is a transient 400 service_unavailable
// whose Retry-After is the seconds until the oldest kept record leaves (an
// expired record not yet swept still counts), a reused key
// idempotency_key_reused, a running one idempotency_in_progress; a staged
// key cannot be staged again (state_invalid).
func TestCheckRefusals(t *testing.T) {
	t.Parallel()
	k := new(kernel.Kernel)
	st := idempotency.New(k)
	tx := k.BeginSetup()
	defer tx.End()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, at := range []time.Duration{0, time.Hour} {
		key := idempotency.Key("mch_1", string(rune('a'+i)))
		rec := st.Start(tx, key, "POST /v1/x", [sha256.Size]byte{}, t0.Add(at))
		st.End(tx, key, rec, Answer(gateway.Response{Status: 200}), "req")
	}
	running := idempotency.Key("mch_1", "running")
	st.Start(tx, running, "POST /v1/x", [sha256.Size]byte{}, t0)
	type refusal struct {
		Status     int
		Code       string
		RetryAfter string
		Transient  bool
	}
	for _, tc := range []struct {
		key, endpoint string
		at            time.Duration
		capacity      int
		want          *refusal
	}{
		{"new", "POST /v1/x", 0, 4, nil},
		{"new", "POST /v1/x", 0, 3, &refusal{400, "service_unavailable", "86400", true}},
		{"new", "POST /v1/x", idempotency.Window - 1500*time.Millisecond, 3, &refusal{400, "service_unavailable", "2", true}},
		{"new", "POST /v1/x", idempotency.Window, 3, &refusal{400, "service_unavailable", "1", true}},
		{"a", "POST /v1/y", 0, 3, &refusal{Status: 409, Code: "idempotency_key_reused"}},
		{"running", "POST /v1/x", 0, 3, &refusal{Status: 409, Code: "idempotency_in_progress"}},
	} {
		_, ae := Check(tx, &st, idempotency.Key("mch_1", tc.key), tc.endpoint, [sha256.Size]byte{}, t0.Add(tc.at), tc.capacity)
		var got *refusal
		if ae != nil {
			got = &refusal{ae.Status, ae.Code, ae.Header["Retry-After"], ae.Transient}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s at +%v, capacity %d (-want +got):\n%s", tc.key, tc.at, tc.capacity, diff)
		}
	}
	staged := idempotency.Key("mch_1", "staged")
	if err := Stage(tx, &st, staged, "POST /v1/x", [sha256.Size]byte{}, t0, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := Stage(tx, &st, staged, "POST /v1/x", [sha256.Size]byte{}, t0, t0.Add(time.Minute)); err == nil || err.(*api.Error).Code != "state_invalid" {
		t.Errorf("staged twice: %v, want state_invalid", err)
	}
}
