package deposits

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strings"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/money"
)

// Field length limits of a deposit, in characters (a multi-byte character
// counts once). The contract gives the reference "at most 120 characters" and
// the others as bare numbers; they are counted the same way.
const (
	MaxReferenceLen = 120
	MaxNetworkLen   = 32
	MaxTxIDLen      = 128
	MaxAddressLen   = 200
)

// Status is the status of a deposit. Deposits are only ever credited; the
// type stays open so an unknown value is kept verbatim (check Known).
type Status string

// StatusCredited is the only documented deposit status.
const StatusCredited Status = "credited"

// Known reports whether s is a documented status.
func (s Status) Known() bool { return s == StatusCredited }

// Deposit is a declared deposit.
type Deposit struct {
	// Meta holds Response, the HTTP exchange that returned the value (nil
	// for list items).
	mwallet.Meta
	// ID is dep_ followed by the reference.
	ID string `json:"id"`
	// Reference is the merchant's stable business reference.
	Reference string `json:"reference"`
	// ExternalMemberID is the credited member.
	ExternalMemberID string `json:"external_member_id"`
	// Asset is the upper-case asset code; Amount is at LedgerScale.
	Asset  string       `json:"asset"`
	Amount money.Amount `json:"amount"`
	// LedgerScale is the asset's ledger_scale.
	LedgerScale int `json:"ledger_scale"`
	// Status is always credited for a stored deposit.
	Status Status `json:"status"`
	// Network, TxID, FromAddress and ToAddress are the chain provenance as
	// stored by the first posting.
	Network     string `json:"network,omitempty"`
	TxID        string `json:"txid,omitempty"`
	FromAddress string `json:"from_address,omitempty"`
	ToAddress   string `json:"to_address,omitempty"`
	// Replayed is true when the reference had already been posted: nothing was
	// credited by this call and the fields are the first posting's.
	Replayed bool `json:"replayed"`
}

// UnmarshalJSON reads a deposit and carries its amount at LedgerScale; an
// amount that does not fit the scale is an error, never rounded.
func (d *Deposit) UnmarshalJSON(b []byte) error {
	type plain Deposit
	var v plain
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*d = Deposit(v)
	return d.normalize()
}

func (d *Deposit) normalize() error {
	v, err := d.Amount.Rescale(d.LedgerScale)
	if err != nil {
		return fmt.Errorf("deposits: deposit %s: amount %s does not fit ledger_scale %d: %w", d.ID, d.Amount, d.LedgerScale, err)
	}
	d.Amount = v
	return nil
}

// CreateParams are the parameters of Create.
type CreateParams struct {
	// Asset is the asset code (upper-cased before sending).
	Asset string
	// Amount must be greater than zero, at the asset's ledger_scale
	// (client.ParseAmount(ctx, asset, s)); it is sent as it is. Extra
	// decimals that are all zero are accepted ("2.50000000" USDT is credited
	// 2.5); a non-zero decimal beyond the ledger scale is refused before
	// sending (see mwallet.AssetAmount).
	Amount money.Amount
	// Reference is required, at most 120 characters, stable across retries.
	Reference string
	// Network (at most 32, upper-cased before sending) is required when TxID,
	// FromAddress or ToAddress is given.
	Network string
	// TxID is the chain transaction (at most 128; not unique).
	TxID string
	// FromAddress and ToAddress are at most 200 characters each.
	FromAddress string
	ToAddress   string
}

type createBody struct {
	Asset       string `json:"asset"`
	Amount      string `json:"amount"`
	Reference   string `json:"reference"`
	Network     string `json:"network,omitempty"`
	TxID        string `json:"txid,omitempty"`
	FromAddress string `json:"from_address,omitempty"`
	ToAddress   string `json:"to_address,omitempty"`
}

func (p CreateParams) body() (createBody, error) {
	asset := strings.ToUpper(strings.TrimSpace(p.Asset))
	if asset == "" {
		return createBody{}, &mwallet.ParamError{Param: "Asset", Reason: "required", Code: mwallet.CodeInvalidRequest}
	}
	if p.Amount.Sign() <= 0 {
		return createBody{}, &mwallet.ParamError{Param: "Amount", Reason: "must be greater than zero", Code: mwallet.CodeInvalidRequest}
	}
	if p.Reference == "" {
		return createBody{}, &mwallet.ParamError{Param: "Reference", Reason: "required: a stable business reference", Code: mwallet.CodeInvalidRequest}
	}
	if n := len([]rune(p.Reference)); n > MaxReferenceLen {
		return createBody{}, &mwallet.ParamError{Param: "Reference", Reason: fmt.Sprintf("%d characters; at most %d", n, MaxReferenceLen), Code: mwallet.CodeInvalidRequest}
	}
	network := strings.ToUpper(strings.TrimSpace(p.Network))
	for _, f := range []struct {
		name, key, v string
		max          int
	}{
		{"Network", "network", network, MaxNetworkLen},
		{"TxID", "txid", p.TxID, MaxTxIDLen},
		{"FromAddress", "from_address", p.FromAddress, MaxAddressLen},
		{"ToAddress", "to_address", p.ToAddress, MaxAddressLen},
	} {
		if n := len([]rune(f.v)); n > f.max {
			return createBody{}, &mwallet.ParamError{Param: f.name, Reason: fmt.Sprintf("%d characters; at most %d (%s)", n, f.max, f.key), Code: mwallet.CodeInvalidFields}
		}
	}
	if network == "" && (p.TxID != "" || p.FromAddress != "" || p.ToAddress != "") {
		return createBody{}, &mwallet.ParamError{Param: "Network", Reason: "required when TxID, FromAddress or ToAddress is given", Code: mwallet.CodeInvalidFields}
	}
	return createBody{
		Asset: asset, Amount: p.Amount.String(), Reference: p.Reference,
		Network: network, TxID: p.TxID, FromAddress: p.FromAddress, ToAddress: p.ToAddress,
	}, nil
}

