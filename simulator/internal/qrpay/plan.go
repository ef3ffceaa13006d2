package qrpay

import (
	"fmt"

	"github.com/cockroachdb/apd/v3"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// ceilAmount rounds a non-negative decimal up to scale decimals (the
// ledger scale of asset), an amount of asset.
func (l *Line) ceilAmount(tx *kernel.Tx, d *apd.Decimal, asset string, scale int) (money.Amount, error) {
	var q apd.Decimal
	c := rateCtx()
	c.Rounding = apd.RoundCeiling
	if _, err := c.Quantize(&q, d, -int32(scale)); err != nil {
		return money.Amount{}, err
	}
	return tx.Amount(asset, q.Text('f'))
}

// plan is the debit plan of one asset: what the member (or the merchant
// prepaid account) pays in it.
type plan struct {
	Asset         string
	Scale         int
	DisplayScale  int
	Principal     money.Amount // upstream amount plus cost protection
	Fee           money.Amount // the fee inside CustomerTotal (zero when charged in another asset)
	CustomerTotal money.Amount
	// Merchant-funded plans: the fee asset and amount.
	MerchantFunded bool
	FeeAsset       string
	FeeAmount      money.Amount
	FeeScale       int
	Sufficient     bool
	// PrincipalUSD is the USD value of the principal (apd text).
	PrincipalUSD string
}

// principal is the upstream amount plus cost protection, rounded up.
func principal(u money.Amount) (money.Amount, error) {
	prem, err := u.MulRatio(qrPremiumBps, 10000, money.RoundUp)
	if err != nil {
		return money.Amount{}, err
	}
	return u.Add(prem)
}

// planFor prices asset for the member (member-funded) or for the merchant
// prepaid account (merchant-funded). Balances decide only Sufficient and
// the fee asset; they are never returned.
func (l *Line) planFor(tx *kernel.Tx, m *api.Member, merchantFunded bool, uq *upstreamQuote, asset string) (plan, error) {
	a, _ := tx.Asset(asset)
	p := plan{Asset: asset, Scale: a.LedgerScale, DisplayScale: a.DisplayScale, MerchantFunded: merchantFunded}
	var err error
	if p.Principal, err = principal(uq.Upstream[asset]); err != nil {
		return p, err
	}
	var usd apd.Decimal
	if _, err := rateCtx().Mul(&usd, p.Principal.Decimal(), rate(tx, l.st.assetUSD, asset)); err != nil {
		return p, err
	}
	p.PrincipalUSD = usd.String()
	if !merchantFunded {
		if p.Fee, err = p.Principal.MulRatio(qrMemberFeeBps, 10000, money.RoundUp); err != nil {
			return p, err
		}
		if p.CustomerTotal, err = p.Principal.Add(p.Fee); err != nil {
			return p, err
		}
		p.Sufficient = tx.Balance(kernel.MemberAvailable(m.ID), asset).Cmp(p.CustomerTotal) >= 0
		return p, nil
	}
	// Merchant funded: the fee is the principal times the merchant fee rate,
	// at least 0.01 when the rate is not zero, charged in USDT unless the USDT
	// left after any USDT principal cannot cover it, then wholly in USDC.
	feeRate := l.host.MerchantFeeRateBps(tx)
	bal := func(code string) money.Amount { return tx.Balance(kernel.AccountMerchantPrepaid, code) }
	feeIn := func(code string) (money.Amount, error) {
		fa, ok := tx.Asset(code)
		if !ok {
			return money.Amount{}, fmt.Errorf("fee asset %s is not in the catalogue", code)
		}
		if feeRate == 0 {
			return money.Zero(fa.LedgerScale), nil
		}
		base, ok := uq.Upstream[code]
		if !ok {
			return money.Amount{}, fmt.Errorf("no %s price for the fee", code)
		}
		pr, err := principal(base)
		if err != nil {
			return money.Amount{}, err
		}
		f, err := pr.MulRatio(feeRate, 10000, money.RoundUp)
		if err != nil {
			return money.Amount{}, err
		}
		minFee, err := tx.Amount(code, "0.01")
		if err != nil {
			return money.Amount{}, err
		}
		if f.Cmp(minFee) < 0 {
			f = minFee
		}
		return f, nil
	}
	// need is what the prepaid account must hold in code for this plan.
	covers := func(code string, fee money.Amount) bool {
		need := fee
		if code == asset {
			var err error
			if need, err = need.Add(p.Principal); err != nil {
				return false
			}
		}
		return bal(code).Cmp(need) >= 0
	}
	p.FeeAsset = "USDT"
	if p.FeeAmount, err = feeIn("USDT"); err != nil {
		return p, err
	}
	if !p.FeeAmount.IsZero() && !covers("USDT", p.FeeAmount) {
		if usdc, err := feeIn("USDC"); err == nil && covers("USDC", usdc) {
			p.FeeAsset, p.FeeAmount = "USDC", usdc
		}
	}
	fa, _ := tx.Asset(p.FeeAsset)
	p.FeeScale = fa.LedgerScale
	if p.FeeAsset == asset {
		p.Fee = p.FeeAmount
	} else {
		p.Fee = money.Zero(p.Scale)
	}
	if p.CustomerTotal, err = p.Principal.Add(p.Fee); err != nil {
		return p, err
	}
	p.Sufficient = bal(asset).Cmp(p.CustomerTotal) >= 0
	if p.FeeAsset != asset {
		p.Sufficient = p.Sufficient && bal(p.FeeAsset).Cmp(p.FeeAmount) >= 0
	}
	return p, nil
}

func (p plan) json() map[string]any {
	m := map[string]any{
		"asset": p.Asset, "ledger_scale": p.Scale, "display_scale": p.DisplayScale,
		"customer_total": p.CustomerTotal.String(), "fee": p.Fee.String(), "sufficient": p.Sufficient,
	}
	if p.MerchantFunded {
		m["fee_asset"] = p.FeeAsset
		m["fee_amount"] = p.FeeAmount.String()
		m["fee_ledger_scale"] = p.FeeScale
	}
	return m
}

// options prices every asset the upstream quoted that is enabled here,
// in catalogue order.
func (l *Line) options(tx *kernel.Tx, m *api.Member, in *input, uq *upstreamQuote) ([]plan, error) {
	var out []plan
	for _, a := range tx.Assets() {
		if _, quoted := uq.Upstream[a.Code]; !quoted || !tx.AssetAllowed(a.Code) {
			continue
		}
		p, err := l.planFor(tx, m, in.merchantFunded, uq, a.Code)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// choose picks the plan to debit: the preferred asset when given (ok false
// when it was not quoted), the merchant-funded default USDT, or the first
// sufficient asset of the member's payment priority (ok false when none).
func choose(m *api.Member, in *input, opts []plan) (plan, bool) {
	find := func(code string) (plan, bool) {
		for _, p := range opts {
			if p.Asset == code {
				return p, true
			}
		}
		return plan{}, false
	}
	if in.preferred != "" {
		return find(in.preferred)
	}
	if in.merchantFunded {
		return find("USDT")
	}
	for code := range m.PaymentPriority.Values() {
		if p, ok := find(code); ok && p.Sufficient {
			return p, true
		}
	}
	return plan{}, false
}
