package cards

import (
	"errors"
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
	errNo := errors.New("no")
	h := HostFuncs{
		MemberFunc:        func(_ *kernel.Tx, id string) *api.Member { calls = append(calls, "member "+id); return m },
		KYCInReviewFunc:   func(_ *kernel.Tx, m *api.Member) bool { calls = append(calls, "review "+m.ID); return true },
		BindingActiveFunc: func(_ *kernel.Tx, _ *api.Member, b string) bool { calls = append(calls, "active "+b); return true },
		AllocateBindingFunc: func(_ *kernel.Tx, _ *api.Member, e string) (string, error) {
			calls = append(calls, "allocate "+e)
			return "kqb_1", nil
		},
		CompensateBindingFunc: func(_ *kernel.Tx, b, a string) error {
			calls = append(calls, "compensate "+b+" "+a)
			return errNo
		},
		RequireStepUpFunc: func(_ *api.Request, a string) error { calls = append(calls, "step-up "+a); return errNo },
	}
	var host Host = h
	if host.Member(nil, "mem_1") != m || !host.KYCInReview(nil, m) || !host.BindingActive(nil, m, "kqb_1") {
		t.Error("Member, KYCInReview or BindingActive answered otherwise than its field")
	}
	if id, err := host.AllocateBinding(nil, m, "a@b"); id != "kqb_1" || err != nil {
		t.Errorf("AllocateBinding: %q, %v", id, err)
	}
	if host.CompensateBinding(nil, "kqb_1", "cap_1") != errNo || host.RequireStepUp(nil, "act") != errNo {
		t.Error("CompensateBinding or RequireStepUp answered otherwise than its field")
	}
	want := []string{"member mem_1", "review mem_1", "active kqb_1", "allocate a@b", "compensate kqb_1 cap_1", "step-up act"}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}
