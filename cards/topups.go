package cards

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/money"
)

// TopUpParams are the parameters of TopUp.
type TopUpParams struct {
	// Amount is the base amount in the source asset, at that asset's
	// ledger_scale (not the card currency's); required and positive. With a
	// SourceAsset, a non-zero decimal beyond that asset's ledger_scale is
	// refused before sending (invalid_fields, see mwallet.AssetAmount). The
	// card receives it in its own currency (see Estimate.CardAmount).
	Amount money.Amount
	// SourceAsset is a preference; when empty or unavailable the service
	// chooses by the member's payment priority.
	SourceAsset string
	// FundingSource is required as mwallet.FundingMerchant for merchant_hosted
	// merchants; platform_hosted merchants leave it empty (member).
	FundingSource mwallet.FundingSource
}

type topUpBody struct {
	Amount        string `json:"amount"`
	SourceAsset   string `json:"source_asset,omitempty"`
	FundingSource string `json:"funding_source,omitempty"`
}

func (p TopUpParams) body() (topUpBody, error) {
	if p.Amount.Sign() <= 0 {
		return topUpBody{}, &mwallet.ParamError{Param: "amount", Reason: "must be greater than zero", Code: mwallet.CodeInvalidFields}
	}
	b := topUpBody{Amount: p.Amount.String(), SourceAsset: strings.TrimSpace(p.SourceAsset)}
	if p.FundingSource != "" {
		if !p.FundingSource.Known() {
			return topUpBody{}, &mwallet.ParamError{Param: "funding_source", Reason: "must be member or merchant", Code: mwallet.CodeInvalidFields}
		}
		b.FundingSource = string(p.FundingSource)
	}
	return b, nil
}

// TopUp is a top-up order. A successful TopUp call is not a credit: the card
// balance grows only when the card.topup.credited event arrives. An upstream
// rejection releases the held funds at once; an upstream timeout keeps the
// order processing and the funds held.
type TopUp struct {
	// Meta holds Response, the HTTP exchange that returned the value.
	mwallet.Meta
	// ID is the top-up id (ctp_ prefix).
	ID string `json:"id"`
	// Status is processing, or completed for a shared-limit card that
	// settles immediately.
	Status TopUpStatus `json:"status"`
}

// TopUp tops up a card that is active, frozen or pending
// (POST /v1/cards/{id}/topups, scope cards:write). The member's funds (or the merchant prepaid)
// are held at once. On 504 upstream_timeout resend with the same idempotency
// key. Insufficient balance, amounts below the minimum or over the
// per-transaction limit, and upstream rejection are currently answered as
// 500 api_error: retry once with the same key, then treat as failure.
func (c *Client) TopUp(ctx context.Context, member, cardID string, p TopUpParams, opts ...mwallet.CallOption) (*TopUp, error) {
	path, err := cardPath(cardID, "/topups")
	body, berr := p.body()
	return mwallet.Call[TopUp](ctx, c.caller, &mwallet.Request{Method: http.MethodPost, Path: path, MemberScoped: true, Member: member, Body: body, Idempotent: true, AcceptedStatus: []int{http.StatusCreated},
		Amounts: []mwallet.AssetAmount{{Param: "Amount", Asset: body.SourceAsset, Amount: p.Amount, Code: mwallet.CodeInvalidFields}},
		Invalid: cmp.Or(err, berr)}, opts...)
}

// EstimateParams are the parameters of EstimateTopUp.
type EstimateParams struct {
	// Amount is the base amount in the source asset; required and positive,
	// at the SourceAsset's ledger_scale as for TopUp.
	Amount money.Amount
	// SourceAsset is a preference, as for TopUp.
	SourceAsset string
}

// Estimate is the price of a top-up before it is placed.
//
// The shape is inferred: the specification names the card top-up estimate
// without showing its fields.
type Estimate struct {
	// Meta holds Response, the HTTP exchange that returned the value.
	mwallet.Meta
	// SourceAsset is the asset that would be debited, at LedgerScale.
	SourceAsset string
	LedgerScale int
	// Amount is the base amount, Fee the top-up fee and CustomerTotal what
	// would be held (Amount plus Fee).
	Amount        money.Amount
	Fee           money.Amount
	CustomerTotal money.Amount
	// Currency, Scale and CardAmount are what the card would receive: the
	// simulator gives Amount cut to whole units of Scale, the remainder
	// returning to the funding account when the card is credited (the
	// contract does not show this endpoint or the rounding).
	Currency   string
	Scale      int
	CardAmount money.Amount
}

// UnmarshalJSON parses the amounts at their scales.
func (e *Estimate) UnmarshalJSON(b []byte) error {
	var w struct {
		SourceAsset   string `json:"source_asset"`
		LedgerScale   int    `json:"ledger_scale"`
		Amount        string `json:"amount"`
		Fee           string `json:"fee"`
		CustomerTotal string `json:"customer_total"`
		Currency      string `json:"currency"`
		Scale         int    `json:"scale"`
		CardAmount    string `json:"card_amount"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	out := Estimate{SourceAsset: w.SourceAsset, LedgerScale: w.LedgerScale, Currency: w.Currency, Scale: w.Scale}
	var err error
	if out.Amount, err = parseAmount("amount", w.Amount, w.LedgerScale); err != nil {
		return err
	}
	if out.Fee, err = parseAmount("fee", w.Fee, w.LedgerScale); err != nil {
		return err
	}
	if out.CustomerTotal, err = parseAmount("customer_total", w.CustomerTotal, w.LedgerScale); err != nil {
		return err
	}
	if out.CardAmount, err = parseAmount("card_amount", w.CardAmount, w.Scale); err != nil {
		return err
	}
	*e = out
	return nil
}

// EstimateTopUp prices a top-up without placing it
// (GET /v1/cards/{id}/topups/estimate?amount=&source_asset=, scope
// cards:read).
//
// The response shape is inferred: the specification names this endpoint
// without showing its fields.
func (c *Client) EstimateTopUp(ctx context.Context, member, cardID string, p EstimateParams, opts ...mwallet.CallOption) (*Estimate, error) {
	path, err := cardPath(cardID, "/topups/estimate")
	if err != nil {
		return nil, err
	}
	if p.Amount.Sign() <= 0 {
		return nil, &mwallet.ParamError{Param: "amount", Reason: "must be greater than zero", Code: mwallet.CodeInvalidFields}
	}
	q := url.Values{"amount": {p.Amount.String()}}
	if s := strings.TrimSpace(p.SourceAsset); s != "" {
		q.Set("source_asset", s)
	}
	return mwallet.Call[Estimate](ctx, c.caller, &mwallet.Request{Method: http.MethodGet, Path: path, Query: q, MemberScoped: true, Member: member,
		Amounts: []mwallet.AssetAmount{{Param: "Amount", Asset: q.Get("source_asset"), Amount: p.Amount, Code: mwallet.CodeInvalidFields}}}, opts...)
}
