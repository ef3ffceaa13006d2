package qrpay

import (
	"net/http"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The QR line's control operations whose transitions need only the line
// and the transaction, in the control engine's form (internal/control),
// over the declaring package's run of one op X. The domains the inputs name
// are the simulator's registry's. The merchant fee rate is the merchant
// line's, set through the declaring package's func, and the upstream's
// counters answer the declaring package's public copy of UpstreamStats.

// The inputs of the QR ops declared here.
type (
	// OrderRef names a QR payment order.
	OrderRef struct {
		ID string `path:"id" json:"-" dom:"qr_order"`
	}
	// EnabledIn switches the line.
	EnabledIn struct {
		Enabled *bool `json:"enabled" dom:"boolean,req"`
	}
	// ScenarioIn sets the scenarios of a code value.
	ScenarioIn struct {
		CodeValue string   `json:"code_value" dom:"qr_code,req"`
		Scenarios []string `json:"scenarios" dom:"qr_scenario"`
	}
	// FeeRateIn sets the merchant fee rate of merchant-funded payments.
	FeeRateIn struct {
		FeeRateBps int64 `json:"fee_rate_bps" dom:"fee_rate"`
	}
	// FiatRateIn sets the USD value of a currency's unit.
	FiatRateIn struct {
		Currency   string `json:"currency" dom:"currency,req"`
		USDPerUnit string `json:"usd_per_unit" dom:"positive_decimal,req"`
	}
)

// ControlOps are the QR line's ops declared here, by Go method.
type ControlOps[X any] struct {
	Complete, Fail, Refund, Timeout      *control.Op[X]
	SetEnabled, SetScenario, SetFiatRate *control.Op[X]
	SetMerchantFeeRate, UpstreamCalls    *control.Op[X]
	Trace                                *control.Op[X]
}

// NewControlOps declares the ops; at gives the line and the transaction of
// a run, feeRate sets the merchant fee rate (the merchant line's), stats
// is the answer of UpstreamCalls (the declaring package's public copy of
// the counters) and counts reads the counters back from it for the route's
// answer.
func NewControlOps[X any](at func(X) (*Line, *kernel.Tx), feeRate func(x X, bps int64), stats func(UpstreamStats) any, counts func(any) UpstreamStats) *ControlOps[X] {
	// action is the upstream's outcome action on an order
	// (qrpay/orders/{id}/<action>), the order as the business API shows it.
	action := func(name, action string) *control.Op[X] {
		return control.Def[X, OrderRef]{
			Route: "POST /_sim/qrpay/orders/{id}/" + action, Action: Collection + "/" + action, Name: name,
			Args: func(in *OrderRef) []any { return []any{in.ID} },
			Run:  func(x X, in *OrderRef) (any, error) { l, tx := at(x); return l.Action(tx, in.ID, action) },
		}.Op()
	}
	return &ControlOps[X]{
		Complete: action("QRPay.Complete", "complete"),
		Fail:     action("QRPay.Fail", "fail"),
		Refund:   action("QRPay.Refund", "refund"),
		Timeout:  action("QRPay.Timeout", "timeout"),
		SetEnabled: control.Def[X, EnabledIn]{
			Route: "POST /_sim/qrpay/line", Name: "QRPay.SetEnabled",
			Args: func(in *EnabledIn) []any { return []any{*in.Enabled} },
			Run: func(x X, in *EnabledIn) (any, error) {
				l, tx := at(x)
				l.SetEnabled(tx, *in.Enabled)
				return map[string]any{"enabled": *in.Enabled}, nil
			},
		}.Op(),
		SetScenario: control.Def[X, ScenarioIn]{
			Route: "POST /_sim/qrpay/scenarios", Name: "QRPay.SetScenario",
			Args: func(in *ScenarioIn) []any { return []any{in.CodeValue, in.Scenarios} },
			Run: func(x X, in *ScenarioIn) (any, error) {
				l, tx := at(x)
				if err := l.SetScenario(tx, in.CodeValue, in.Scenarios...); err != nil {
					return nil, err
				}
				sc := in.Scenarios
				if sc == nil {
					sc = []string{}
				}
				return map[string]any{"scenarios": sc}, nil
			},
		}.Op(),
		SetFiatRate: control.Def[X, FiatRateIn]{
			Route: "POST /_sim/qrpay/fiat_rates", Name: "QRPay.SetFiatRate",
			Args: func(in *FiatRateIn) []any { return []any{in.Currency, in.USDPerUnit} },
			Run: func(x X, in *FiatRateIn) (any, error) {
				l, tx := at(x)
				cur := strings.ToUpper(strings.TrimSpace(in.Currency))
				if err := l.SetFiatRate(tx, cur, in.USDPerUnit); err != nil {
					return nil, err
				}
				return map[string]any{"currency": cur, "usd_per_unit": in.USDPerUnit}, nil
			},
		}.Op(),
		SetMerchantFeeRate: control.Def[X, FeeRateIn]{
			Name: "QRPay.SetMerchantFeeRate",
			Args: func(in *FeeRateIn) []any { return []any{in.FeeRateBps} },
			Run: func(x X, in *FeeRateIn) (any, error) {
				feeRate(x, in.FeeRateBps)
				return nil, nil
			},
		}.Op(),
		UpstreamCalls: control.Def[X, control.NoInput]{Route: "GET /_sim/qrpay/upstream", Name: "QRPay.UpstreamCalls", NoCall: true,
			Run: func(x X, _ *control.NoInput) (any, error) { l, tx := at(x); return stats(l.UpstreamCalls(tx)), nil },
			Reply: func(_ X, _ *control.NoInput, out any) (int, any) {
				u := counts(out)
				return http.StatusOK, map[string]any{"quotes": u.Quotes, "notices": u.Notices}
			},
		}.Op(),
		// The id is never empty here (a path parameter, and an existing
		// order's), so OrderID spells it as the client package does.
		Trace: control.Def[X, OrderRef]{Route: "GET /_sim/qrpay/orders/{id}/trace", Name: "QRPay.Trace", NoCall: true,
			Run: func(x X, in *OrderRef) (any, error) { l, tx := at(x); return l.Trace(tx, in.ID), nil },
			Reply: func(_ X, in *OrderRef, out any) (int, any) {
				return http.StatusOK, map[string]any{"id": OrderID(in.ID), "steps": out}
			},
		}.Op(),
	}
}
