package simulator_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// sim.Members.Balance takes the member by each of its ids and refuses one
// the simulator does not have, instead of answering zero.
func TestMembersBalanceByEveryIDAndUnknown(t *testing.T) {
	t.Parallel()
	sim, _ := simtest.New(t)
	memID := simtest.MemberID(t, sim, simulator.DefaultMemberExternalID)
	tests := []struct {
		name, id, asset string
		want            string // available; "" for an unknown member
	}{
		{"external_member_id", simulator.DefaultMemberExternalID, "USDT", "1000.000000"},
		{"mem_ id", memID, "USDT", "1000.000000"},
		{"bare uuid", strings.TrimPrefix(memID, "mem_"), "USDT", "1000.000000"},
		{"asset in lower case", simulator.DefaultMemberExternalID, "usdc", "500.000000"},
		{"unknown external id", "member-one", "USDT", ""},
		{"unknown mem_ id", "mem_00000000-0000-4000-8000-000000000000", "USDT", ""},
		{"empty id", "", "USDT", ""},
	}
	for _, tt := range tests {
		available, locked, err := sim.Members.Balance(tt.id, tt.asset)
		if tt.want == "" {
			if !errors.Is(err, simulator.ErrUnknownMember) || !strings.Contains(err.Error(), `"`+tt.id+`"`) {
				t.Errorf("%s: err = %v, want ErrUnknownMember naming %q", tt.name, err, tt.id)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff([]string{tt.want, "0.000000"}, []string{available.String(), locked.String()}); diff != "" {
			t.Errorf("%s: available, locked (-want +got):\n%s", tt.name, diff)
		}
	}
}
