package simulator_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/simulator"
)

// TestRemittanceIdempotencyRecordsLeaveWithTheirWindow: a remittance's
// idempotency record (POST /v1/remittances answers a resend within 24
// hours from it) leaves the state once its window has passed, as the
// gateway's window stores' records do, under the rules of today; under the
// rules of the builds before (MWALLET_SIM_RULES=4) it stays, as it did
// there. Either way the answers are the same (a resend inside the window
// is a replay, a resend after it a new order) and the recording replays,
// on a simulator of today, to the digest it ended at: each input carries
// the rules it ran under.
func TestRemittanceIdempotencyRecordsLeaveWithTheirWindow(t *testing.T) {
	for _, tc := range []struct {
		rules    string
		keptKeys string // remit_keys once the window has passed
	}{
		{"", "remit_keys=0"},
		{"4", "remit_keys=1"},
	} {
		t.Run("MWALLET_SIM_RULES="+tc.rules, func(t *testing.T) {
			t.Setenv("MWALLET_SIM_RULES", tc.rules)
			w := newWorld(t)
			m := w.member("sweep-rich", 1, "1000")
			payee := w.payee(m, "GBP")
			body := `{"payee_id":"` + payee + `","payout_amount":"10.00","slippage_bps":100,"purpose_code":"FAMILY_SUPPORT"}`
			keys := func() string {
				s := simulator.InternalCounts(w.sim)
				return s[strings.Index(s, "remit_keys="):strings.LastIndex(s, " ")]
			}
			key := w.key()
			first := w.postKey("/v1/remittances", m, key, body)
			wantStatus(t, first, http.StatusCreated)
			if got := keys(); got != "remit_keys=1" {
				t.Fatalf("after the create: %s, want remit_keys=1", got)
			}

			w.sim.Clock.Advance(23 * time.Hour)
			w.tok = w.c.token()
			again := w.postKey("/v1/remittances", m, key, body)
			wantStatus(t, again, http.StatusCreated)
			if again.body["id"] != first.body["id"] || again.body["duplicated"] != true {
				t.Fatalf("a resend inside the window: %s, want the replay of %v", again.raw, first.body["id"])
			}

			w.sim.Clock.Advance(time.Hour + time.Second)
			w.tok = w.c.token()
			// Any business request sweeps what has expired.
			wantStatus(t, w.c.get(w.tok, "/v1/remit/payees", m), http.StatusOK)
			if got := keys(); got != tc.keptKeys {
				t.Errorf("after the window: %s, want %s", got, tc.keptKeys)
			}
			after := w.postKey("/v1/remittances", m, key, body)
			wantStatus(t, after, http.StatusCreated)
			if after.body["id"] == first.body["id"] || after.body["duplicated"] == true {
				t.Fatalf("a resend after the window: %s, want a new order", after.raw)
			}
			if got := keys(); got != "remit_keys=1" {
				t.Errorf("after the new order: %s, want remit_keys=1", got)
			}

			end, err := w.sim.Digest()
			if err != nil {
				t.Fatal(err)
			}
			rec, err := w.sim.Recording()
			if err != nil {
				t.Fatal(err)
			}
			t.Setenv("MWALLET_SIM_RULES", "")
			replayed, err := simulator.New(simulator.WithRecording(rec))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(replayed.Close)
			if d, _ := replayed.Digest(); d != end {
				t.Errorf("the recording replays to %s, want %s", d, end)
			}
			if got := simulator.InternalCounts(replayed); !strings.Contains(got, "remit_keys=1 ") {
				t.Errorf("the replay holds %s, want remit_keys=1", got)
			}
			if err := replayed.CheckInvariants(); err != nil {
				t.Error(err)
			}
		})
	}
}
