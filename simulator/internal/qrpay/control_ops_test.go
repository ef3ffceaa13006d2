package qrpay

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/control/controltest"
)

// opRun is the test's run of one op: the line and the transaction.
type opRun = controltest.Run[Line]

// TestControlOpsFeeRateAndUpstream: the merchant fee rate is set through
// the func given, and the upstream's counters answer through the
// conversion given and are read back from it for the route.
func TestControlOpsFeeRateAndUpstream(t *testing.T) {
	t.Parallel()
	svc := newServices()
	tx := svc.Begin()
	defer tx.End()
	h := newFakeHost()
	l := New(svc.Kernel(), tx, h)
	type public struct{ Q, N int }
	ops := NewControlOps(controltest.At[Line], func(_ opRun, bps int64) { h.feeBps = bps },
		func(u UpstreamStats) any { return public{u.Quotes, u.Notices} },
		func(out any) UpstreamStats { p := out.(public); return UpstreamStats{Quotes: p.Q, Notices: p.N} })
	if diff := cmp.Diff([]controltest.Decl{{Name: "QRPay.SetMerchantFeeRate"}, {Route: "GET /_sim/qrpay/upstream", Name: "QRPay.UpstreamCalls"}},
		controltest.Decls(ops.SetMerchantFeeRate, ops.UpstreamCalls)); diff != "" {
		t.Errorf("declarations (-want +got):\n%s", diff)
	}
	x := opRun{Line: l, Tx: tx}
	if _, args, _ := ops.SetMerchantFeeRate.Call(&FeeRateIn{FeeRateBps: 150}); !cmp.Equal(args, []any{int64(150)}) {
		t.Errorf("recorded call %v", args)
	}
	if res := controltest.Outcome(ops.SetMerchantFeeRate.Run(x, &FeeRateIn{FeeRateBps: 150})); res != (controltest.Result{}) || h.feeBps != 150 {
		t.Errorf("fee rate: %+v, host %d", res, h.feeBps)
	}
	out, err := ops.UpstreamCalls.Run(x, &control.NoInput{})
	if err != nil || out != (public{}) {
		t.Fatalf("upstream calls: %v, %v", out, err)
	}
	status, answer := ops.UpstreamCalls.Reply(x, &control.NoInput{}, public{2, 1})
	if diff := cmp.Diff([]any{http.StatusOK, map[string]any{"quotes": 2, "notices": 1}}, []any{status, answer}); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
}
