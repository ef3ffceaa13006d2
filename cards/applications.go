package cards

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/money"
)

// ApplyParams are the parameters of Apply.
type ApplyParams struct {
	// ClientKey is the business-level idempotency key of this application;
	// required. The service stores it permanently: the same key always yields
	// the same application, even after the 24-hour window of
	// x-idempotency-key has passed. Generate it with NewClientKey when the
	// end user starts the application, store it with your order, and resend
	// the same value on every attempt. It is not the x-idempotency-key.
	ClientKey string
	// SourceAsset is the asset that pays the fees and the first top-up;
	// required. It must be in the product's allowed list, else
	// product_not_available.
	SourceAsset string
	// ProductID (with or without cpd_) fixes the form factor, BIN and issuing
	// arrangement. Recommended: with neither ProductID nor BIN the service
	// picks a product of the form factor itself.
	ProductID string
	// BIN selects the product when ProductID is empty.
	BIN string
	// FormFactor is empty, FormFactorVirtual or FormFactorPhysical. With a
	// ProductID, leave it empty (the product decides); a conflicting value
	// gives product_not_available.
	FormFactor FormFactor
	// FirstTopUp is an amount in SourceAsset, at that asset's ledger_scale
	// (not the card currency's), credited to the card after issuance
	// (card.topup.credited). Zero means no first top-up. It must be at least
	// the invoice's MinFirstTopUp, else amount_out_of_range. A non-zero
	// decimal beyond SourceAsset's ledger_scale is refused before sending
	// (invalid_fields, see mwallet.AssetAmount). The card holds whole units of
	// its currency's scale: the contract does not say how a finer amount is
	// rounded (the simulator credits it cut to whole cents and returns the
	// remainder to the funding account).
	FirstTopUp money.Amount
	// FundingSource is required as mwallet.FundingMerchant for merchant_hosted
	// merchants; platform_hosted merchants leave it empty (member).
	FundingSource mwallet.FundingSource
	// AddressID is the shipping address of a physical card; empty uses the
	// member's default address. It is snapshotted.
	AddressID string
	// QuickKYCBindingID is a quick KYC binding of this member (use the same
	// id as on Quote). It does not raise the member's level or bypass L2
	// product requirements.
	QuickKYCBindingID string
	// QuickKYCEmail is needed when a quick profile must be allocated
	// automatically and the member has no genuine L1; it must never have been
	// used for any KYC.
	QuickKYCEmail string
}

type applyBody struct {
	SourceAsset       string `json:"source_asset"`
	ProductID         string `json:"product_id,omitempty"`
	BIN               string `json:"bin,omitempty"`
	FormFactor        string `json:"form_factor,omitempty"`
	FirstTopUp        string `json:"first_topup,omitempty"`
	FundingSource     string `json:"funding_source,omitempty"`
	AddressID         string `json:"address_id,omitempty"`
	QuickKYCBindingID string `json:"quick_kyc_binding_id,omitempty"`
	QuickKYCEmail     string `json:"quick_kyc_email,omitempty"`
	ClientKey         string `json:"client_key"`
}

func (p ApplyParams) body() (applyBody, error) {
	b := applyBody{
		ClientKey:         strings.TrimSpace(p.ClientKey),
		SourceAsset:       strings.TrimSpace(p.SourceAsset),
		BIN:               strings.TrimSpace(p.BIN),
		AddressID:         strings.TrimSpace(p.AddressID),
		QuickKYCBindingID: strings.TrimSpace(p.QuickKYCBindingID),
		QuickKYCEmail:     strings.TrimSpace(p.QuickKYCEmail),
	}
	if b.ClientKey == "" {
		return applyBody{}, &mwallet.ParamError{Param: "client_key", Reason: "is required: generate one with cards.NewClientKey when the application starts, store it, and resend it on every attempt", Code: mwallet.CodeInvalidRequest}
	}
	if b.SourceAsset == "" {
		return applyBody{}, &mwallet.ParamError{Param: "source_asset", Reason: "is required", Code: mwallet.CodeInvalidRequest}
	}
	if strings.TrimSpace(p.ProductID) != "" {
		id, err := withPrefix("product_id", prefixProduct, p.ProductID)
		if pe := (*mwallet.ParamError)(nil); errors.As(err, &pe) {
			pe.Code = mwallet.CodeProductNotAvailable // an unknown product, in a body
			return applyBody{}, pe
		}
		b.ProductID = id
	}
	switch p.FormFactor {
	case "":
	case FormFactorVirtual, FormFactorPhysical:
		b.FormFactor = string(p.FormFactor)
	default:
		// The service turns any value other than "physical" into a virtual
		// card; refuse typos such as "Physical" instead of issuing the wrong card.
		return applyBody{}, &mwallet.ParamError{Param: "form_factor", Reason: "must be empty, virtual or physical", Code: mwallet.CodeInvalidRequest}
	}
	if p.FirstTopUp.IsNegative() {
		return applyBody{}, &mwallet.ParamError{Param: "first_topup", Reason: "must not be negative", Code: mwallet.CodeInvalidFields}
	}
	if !p.FirstTopUp.IsZero() {
		b.FirstTopUp = p.FirstTopUp.String()
	}
	if p.FundingSource != "" {
		if !p.FundingSource.Known() {
			return applyBody{}, &mwallet.ParamError{Param: "funding_source", Reason: "must be member or merchant", Code: mwallet.CodeInvalidFields}
		}
		b.FundingSource = string(p.FundingSource)
	}
	return b, nil
}

