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
	fixture := func(tx *kernel.Tx, s *Simulator) (*member, *simCard) {
		m := s.st.members.ByExternal(DefaultMemberExternalID)
		return m, s.newCard(tx, m, "cpd_virtual_std", "", "virtual")
	}
	mustPost := func(t *testing.T, s *Simulator, asset string, amt money.Amount, from, to string) {
		t.Helper()
		if err := s.st.ledger.Transfer(s.st.clock.Now(), "test", asset, amt, from, to); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		corrupt func(t *testing.T, tx *kernel.Tx, s *Simulator)
		want    []string
	}{
		{name: "hold without a live order", corrupt: func(t *testing.T, tx *kernel.Tx, s *Simulator) {
			m, _ := fixture(tx, s)
			mustPost(t, s, "USDT", usdt("7"), MemberAvailable(m.ID), MemberLocked(m.ID))
		}, want: []string{":locked holds 7.000000 USDT but no live object holds anything there"}},
		{name: "prepaid hold without a live order", corrupt: func(t *testing.T, tx *kernel.Tx, s *Simulator) {
			mustPost(t, s, "USDT", usdt("3"), AccountWorld, AccountMerchantPrepaidLocked)
		}, want: []string{"merchant:prepaid_locked holds 3.000000 USDT but no live object"}},
		{name: "live order without its hold", corrupt: func(t *testing.T, tx *kernel.Tx, s *Simulator) {
			m, c := fixture(tx, s)
			s.st.cards.topups["ctp_x"] = &cardTopUp{ID: "ctp_x", CardID: c.ID, MemberID: m.ID, Asset: "USDT", Funding: "member",
				Amount: usdt("10"), Fee: usdt("0.1"), Status: "processing"}
		}, want: []string{"holds 0.000000 USDT but its live objects hold 10.100000 (ctp_x (processing))"}},
		{name: "final order still holding", corrupt: func(t *testing.T, tx *kernel.Tx, s *Simulator) {
			m, c := fixture(tx, s)
			mustPost(t, s, "USDT", usdt("10.1"), MemberAvailable(m.ID), MemberLocked(m.ID))
			s.st.cards.topups["ctp_y"] = &cardTopUp{ID: "ctp_y", CardID: c.ID, MemberID: m.ID, Asset: "USDT", Funding: "member",
				Amount: usdt("10"), Fee: usdt("0.1"), Status: "failed"}
		}, want: []string{"holds 10.100000 USDT but no live object holds anything there"}},
		{name: "balance on a closed card", corrupt: func(t *testing.T, tx *kernel.Tx, s *Simulator) {
			_, c := fixture(tx, s)
			mustPost(t, s, "USDT", usdt("10.1"), AccountWorld, CardAccount(c.ID))
			c.Status = "closed"
		}, want: []string{"is closed but holds 10.100000 USDT"}},
		{name: "balance on a replaced card", corrupt: func(t *testing.T, tx *kernel.Tx, s *Simulator) {
			_, c := fixture(tx, s)
			mustPost(t, s, "USDT", usdt("1"), AccountWorld, CardAccount(c.ID))
			c.Status = "replaced"
		}, want: []string{"is replaced but holds 1.000000 USDT"}},
		{name: "balance on an expired card", corrupt: func(t *testing.T, tx *kernel.Tx, s *Simulator) {
			_, c := fixture(tx, s)
			mustPost(t, s, "USDT", usdt("1"), AccountWorld, CardAccount(c.ID))
			c.Status = "expired"
		}, want: []string{"is expired but holds 1.000000 USDT"}},
		{name: "balance on an unknown card", corrupt: func(t *testing.T, tx *kernel.Tx, s *Simulator) {
			mustPost(t, s, "USDT", usdt("1"), AccountWorld, CardAccount("crd_nothing"))
		}, want: []string{"card:crd_nothing holds 1.000000 USDT but no such card exists"}},
		{name: "top-up in flight towards an ended card", corrupt: func(t *testing.T, tx *kernel.Tx, s *Simulator) {
			m, c := fixture(tx, s)
			mustPost(t, s, "USDT", usdt("10.1"), MemberAvailable(m.ID), MemberLocked(m.ID))
			s.st.cards.topups["ctp_z"] = &cardTopUp{ID: "ctp_z", CardID: c.ID, MemberID: m.ID, Asset: "USDT", Funding: "member",
				Amount: usdt("10"), Fee: usdt("0.1"), Status: "processing"}
			c.Status = "closed"
		}, want: []string{"top-up ctp_z is in flight towards card ", ", which is closed"}},
		{name: "application on a compensated binding", corrupt: func(t *testing.T, tx *kernel.Tx, s *Simulator) {
			m, _ := fixture(tx, s)
			b, err := s.st.kyc.Allocate(tx, m, "")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.st.kyc.Compensate(tx, b.ID, "admin", ""); err != nil {
				t.Fatal(err)
			}
			s.st.cards.apps["cap_b"] = &cardApplication{ID: "cap_b", MemberID: m.ID, Status: "submitted", QuickBindingID: b.ID, FirstTopUp: usdt("0")}
		}, want: []string{"card application cap_b is submitted on quick KYC binding qkb_", ", which is no longer active"}},
		{name: "issued application without its card", corrupt: func(t *testing.T, tx *kernel.Tx, s *Simulator) {
			m, _ := fixture(tx, s)
			s.st.cards.apps["cap_i"] = &cardApplication{ID: "cap_i", MemberID: m.ID, Status: "issued", CardID: "crd_gone", FirstTopUp: usdt("0")}
		}, want: []string{"card application cap_i is issued but its card \"crd_gone\" does not exist"}},
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
			tx := s.k.Begin()
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
