package remittances

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// pricing is the price of a remittance.
type pricing struct {
	Asset         string
	Scale         int
	Principal     money.Amount // payout / rate, rounded up at the asset scale
	Fee           money.Amount
	CustomerTotal money.Amount // principal + fee
	Locked        money.Amount // customer_total × (1 + bps/10000), rounded up
	Rate          string
}

// rateRatio returns num and den with 1/rate = num/den exactly, for an exact
// decimal rate such as "148.20" (num 100, den 14820).
func rateRatio(rate string) (num, den int64, err error) {
	intPart, frac, _ := strings.Cut(rate, ".")
	den, err = strconv.ParseInt(intPart+frac, 10, 64)
	if err != nil || den <= 0 {
		return 0, 0, fmt.Errorf("bad rate %q", rate)
	}
	num = 1
	for range frac {
		num *= 10
	}
	return num, den, nil
}

// price computes customer_total = payout / rate + fee, rounding the
// principal up to the asset's ledger scale, and locked_amount =
// customer_total × (1 + bps/10000), rounded up at the ledger scale.
func (l *Line) price(tx *kernel.Tx, cor corridor, payout money.Amount, line lineSpec, asset string, bps int) (pricing, error) {
	sc, _ := tx.AssetScale(asset)
	p, err := payout.Rescale(sc)
	if err != nil {
		return pricing{}, err
	}
	num, den, err := rateRatio(cor.Rate)
	if err != nil {
		return pricing{}, err
	}
	principal, err := p.MulRatio(num, den, money.RoundUp)
	if err != nil {
		return pricing{}, err
	}
	fee, err := tx.Amount(asset, line.Fee)
	if err != nil {
		return pricing{}, err
	}
	total, err := principal.Add(fee)
	if err != nil {
		return pricing{}, err
	}
	locked, err := total.MulRatio(int64(10000+bps), 10000, money.RoundUp)
	if err != nil {
		return pricing{}, err
	}
	return pricing{Asset: asset, Scale: sc, Principal: principal, Fee: fee, CustomerTotal: total, Locked: locked, Rate: cor.Rate}, nil
}

// remitQuote answers GET /v1/remit/quotes?payee_id&payout_amount[&line&asset&slippage_bps].
// The response shape is inferred: the specification names this endpoint
// without showing its fields. Nothing is held.
func (l *Line) remitQuote(c *api.Request) (int, any, error) {
	q := c.Req.URL.Query()
	payeeID, aerr := checkPayeeID(q.Get("payee_id"))
	if aerr != nil {
		return 0, nil, aerr
	}
	payout := q.Get("payout_amount")
	if aerr := checkPayoutSyntax(payout); aerr != nil {
		return 0, nil, aerr
	}
	bps := 0
	if v := q.Get("slippage_bps"); v != "" {
		n, ok := slippageOf(json.RawMessage(v))
		if !ok {
			return 0, nil, api.InvalidFields("slippage_bps must be an integer from 50 to 1000", "slippage_bps")
		}
		bps = n
	}
	req, aerr := l.resolveRemit(c.Tx, c.Member, payeeID, payout, q.Get("line"), q.Get("asset"))
	if aerr != nil {
		return 0, nil, aerr
	}
	pr, err := l.price(c.Tx, req.Corridor, req.Payout, req.Line, req.Asset, bps)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{
		"payee_id": req.Payee.ID, "line": req.Line.Name, "source_asset": pr.Asset, "ledger_scale": pr.Scale,
		"customer_total": pr.CustomerTotal.String(), "fee": pr.Fee.String(), "locked_amount": pr.Locked.String(),
		"slippage_bps": bps, "indicative_rate": pr.Rate, "payout_currency": req.Corridor.Currency, "payout_amount": payout,
	}, nil
}

// remitProducts answers GET /v1/remit/products: one item per served corridor
// and line. The response shape is inferred: the specification names this
// endpoint without showing its fields.
func (l *Line) remitProducts(c *api.Request) (int, any, error) {
	var out []map[string]any
	for _, cor := range remitCorridors {
		if !cor.Supported {
			continue
		}
		for _, name := range []string{"express", "pobo"} {
			spec := lineSpecs[name]
			if name == "pobo" && l.st.poboInactive.Get(c.Tx) {
				continue
			}
			sc, _ := c.Tx.AssetScale("USDT")
			amt := func(v string) string { a, _ := money.Parse(v, sc); return a.String() }
			out = append(out, map[string]any{
				"line": spec.Name, "corridor": cor.Country + "-" + cor.Currency, "country": cor.Country, "payout_currency": cor.Currency,
				"required_kyc_level": spec.KYC, "source_assets": remitSourceAssets, "purpose_codes": spec.Purposes,
				"min_amount": amt(spec.Min), "max_amount": amt(spec.Max), "daily_limit": amt(spec.Daily), "queues": spec.Queues,
			})
		}
	}
	return http.StatusOK, api.ListEnvelope{Data: out}, nil
}

// remitConversionDates answers GET /v1/remit/conversion-dates?payout_currency=:
// the next five weekdays with a 14:00 UTC cut-off. The response shape is
// inferred: the specification names this endpoint without showing its fields.
func (l *Line) remitConversionDates(c *api.Request) (int, any, error) {
	cur := strings.ToUpper(strings.TrimSpace(c.Req.URL.Query().Get("payout_currency")))
	if cur == "" {
		return 0, nil, api.InvalidRequest("payout_currency is required")
	}
	served := false
	for _, cor := range remitCorridors {
		served = served || (cor.Currency == cur && cor.Supported)
	}
	if !served {
		return 0, nil, api.NewErr("corridor_not_supported", "no corridor pays out in "+cur)
	}
	var out []map[string]any
	d := c.Now.UTC().Truncate(24 * time.Hour)
	if c.Now.UTC().Hour() >= 14 {
		d = d.AddDate(0, 0, 1)
	}
	for len(out) < 5 {
		if wd := d.Weekday(); wd != time.Saturday && wd != time.Sunday {
			out = append(out, map[string]any{
				"payout_currency": cur, "date": d.Format(time.DateOnly), "cutoff_at": d.Add(14 * time.Hour).Format(time.RFC3339),
			})
		}
		d = d.AddDate(0, 0, 1)
	}
	return http.StatusOK, api.ListEnvelope{Data: out}, nil
}