// Create declares a deposit credited to member's available balance
// (POST /v1/deposits, scope deposits:write; the operator must approve the
// scope). The first posting of a reference answers 201 with
// Replayed false; a reference already posted answers 200 with Replayed true and
// the first posting's values, whatever the idempotency key. Invalid parameters
// give a *mwallet.ParamError and nothing is sent.
func (c *Client) Create(ctx context.Context, member string, p CreateParams, opts ...mwallet.CallOption) (*Deposit, error) {
	body, err := p.body()
	return mwallet.Call[Deposit](ctx, c.caller, &mwallet.Request{
		Method: http.MethodPost, Path: "/v1/deposits", MemberScoped: true, Member: member,
		Body: body, Idempotent: true, AcceptedStatus: []int{http.StatusCreated, http.StatusOK},
		Amounts: []mwallet.AssetAmount{{Param: "Amount", Asset: body.Asset, Amount: p.Amount}},
		Invalid: err,
	}, opts...)
}

// ID returns the REST id of a deposit reference: dep_ followed by the
// reference.
func ID(reference string) string { return "dep_" + reference }

// Get reads the deposit with the given reference (not its dep_ id: a
// reference may itself start with "dep_"). It reads
// (GET /v1/deposits/dep_<reference>, scope deposits:write), or, for references
// containing a slash (which cannot be a path segment), the list
// (GET /v1/deposits?reference=<reference>, scope deposits:write); a miss on
// that list is reported as the same 404 not_found *mwallet.Error the single
// read answers.
//
// The response shape is inferred: the specification names these endpoints
// without showing their fields; they are taken to answer the Deposit resource.
func (c *Client) Get(ctx context.Context, reference string, opts ...mwallet.CallOption) (*Deposit, error) {
	if reference == "" {
		return nil, &mwallet.ParamError{Param: "reference", Reason: "required", Code: mwallet.CodeNotFound}
	}
	if strings.Contains(reference, "/") {
		page, err := mwallet.Call[mwallet.Page[Deposit]](ctx, c.caller, &mwallet.Request{
			Method: http.MethodGet, Path: "/v1/deposits", Query: url.Values{"reference": {reference}},
		}, opts...)
		if err != nil {
			return nil, err
		}
		for _, d := range page.Data {
			if d.Reference == reference {
				d.Response = page.Response
				return &d, nil
			}
		}
		return nil, &mwallet.Error{HTTPStatus: http.StatusNotFound, Type: "not_found", Code: mwallet.CodeNotFound,
			Message: "no deposit with this reference", RequestID: page.Response.RequestID}
	}
	return mwallet.Call[Deposit](ctx, c.caller, &mwallet.Request{
		Method: http.MethodGet, Path: "/v1/deposits/" + url.PathEscape(ID(reference)),
	}, opts...)
}

// ListParams are the parameters of List and ListPages: the filter and,
// embedded, the page size and starting cursor.
type ListParams struct {
	mwallet.ListParams
	// Reference, when set, lists only the deposit with this reference.
	Reference string
}

// List walks the merchant's deposits, newest first (GET /v1/deposits, scope
// deposits:write). To
// stop and resume later, walk ListPages instead.
//
// The response shape is inferred: the specification names this endpoint
// without showing its fields; it is taken to be the list envelope of Deposit.
func (c *Client) List(ctx context.Context, p ListParams, opts ...mwallet.CallOption) iter.Seq2[Deposit, error] {
	return mwallet.Items(c.ListPages(ctx, p, opts...))
}

// ListPages walks the pages of List: each page carries its deposits, the
// cursor of the next page and the Response. Keep a page's NextCursor and
// pass it as p.Cursor, with the same filter, to resume after that page (see
// mwallet.Pages).
func (c *Client) ListPages(ctx context.Context, p ListParams, opts ...mwallet.CallOption) iter.Seq2[*mwallet.Page[Deposit], error] {
	q := url.Values{}
	if p.Reference != "" {
		q.Set("reference", p.Reference)
	}
	return mwallet.Pages[Deposit](ctx, c.caller, mwallet.Request{Method: http.MethodGet, Path: "/v1/deposits", Query: q}, p.ListParams, opts...)
}
