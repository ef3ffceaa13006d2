package simulator_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
)

// TestRulesOfEarlierBuilds runs a refused remittance (insufficient_balance:
// builds before every input was all or nothing drew its order id and
// creation sequence before refusing) under each value of
// MWALLET_SIM_RULES. Under the rules of today (unset, 5 or 4) the refusal
// leaves the state as it was, but for what a refusal keeps by the contract
// (businessKept); under 3, the rules of the builds before, its writes
// stand, as the differential walk against such a build needs. Either way
// the recording replays, on a simulator with the rules of today, to the
// same state: each input carries the rules it ran under. Any other value
// is refused by New.
func TestRulesOfEarlierBuilds(t *testing.T) {
	for _, tc := range []struct {
		rules   string
		changed bool
	}{
		{"", false},
		{"5", false},
		{"4", false},
		{"3", true},
	} {
		t.Run("MWALLET_SIM_RULES="+tc.rules, func(t *testing.T) {
			t.Setenv("MWALLET_SIM_RULES", tc.rules)
			w := newWorld(t)
			m := w.member("rules-poor", 1, "1")
			payee := w.payee(m, "GBP")
			before, err := simulator.DigestLeaving(w.sim, businessKept...)
			if err != nil {
				t.Fatal(err)
			}
			body := `{"payee_id":"` + payee + `","payout_amount":"100.00","slippage_bps":100,"purpose_code":"FAMILY_SUPPORT"}`
			wantCode(t, w.postKey("/v1/remittances", m, w.key(), body), http.StatusBadRequest, "insufficient_balance")
			after, err := simulator.DigestLeaving(w.sim, businessKept...)
			if err != nil {
				t.Fatal(err)
			}
			if got := after != before; got != tc.changed {
				t.Errorf("the refusal changed the state: %v, want %v", got, tc.changed)
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
			again, err := simulator.New(simulator.WithRecording(rec))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(again.Close)
			if d, _ := again.Digest(); d != end {
				t.Errorf("the recording replays to %s, want %s", d, end)
			}
			if err := again.CheckInvariants(); err != nil {
				t.Error(err)
			}
		})
	}
	for _, bad := range []string{"2", "6", "three", " 4"} {
		t.Setenv("MWALLET_SIM_RULES", bad)
		sim, err := simulator.New()
		if err == nil {
			sim.Close()
			t.Errorf("MWALLET_SIM_RULES=%q: New accepted it", bad)
			continue
		}
		if !strings.Contains(err.Error(), "MWALLET_SIM_RULES") {
			t.Errorf("MWALLET_SIM_RULES=%q: %v does not name the variable", bad, err)
		}
	}
}