// Application is a card application. Only status issued means the card
// exists; issuance is reported by card.application.* events.
type Application struct {
	// Meta holds Response, the HTTP exchange that returned the value.
	mwallet.Meta
	// ID is the application id (cap_ prefix).
	ID string
	// Status is pending_review (manual review) or submitted (automatic review)
	// at creation, later issued or rejected.
	Status ApplicationStatus
	// FormFactor is virtual or physical.
	FormFactor FormFactor
	// ProductID, CardID (set once issued), ClientKey, StatusVersion,
	// CreatedAt and UpdatedAt come from GetApplication, whose shape is
	// inferred. Apply fills ClientKey from its parameters.
	ProductID     string
	CardID        string
	ClientKey     string
	StatusVersion int64
	CreatedAt     time.Time
	UpdatedAt     time.Time
	// Existing is true when Apply found an application already created with
	// the same client_key (the service answered 200 instead of 201).
	Existing bool
}

type applicationWire struct {
	ID            string            `json:"id"`
	Status        ApplicationStatus `json:"status"`
	FormFactor    FormFactor        `json:"form_factor"`
	ProductID     string            `json:"product_id"`
	CardID        string            `json:"card_id"`
	ClientKey     string            `json:"client_key"`
	StatusVersion int64             `json:"status_version"`
	CreatedAt     string            `json:"created_at"`
	UpdatedAt     string            `json:"updated_at"`
}

// UnmarshalJSON reads the application and its timestamps.
func (a *Application) UnmarshalJSON(b []byte) error {
	var w applicationWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	out := Application{ID: w.ID, Status: w.Status, FormFactor: w.FormFactor, ProductID: w.ProductID, CardID: w.CardID,
		ClientKey: w.ClientKey, StatusVersion: w.StatusVersion}
	var err error
	if out.CreatedAt, err = parseTime("created_at", w.CreatedAt); err != nil {
		return err
	}
	if out.UpdatedAt, err = parseTime("updated_at", w.UpdatedAt); err != nil {
		return err
	}
	*a = out
	return nil
}

// Apply creates a card application for member (POST /v1/cards/applications,
// scope cards:write).
// It moves funds at once: the issuance fee (plus shipping for physical cards)
// is debited and any first top-up is held; the call returns without waiting
// for the issuer. Issuance is asynchronous: watch card.application.* events
// or poll GetApplication. If issuance fails the fee is refunded.
//
// The call carries an x-idempotency-key (generated once and reused on
// retries; set it with mwallet.WithIdempotencyKey to resend after a crash)
// and the permanent ClientKey. Several prerequisite failures (insufficient
// balance, KYC not passed, card limit reached, outstanding penalties,
// unsupported shipping country) are currently answered as 500 api_error;
// retrying the same key only repeats them, so check Quote's CanApply first.
func (c *Client) Apply(ctx context.Context, member string, p ApplyParams, opts ...mwallet.CallOption) (*Application, error) {
	body, err := p.body()
	req := &mwallet.Request{Method: http.MethodPost, Path: "/v1/cards/applications", MemberScoped: true, Member: member,
		Body: body, Idempotent: true, AcceptedStatus: []int{http.StatusCreated}, Invalid: err}
	if !p.FirstTopUp.IsZero() {
		req.Amounts = []mwallet.AssetAmount{{Param: "FirstTopUp", Asset: body.SourceAsset, Amount: p.FirstTopUp, Code: mwallet.CodeInvalidFields}}
	}
	out, err := mwallet.Call[Application](ctx, c.caller, req, opts...)
	if err != nil {
		return nil, err
	}
	if out.ClientKey == "" {
		out.ClientKey = body.ClientKey
	}
	out.Existing = out.Response.StatusCode == http.StatusOK
	return out, nil
}

// GetApplication reads an application of member by id (with or without its
// cap_ prefix; card_application events carry it prefixed)
// (GET /v1/cards/applications/{id}, scope cards:read).
//
// The response shape is inferred: the specification names this endpoint
// without showing its fields. The SDK reads id, status, form_factor,
// product_id, card_id, client_key, status_version, created_at and updated_at.
func (c *Client) GetApplication(ctx context.Context, member, applicationID string, opts ...mwallet.CallOption) (*Application, error) {
	id, err := withPrefix("application id", prefixApplication, applicationID)
	if err != nil {
		return nil, err
	}
	req := &mwallet.Request{Method: http.MethodGet, Path: "/v1/cards/applications/" + url.PathEscape(id), MemberScoped: true, Member: member}
	return mwallet.Call[Application](ctx, c.caller, req, opts...)
}
