package remittance

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/money"
)

// QuoteParams are the parameters of Quote.
type QuoteParams struct {
	// PayeeID, PayoutAmount and PayoutCurrency follow the rules of CreateParams.
	PayeeID        string
	PayoutAmount   string
	PayoutCurrency string
	// Line is express (default when empty) or pobo.
	Line Line
	// Asset is the debit asset (default USDT when empty).
	Asset string
	// SlippageBps, when non-zero (50 to 1000), makes the quote include the
	// locked_amount a Create with the same slippage would hold.
	SlippageBps int
}

// RemitQuote is an indicative price for a remittance. Create re-prices and is
// authoritative.
//
// The shape is inferred: the specification names GET /v1/remit/quotes without
// showing its fields.
type RemitQuote struct {
	// Meta holds Response, the HTTP exchange that returned the value.
	mwallet.Meta
	// PayeeID is the priced payee (pye_ prefix).
	PayeeID string `json:"payee_id"`
	// Line is the line priced (express when none was given).
	Line Line `json:"line"`
	// SourceAsset is the debit asset; the amounts below are at its LedgerScale.
	SourceAsset string `json:"source_asset"`
	LedgerScale int    `json:"ledger_scale"`
	// CustomerTotal is payout / rate + fee, the principal rounded up at the ledger scale.
	CustomerTotal money.Amount `json:"customer_total"`
	// Fee is the line fee, inside CustomerTotal.
	Fee money.Amount `json:"fee"`
	// LockedAmount is what a Create with SlippageBps would hold (CustomerTotal when SlippageBps is 0).
	LockedAmount money.Amount `json:"locked_amount"`
	// SlippageBps echoes the slippage priced (0 when none was given).
	SlippageBps int `json:"slippage_bps"`
	// IndicativeRate is the exact decimal rate (payout currency per unit of the source asset).
	IndicativeRate string `json:"indicative_rate"`
	// PayoutCurrency and PayoutAmount echo what the payee would receive.
	PayoutCurrency string `json:"payout_currency"`
	PayoutAmount   string `json:"payout_amount"`
}

// Quote prices a remittance for member without holding anything
// (GET /v1/remit/quotes, scope remittances:read).
//
// The response shape is inferred: the specification names this endpoint
// without showing its fields.
func (c *Client) Quote(ctx context.Context, member string, p QuoteParams, opts ...mwallet.CallOption) (*RemitQuote, error) {
	payee, err := payeePathID("PayeeID", p.PayeeID)
	if err != nil {
		return nil, err
	}
	if err := validatePayout(p.PayoutCurrency, p.PayoutAmount); err != nil {
		return nil, err
	}
	if p.Line != "" && !p.Line.Known() {
		return nil, &mwallet.ParamError{Param: "Line", Reason: "neither express nor pobo", Code: mwallet.CodeInvalidRequest}
	}
	if p.SlippageBps != 0 && (p.SlippageBps < MinSlippageBps || p.SlippageBps > MaxSlippageBps) {
		return nil, &mwallet.ParamError{Param: "SlippageBps", Reason: "outside 50..1000", Code: mwallet.CodeInvalidFields}
	}
	q := url.Values{}
	q.Set("payee_id", payee)
	q.Set("payout_amount", p.PayoutAmount)
	if p.Line != "" {
		q.Set("line", string(p.Line))
	}
	if a := strings.ToUpper(strings.TrimSpace(p.Asset)); a != "" {
		q.Set("asset", a)
	}
	if p.SlippageBps != 0 {
		q.Set("slippage_bps", strconv.Itoa(p.SlippageBps))
	}
	return mwallet.Call[RemitQuote](ctx, c.caller, &mwallet.Request{
		Method: http.MethodGet, Path: "/v1/remit/quotes", Query: q, MemberScoped: true, Member: member,
	}, opts...)
}

