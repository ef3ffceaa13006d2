package merchant

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/control/controltest"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
)

// opRun is the test's run of one op: the line and the transaction.
type opRun = controltest.Run[Line]

// TestControlOps: the prepaid ops check their amount with the rule they
// are given before running, and answer the prepaid account.
func TestControlOps(t *testing.T) {
	t.Parallel()
	svc := kerneltest.New()
	tx := svc.Begin()
	defer tx.End()
	l := New(svc.Kernel(), &fakeHost{svc: svc}, "mch_1", PlatformHosted, StatusActive, Sandbox)
	errScale, errQuota := errors.New("too precise"), errors.New("no such quota")
	var checked []string
	ops := NewControlOps(controltest.At[Line], func(_ opRun, field, asset, amount string) error {
		checked = append(checked, field+" "+asset+" "+amount)
		if amount == "0.0000001" {
			return errScale
		}
		return nil
	}, func(_ opRun, active bool) { checked = append(checked, fmt.Sprint("pobo ", active)) },
		func(_ opRun, perMinute int) error {
			checked = append(checked, fmt.Sprint("quota ", perMinute))
			if perMinute < 0 {
				return errQuota
			}
			return nil
		})
	x := opRun{Line: l, Tx: tx}
	if diff := cmp.Diff([]string{"GET /_sim/merchant", "Merchant.TopUpPrepaid", "merchant/prepaid/topup", "Merchant.WithdrawPrepaid", "Merchant.PrepaidBalance",
		"POST /_sim/merchant/pobo_subaccount Merchant.SetPOBOSubaccount", "POST /_sim/merchant/write_quota Merchant.SetWriteQuota"},
		[]string{ops.View.Route, ops.TopUpPrepaid.Name, ops.TopUpPrepaid.Action, ops.WithdrawPrepaid.Name, ops.PrepaidBalance.Name,
			ops.SetPOBOSubaccount.Route + " " + ops.SetPOBOSubaccount.Name, ops.SetWriteQuota.Route + " " + ops.SetWriteQuota.Name}); diff != "" {
		t.Errorf("declarations (-want +got):\n%s", diff)
	}
	tests := []struct {
		name  string
		rules func() error
		run   func() (any, error)
		want  any
		err   error
	}{
		{"top up", func() error { return ops.TopUpPrepaid.Rules(x, &PrepaidTopUpIn{Asset: "usdt", Amount: "10"}) },
			func() (any, error) { return ops.TopUpPrepaid.Run(x, &PrepaidTopUpIn{Asset: "usdt", Amount: "10"}) },
			map[string]any{"asset": "USDT", "prepaid": "10.000000"}, nil},
		{"top up refused by the rule", func() error { return ops.TopUpPrepaid.Rules(x, &PrepaidTopUpIn{Asset: "USDT", Amount: "0.0000001"}) },
			nil, nil, errScale},
		{"withdraw part", func() error { return ops.WithdrawPrepaid.Rules(x, &PrepaidWithdrawIn{Asset: " usdt", Amount: "4"}) },
			func() (any, error) {
				return ops.WithdrawPrepaid.Run(x, &PrepaidWithdrawIn{Asset: " usdt", Amount: "4"})
			},
			map[string]any{"asset": "USDT", "available": "6.000000", "locked": "0.000000"}, nil},
		{"balance", nil, func() (any, error) {
			b, err := ops.PrepaidBalance.Run(x, &AssetName{Asset: "usdt"})
			return [2]string{b.([2]money.Amount)[0].String(), b.([2]money.Amount)[1].String()}, err
		}, [2]string{"6.000000", "0.000000"}, nil},
		{"withdraw all (no amount to check)", func() error { return ops.WithdrawPrepaid.Rules(x, &PrepaidWithdrawIn{Asset: "USDT"}) },
			func() (any, error) { return ops.WithdrawPrepaid.Run(x, &PrepaidWithdrawIn{Asset: "USDT"}) },
			map[string]any{"asset": "USDT", "available": "0.000000", "locked": "0.000000"}, nil},
	}
	for _, tt := range tests {
		if tt.rules != nil {
			if err := tt.rules(); !errors.Is(err, tt.err) {
				t.Errorf("%s: rules: %v, want %v", tt.name, err, tt.err)
			}
		}
		if tt.run == nil {
			continue
		}
		got, err := tt.run()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	on, quota, bad := true, 30, -1
	for _, tt := range []struct {
		name string
		run  func() (any, error)
		want any
		err  error
	}{
		{"pobo", func() (any, error) { return ops.SetPOBOSubaccount.Run(x, &POBOIn{Active: &on}) }, map[string]any{"active": true}, nil},
		{"quota", func() (any, error) { return ops.SetWriteQuota.Run(x, &QuotaIn{PerMinute: &quota}) }, map[string]any{"per_minute": 30}, nil},
		{"quota refused", func() (any, error) { return ops.SetWriteQuota.Run(x, &QuotaIn{PerMinute: &bad}) }, nil, errQuota},
	} {
		got, err := tt.run()
		if !errors.Is(err, tt.err) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	if diff := cmp.Diff([]string{"amount usdt 10", "amount USDT 0.0000001", "amount  usdt 4", "pobo true", "quota 30", "quota -1"}, checked); diff != "" {
		t.Errorf("amounts checked (-want +got):\n%s", diff)
	}
	if v, err := ops.View.Run(x, &control.NoInput{}); err != nil || !cmp.Equal(v, l.JSON(tx)) {
		t.Errorf("view: %v, %v", v, err)
	}
}
