package simulator

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// TestCheckInvariantsDetects breaks each invariant directly in the
// simulator's state, with the ledger still balanced, and checks that
// CheckInvariants names the violation (and CheckLedger does not see it).
func TestCheckInvariantsDetects(t *testing.T) {
	t.Parallel()
	usdt := func(v string) money.Amount { return money.MustParse(v, 6) }
	// fixture returns the fixture member and an active virtual card of it.
	fixture := func(t *testing.T, tx *kernel.Tx, s *Simulator) (*member, string) {
		t.Helper()
		m := s.st.members.ByExternal(tx, DefaultMemberExternalID)
		id, err := s.st.cards.SeedHistory(tx, m, 0)
		if err != nil {
			t.Fatal(err)
		}
		return m, id
	}
	mustPost := func(t *testing.T, tx *kernel.Tx, s *Simulator, asset string, amt money.Amount, from, to string) {
		t.Helper()
		if err := tx.Transfer(s.st.clock.Now(), "test", asset, amt, from, to); err != nil {
			t.Fatal(err)
		}
	}
	// ended sets a card's status as an operator would, then puts money on
	// it behind the line's back.
	ended := func(t *testing.T, tx *kernel.Tx, s *Simulator, status string, amt money.Amount) {
		t.Helper()
		_, c := fixture(t, tx, s)
		if _, err := s.st.cards.SetStatus(tx, c, status); err != nil {
			t.Fatal(err)
		}
		mustPost(t, tx, s, "USDT", amt, AccountWorld, CardAccount(c))
	}
	// The card line's own rules (an order without its hold, an order in
	// flight towards an ended card, an application on a compensated binding
	// or without its card) are broken in its state by its own test
	// (internal/cards, TestViolations); here the simulator's check is shown
	// to include the line's.
	tests := []struct {
		name    string
		corrupt func(t *testing.T, tx *kernel.Tx, s *Simulator)
		want    []string
	}{
		{name: "hold without a live order", corrupt: func(t *testing.T, tx *kernel.Tx, s *Simulator) {
			m, _ := fixture(t, tx, s)
			mustPost(t, tx, s, "USDT", usdt("7"), MemberAvailable(m.ID), MemberLocked(m.ID))
		}, want: []string{":locked holds 7.000000 USDT but no live object holds anything there"}},
		{name: "prepaid hold without a live order", corrupt: func(t *testing.T, tx *kernel.Tx, s *Simulator) {
			mustPost(t, tx, s, "USDT", usdt("3"), AccountWorld, AccountMerchantPrepaidLocked)
		}, want: []string{"merchant:prepaid_locked holds 3.000000 USDT but no live object"}},
		{name: "balance on a closed card", corrupt: func(t *testing.T, tx *kernel.Tx, s *Simulator) {
			ended(t, tx, s, "closed", usdt("10.1"))
		}, want: []string{"is closed but holds 10.100000 USDT"}},
		{name: "balance on a replaced card", corrupt: func(t *testing.T, tx *kernel.Tx, s *Simulator) {
			ended(t, tx, s, "replaced", usdt("1"))
		}, want: []string{"is replaced but holds 1.000000 USDT"}},
		{name: "balance on an expired card", corrupt: func(t *testing.T, tx *kernel.Tx, s *Simulator) {
			ended(t, tx, s, "expired", usdt("1"))
		}, want: []string{"is expired but holds 1.000000 USDT"}},
		{name: "balance on an unknown card", corrupt: func(t *testing.T, tx *kernel.Tx, s *Simulator) {
			mustPost(t, tx, s, "USDT", usdt("1"), AccountWorld, CardAccount("crd_nothing"))
		}, want: []string{"card:crd_nothing holds 1.000000 USDT but no such card exists"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := MustNew()
			t.Cleanup(s.Close)
			if err := s.CheckInvariants(); err != nil {
				t.Fatalf("fresh simulator: %v", err)
			}
			if hold, v := invariantsOverHTTP(t, s); !hold || len(v) != 0 {
				t.Fatalf("GET /_sim/invariants on a fresh simulator: hold %v, %v", hold, v)
			}
			tx := s.k.BeginSetup() // the state broken on purpose, outside any input
			tt.corrupt(t, tx, s)
			tx.End()
			if err := s.CheckLedger(); err != nil {
				t.Fatalf("the broken state must still balance: %v", err)
			}
			err := s.CheckInvariants()
			if err == nil {
				t.Fatal("CheckInvariants = nil, want a violation")
			}
			var ie *InvariantError
			if !errors.As(err, &ie) || !errors.Is(err, ErrInvariant) || len(ie.Violations) == 0 {
				t.Fatalf("error %v (%T) is not an *InvariantError matching ErrInvariant", err, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			hold, v := invariantsOverHTTP(t, s)
			if hold || strings.Join(v, "; ") != strings.Join(ie.Violations, "; ") {
				t.Errorf("GET /_sim/invariants: hold %v, %v; want the violations %v", hold, v, ie.Violations)
			}
		})
	}
}

// invariantsOverHTTP reads GET /_sim/invariants.
func invariantsOverHTTP(t *testing.T, s *Simulator) (bool, []string) {
	t.Helper()
	resp, err := http.Get(s.URL() + "/_sim/invariants")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Hold       bool     `json:"hold"`
		Violations []string `json:"violations"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&out) != nil || out.Violations == nil {
		t.Fatalf("GET /_sim/invariants: %d", resp.StatusCode)
	}
	return out.Hold, out.Violations
}