// UnmarshalJSON reads a quote and carries its amounts at LedgerScale where
// they fit it.
func (q *RemitQuote) UnmarshalJSON(b []byte) error {
	type plain RemitQuote
	var v plain
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*q = RemitQuote(v)
	for _, a := range []*money.Amount{&q.CustomerTotal, &q.Fee, &q.LockedAmount} {
		if r, err := a.Rescale(q.LedgerScale); err == nil {
			*a = r
		}
	}
	return nil
}

// Product is a remittance line offered for a corridor, with its rules.
//
// The shape is inferred: the specification names GET /v1/remit/products
// without showing its fields. Amount limits are in the source asset.
type Product struct {
	// Line is express or pobo.
	Line Line `json:"line"`
	// Corridor names the destination, for example "GB-GBP".
	Corridor string `json:"corridor"`
	// Country is the ISO 3166 alpha-2 destination country.
	Country string `json:"country"`
	// PayoutCurrency is the ISO 4217 currency paid out.
	PayoutCurrency string `json:"payout_currency"`
	// RequiredKYCLevel is the member KYC level the line needs.
	RequiredKYCLevel int `json:"required_kyc_level"`
	// SourceAssets are the debit assets accepted.
	SourceAssets []string `json:"source_assets"`
	// PurposeCodes are the purpose codes permitted on this line.
	PurposeCodes []PurposeCode `json:"purpose_codes"`
	// MinAmount, MaxAmount and DailyLimit bound customer_total per order and
	// per member per UTC day, as decimal strings in the source asset.
	MinAmount  string `json:"min_amount"`
	MaxAmount  string `json:"max_amount"`
	DailyLimit string `json:"daily_limit"`
	// Queues is true when an order waits for merchant funds instead of being
	// refused.
	Queues bool `json:"queues"`
}

// Products iterates over the remittance products of the merchant
// (GET /v1/remit/products, scope remittances:read; merchant-scoped). It is a bounded catalogue
// list, answered in one page, so it takes no paging parameters; the
// iterator still follows has_more should the service ever page it.
//
// The response shape is inferred: the specification names this endpoint
// without showing its fields; it is taken to be a bounded list envelope.
func (c *Client) Products(ctx context.Context, opts ...mwallet.CallOption) iter.Seq2[Product, error] {
	return mwallet.Iterate[Product](ctx, c.caller, mwallet.Request{Method: http.MethodGet, Path: "/v1/remit/products"}, mwallet.ListParams{}, opts...)
}

// ConversionDate is a date on which a payout currency converts.
//
// The shape is inferred: the specification names GET
// /v1/remit/conversion-dates without showing its fields.
type ConversionDate struct {
	// PayoutCurrency is the ISO 4217 currency.
	PayoutCurrency string `json:"payout_currency"`
	// Date is YYYY-MM-DD.
	Date string `json:"date"`
	// CutoffAt is the last moment an order dispatches for Date.
	CutoffAt time.Time `json:"cutoff_at"`
}

// ConversionDates iterates over the next conversion dates of a payout
// currency (GET /v1/remit/conversion-dates?payout_currency=..., scope
// remittances:read; merchant-scoped). It is a bounded catalogue list, answered in one page,
// so it takes no paging parameters.
//
// The response shape is inferred: the specification names this endpoint
// without showing its fields; it is taken to be a bounded list envelope.
func (c *Client) ConversionDates(ctx context.Context, payoutCurrency string, opts ...mwallet.CallOption) iter.Seq2[ConversionDate, error] {
	cur := strings.ToUpper(strings.TrimSpace(payoutCurrency))
	if _, ok := MinorUnits(cur); !ok {
		err := &mwallet.ParamError{Param: "payoutCurrency", Reason: "not an ISO 4217 currency code, so no corridor serves it", Code: mwallet.CodeCorridorNotSupported}
		return func(yield func(ConversionDate, error) bool) { yield(ConversionDate{}, err) }
	}
	return mwallet.Iterate[ConversionDate](ctx, c.caller, mwallet.Request{
		Method: http.MethodGet, Path: "/v1/remit/conversion-dates", Query: url.Values{"payout_currency": {cur}},
	}, mwallet.ListParams{}, opts...)
}
