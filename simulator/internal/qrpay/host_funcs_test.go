package qrpay

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
	var host Host = HostFuncs{
		MemberFunc:             func(_ *kernel.Tx, id string) *api.Member { calls = append(calls, "member "+id); return m },
		RequireStepUpFunc:      func(_ *api.Request, a string) error { calls = append(calls, "step-up "+a); return errNo },
		MerchantFeeRateBpsFunc: func(*kernel.Tx) int64 { calls = append(calls, "fee"); return 150 },
	}
	if host.Member(nil, "mem_1") != m || host.RequireStepUp(nil, "act") != errNo || host.MerchantFeeRateBps(nil) != 150 {
		t.Error("a method answered otherwise than its field")
	}
	if diff := cmp.Diff([]string{"member mem_1", "step-up act", "fee"}, calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}
