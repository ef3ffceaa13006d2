package kyc

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// TestHostFuncs: each Host method calls its field with its arguments and
// answers what the field answers.
func TestHostFuncs(t *testing.T) {
	t.Parallel()
	var calls []string
	m := &api.Member{ID: "mem_1"}
	var host Host = HostFuncs{
		MemberFunc: func(_ *kernel.Tx, id string) *api.Member { calls = append(calls, "member "+id); return m },
		SetMemberKYCFunc: func(_ *kernel.Tx, id string, level int, hasProfile bool) {
			calls = append(calls, fmt.Sprintf("set %s %d %v", id, level, hasProfile))
		},
		BindingWithdrawnFunc: func(_ *kernel.Tx, b string) ([]string, error) {
			calls = append(calls, "withdrawn "+b)
			return []string{"cap_1"}, nil
		},
	}
	if host.Member(nil, "mem_1") != m {
		t.Error("Member answered otherwise than its field")
	}
	host.SetMemberKYC(nil, "mem_1", 2, true)
	if ids, err := host.BindingWithdrawn(nil, "kqb_1"); !cmp.Equal(ids, []string{"cap_1"}) || err != nil {
		t.Errorf("BindingWithdrawn: %v, %v", ids, err)
	}
	if diff := cmp.Diff([]string{"member mem_1", "set mem_1 2 true", "withdrawn kqb_1"}, calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}
