package cards

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"strings"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/money"
)

// Product is a card product (GET /v1/cards/products item). The assets that
// may pay for it are not part of this item; read them from the invoice
// (Quote) and the application rules.
type Product struct {
	// ID is the product id (cpd_ prefix).
	ID string `json:"id"`
	// FormFactor is virtual_card or physical_card.
	FormFactor FormFactor `json:"form_factor"`
	// Currency is the card currency, for example USD.
	Currency string `json:"currency"`
	// BIN is the bank identification number of the product's cards.
	BIN string `json:"bin"`
	// Scheme is the card scheme, for example visa.
	Scheme string `json:"scheme"`
	// LimitsUpdatable says whether card limits can be changed after issuance.
	LimitsUpdatable bool `json:"limits_updatable"`
	// CardTypes lists the card types of the product.
	CardTypes []string `json:"card_types"`
}

// Products iterates over the enabled card products whose BIN is authorized
// for the merchant (GET /v1/cards/products, merchant scope, scope
// cards:read). It is a bounded catalogue list: the service answers it in
// one page, so it takes no paging parameters; the iterator still follows
// has_more should the service ever page it.
func (c *Client) Products(ctx context.Context, opts ...mwallet.CallOption) iter.Seq2[Product, error] {
	req := mwallet.Request{Method: http.MethodGet, Path: "/v1/cards/products"}
	return mwallet.Iterate[Product](ctx, c.caller, req, mwallet.ListParams{}, opts...)
}

// QuoteParams are the optional parameters of Quote.
type QuoteParams struct {
	// QuickKYCBindingID is a quick KYC binding of the member to price the
	// application with; use the same id on Apply.
	QuickKYCBindingID string
}

// Invoice is the price of a card product for one member
// (GET /v1/cards/products/{id}/quote). Read Reason together with CanApply.
type Invoice struct {
	// Meta holds Response, the HTTP exchange that returned the value.
	mwallet.Meta
	ProductID  string
	FormFactor FormFactor
	// FeeAsset is the asset the fees are quoted in; amounts below are at its
	// LedgerScale.
	FeeAsset     string
	LedgerScale  int
	DisplayScale int
	// IssueFee is the issuance fee, separate from shipping.
	IssueFee money.Amount
	// MinFirstTopUp is the minimum first top-up; zero means no minimum.
	MinFirstTopUp money.Amount
	// ShippingFee is zero for virtual cards.
	ShippingFee money.Amount
	// CanApply says whether the member can apply now; when false, Reason says why.
	CanApply bool
	Reason   string
	// ShippingByAddress prices each of the member's shipping addresses
	// (physical cards only).
	ShippingByAddress []ShippingQuote
}

// HasMinFirstTopUp reports whether the product requires a first top-up of at
// least MinFirstTopUp ("0.00" means no minimum).
func (iv *Invoice) HasMinFirstTopUp() bool { return iv.MinFirstTopUp.Sign() > 0 }

// ShippingQuote is the shipping price to one of the member's addresses.
type ShippingQuote struct {
	AddressID   string
	Country     string
	IsDefault   bool
	ShippingFee money.Amount
	// Total is the issuance fee plus shipping to this address.
	Total money.Amount
	// Deliverable is always true today.
	Deliverable bool
	// Reason is always empty today.
	Reason string
}

type shippingWire struct {
	AddressID   string `json:"address_id"`
	Country     string `json:"country"`
	IsDefault   bool   `json:"is_default"`
	ShippingFee string `json:"shipping_fee"`
	Total       string `json:"total"`
	Deliverable bool   `json:"deliverable"`
	Reason      string `json:"reason"`
}

type invoiceWire struct {
	ProductID         string         `json:"product_id"`
	FormFactor        FormFactor     `json:"form_factor"`
	FeeAsset          string         `json:"fee_asset"`
	LedgerScale       int            `json:"ledger_scale"`
	DisplayScale      int            `json:"display_scale"`
	IssueFee          string         `json:"issue_fee"`
	MinFirstTopUp     string         `json:"min_first_topup"`
	ShippingFee       string         `json:"shipping_fee"`
	CanApply          bool           `json:"can_apply"`
	Reason            string         `json:"reason"`
	ShippingByAddress []shippingWire `json:"shipping_by_address"`
}

// UnmarshalJSON parses every amount at the invoice's ledger_scale.
func (iv *Invoice) UnmarshalJSON(b []byte) error {
	var w invoiceWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	out := Invoice{ProductID: w.ProductID, FormFactor: w.FormFactor, FeeAsset: w.FeeAsset, LedgerScale: w.LedgerScale,
		DisplayScale: w.DisplayScale, CanApply: w.CanApply, Reason: w.Reason}
	var err error
	if out.IssueFee, err = parseAmount("issue_fee", w.IssueFee, w.LedgerScale); err != nil {
		return err
	}
	if out.MinFirstTopUp, err = parseAmount("min_first_topup", w.MinFirstTopUp, w.LedgerScale); err != nil {
		return err
	}
	if out.ShippingFee, err = parseAmount("shipping_fee", w.ShippingFee, w.LedgerScale); err != nil {
		return err
	}
	for _, s := range w.ShippingByAddress {
		q := ShippingQuote{AddressID: s.AddressID, Country: s.Country, IsDefault: s.IsDefault, Deliverable: s.Deliverable, Reason: s.Reason}
		if q.ShippingFee, err = parseAmount("shipping_by_address.shipping_fee", s.ShippingFee, w.LedgerScale); err != nil {
			return err
		}
		if q.Total, err = parseAmount("shipping_by_address.total", s.Total, w.LedgerScale); err != nil {
			return err
		}
		out.ShippingByAddress = append(out.ShippingByAddress, q)
	}
	*iv = out
	return nil
}

// Quote prices product productID (with or without its cpd_ prefix) for
// member (GET /v1/cards/products/{id}/quote, scope cards:read). A product
// that does not exist, is disabled or unavailable to the caller gives a 404
// not_found *mwallet.Error.
func (c *Client) Quote(ctx context.Context, member, productID string, p QuoteParams, opts ...mwallet.CallOption) (*Invoice, error) {
	id, err := withPrefix("product id", prefixProduct, productID)
	if err != nil {
		return nil, err
	}
	req := &mwallet.Request{Method: http.MethodGet, Path: "/v1/cards/products/" + url.PathEscape(id) + "/quote", MemberScoped: true, Member: member}
	if b := strings.TrimSpace(p.QuickKYCBindingID); b != "" {
		req.Query = url.Values{"quick_kyc_binding_id": {b}}
	}
	return mwallet.Call[Invoice](ctx, c.caller, req, opts...)
}
