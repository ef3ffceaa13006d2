package remittance

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strings"

	mwallet "github.com/mwallet/mwallet-go"
)

// Slippage bounds of CreateParams.SlippageBps.
const (
	MinSlippageBps = 50
	MaxSlippageBps = 1000
)

// MaxReferenceLen is where the service truncates the recipient message.
const MaxReferenceLen = 200

// CreateParams are the parameters of Create.
type CreateParams struct {
	// PayeeID is the saved payee, with or without its pye_ prefix; the rest
	// must be digits. The payee's corridor is authoritative.
	PayeeID string
	// PayoutAmount is what the payee receives, in the payee's currency, with
	// exactly that currency's decimals ("10.00" GBP, "1000" JPY); at most 32
	// characters. NormalizePayout formats a looser input.
	PayoutAmount string
	// PayoutCurrency is the payee's currency (Payee.Currency), used only to
	// check PayoutAmount's precision before sending; it is not sent. When it
	// is empty, PayoutAmount is sent as given and the service checks it.
	PayoutCurrency string
	// SlippageBps is the price protection in basis points, 50 to 1000
	// (required): locked_amount = customer_total × (1 + SlippageBps/10000).
	SlippageBps int
	// PurposeCode is required and must be permitted for the line.
	PurposeCode PurposeCode
	// FundingSource is optional on platform_hosted accounts (member);
	// merchant_hosted accounts must send mwallet.FundingMerchant.
	FundingSource mwallet.FundingSource
	// Reference is the message to the recipient (optional; the service
	// truncates it beyond 200 characters).
	Reference string
	// Line is express (default when empty) or pobo.
	Line Line
	// Asset is the debit asset (default USDT when empty).
	Asset string
}

type createBody struct {
	PayeeID       string                `json:"payee_id"`
	PayoutAmount  string                `json:"payout_amount"`
	SlippageBps   int                   `json:"slippage_bps"`
	PurposeCode   PurposeCode           `json:"purpose_code"`
	FundingSource mwallet.FundingSource `json:"funding_source,omitempty"`
	Reference     string                `json:"reference,omitempty"`
	Line          Line                  `json:"line,omitempty"`
	Asset         string                `json:"asset,omitempty"`
}

// payeePathID validates a payee id given with or without pye_ and returns
// it with the prefix.
func payeePathID(param, id string) (string, error) {
	rest := strings.TrimPrefix(strings.TrimSpace(id), "pye_")
	if rest == "" {
		return "", &mwallet.ParamError{Param: param, Reason: "required", Code: mwallet.CodeInvalidRequest}
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] < '0' || rest[i] > '9' {
			return "", &mwallet.ParamError{Param: param, Reason: fmt.Sprintf("%q: after the optional pye_ prefix only digits are allowed", id), Code: mwallet.CodeInvalidRequest}
		}
	}
	return "pye_" + rest, nil
}

func (p CreateParams) body() (createBody, error) {
	payee, err := payeePathID("PayeeID", p.PayeeID)
	if err != nil {
		return createBody{}, err
	}
	if err := validatePayout(p.PayoutCurrency, p.PayoutAmount); err != nil {
		return createBody{}, err
	}
	if p.SlippageBps < MinSlippageBps || p.SlippageBps > MaxSlippageBps {
		return createBody{}, &mwallet.ParamError{Param: "SlippageBps", Reason: fmt.Sprintf("%d is outside %d..%d", p.SlippageBps, MinSlippageBps, MaxSlippageBps), Code: mwallet.CodeInvalidFields}
	}
	if p.PurposeCode == "" {
		return createBody{}, &mwallet.ParamError{Param: "PurposeCode", Reason: "required", Code: mwallet.CodeInvalidRequest}
	}
	if !p.PurposeCode.validShape() {
		return createBody{}, &mwallet.ParamError{Param: "PurposeCode", Reason: fmt.Sprintf("%q is not a purpose code (upper-case letters, digits and underscores)", p.PurposeCode), Code: mwallet.CodeInvalidRequest}
	}
	if p.FundingSource != "" && !p.FundingSource.Known() {
		return createBody{}, &mwallet.ParamError{Param: "FundingSource", Reason: fmt.Sprintf("%q is neither member nor merchant", p.FundingSource), Code: mwallet.CodeInvalidFields}
	}
	if p.Line != "" && !p.Line.Known() {
		return createBody{}, &mwallet.ParamError{Param: "Line", Reason: fmt.Sprintf("%q is neither express nor pobo (the service would silently use express)", p.Line), Code: mwallet.CodeInvalidRequest}
	}
	return createBody{
		PayeeID:       payee,
		PayoutAmount:  p.PayoutAmount,
		SlippageBps:   p.SlippageBps,
		PurposeCode:   p.PurposeCode,
		FundingSource: p.FundingSource,
		Reference:     p.Reference,
		Line:          p.Line,
		Asset:         strings.ToUpper(strings.TrimSpace(p.Asset)),
	}, nil
}

// Create orders a remittance for member (POST /v1/remittances, scope
// remittances:write). It moves
// funds: the member's balance (or, merchant-funded, the merchant prepaid
// account) is held by locked_amount. Use one idempotency key per payment; the
// client generates one per call and reuses it on its retries, and
// mwallet.WithIdempotencyKey resends a payment after a timeout.
//
// A replay of the same key and parameters returns Duplicated true, Quote nil
// and the order's current status, with Response.Replayed true. A 201 with
// status pending means the order waits (merchant funds); it advances by
// itself.
//
// Invalid parameters give a *mwallet.ParamError and nothing is sent.
func (c *Client) Create(ctx context.Context, member string, p CreateParams, opts ...mwallet.CallOption) (*CreateResult, error) {
	body, err := p.body()
	out, err := mwallet.Call[CreateResult](ctx, c.caller, &mwallet.Request{
		Method: http.MethodPost, Path: "/v1/remittances", MemberScoped: true, Member: member,
		Body: body, Idempotent: true, AcceptedStatus: []int{http.StatusCreated}, Invalid: err,
	}, opts...)
	if err != nil {
		return nil, err
	}
	if out.Duplicated {
		out.Quote = nil
	}
	return out, nil
}

// orderPathID returns an order id with its rmt_ prefix, validating that the
// rest is a single path segment.
func orderPathID(id string) (string, error) {
	id = strings.TrimSpace(id)
	rest := strings.TrimPrefix(id, "rmt_")
	if rest == "" {
		return "", &mwallet.ParamError{Param: "id", Reason: "order id is required", Code: mwallet.CodeNotFound}
	}
	if strings.ContainsAny(rest, "/?#") {
		return "", &mwallet.ParamError{Param: "id", Reason: fmt.Sprintf("%q is not an order id", id), Code: mwallet.CodeNotFound}
	}
	return "rmt_" + rest, nil
}

// Get reads one order of member (GET /v1/remittances/{id}, scope
// remittances:read); id with or
// without rmt_, for example the bare uuid of an event's data.id.
// The response shape is inferred: the specification names this endpoint
// without showing its fields; it is taken to be the list item.
func (c *Client) Get(ctx context.Context, member, id string, opts ...mwallet.CallOption) (*Order, error) {
	pid, err := orderPathID(id)
	if err != nil {
		return nil, err
	}
	return mwallet.Call[Order](ctx, c.caller, &mwallet.Request{
		Method: http.MethodGet, Path: "/v1/remittances/" + url.PathEscape(pid), MemberScoped: true, Member: member,
	}, opts...)
}

// List walks member's orders, newest first (GET /v1/remittances, scope
// remittances:read). It stops
// when the service says has_more is false. An order pending for merchant
// funds is listed as pending; unknown statuses are kept verbatim.
//
// To stop and resume later, walk ListPages instead.
func (c *Client) List(ctx context.Context, member string, p mwallet.ListParams, opts ...mwallet.CallOption) iter.Seq2[Order, error] {
	return mwallet.Items(c.ListPages(ctx, member, p, opts...))
}

// ListPages walks the pages of List: each page carries its orders, the
// cursor of the next page and the Response. Keep a page's NextCursor and
// pass it as p.Cursor to resume after that page (see mwallet.Pages).
func (c *Client) ListPages(ctx context.Context, member string, p mwallet.ListParams, opts ...mwallet.CallOption) iter.Seq2[*mwallet.Page[Order], error] {
	return mwallet.Pages[Order](ctx, c.caller, mwallet.Request{
		Method: http.MethodGet, Path: "/v1/remittances", MemberScoped: true, Member: member,
	}, p, opts...)
}
