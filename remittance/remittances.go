package remittance

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strings"

	"github.com/mwallet/mwallet-go/internal/api"
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
	// PayoutCurrency is the payee's currency (Payee.Currency). It is required
	// and used only to check PayoutAmount before sending; it is not sent.
	PayoutCurrency string
	// SlippageBps is the price protection in basis points, 50 to 1000
	// (required): locked_amount = customer_total × (1 + SlippageBps/10000).
	SlippageBps int
	// PurposeCode is required and must be permitted for the line.
	PurposeCode PurposeCode
	// FundingSource is optional on platform_hosted accounts (member);
	// merchant_hosted accounts must send FundingMerchant.
	FundingSource FundingSource
	// Reference is the message to the recipient (optional; the service
	// truncates it beyond 200 characters).
	Reference string
	// Line is express (default when empty) or pobo.
	Line Line
	// Asset is the debit asset (default USDT when empty).
	Asset string
}

type createBody struct {
	PayeeID       string        `json:"payee_id"`
	PayoutAmount  string        `json:"payout_amount"`
	SlippageBps   int           `json:"slippage_bps"`
	PurposeCode   PurposeCode   `json:"purpose_code"`
	FundingSource FundingSource `json:"funding_source,omitempty"`
	Reference     string        `json:"reference,omitempty"`
	Line          Line          `json:"line,omitempty"`
	Asset         string        `json:"asset,omitempty"`
}

// payeePathID validates a payee id given with or without pye_ and returns
// it with the prefix.
func payeePathID(param, id string) (string, error) {
	rest := strings.TrimPrefix(strings.TrimSpace(id), "pye_")
	if rest == "" {
		return "", api.Param(param, "required", api.CodeInvalidRequest)
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] < '0' || rest[i] > '9' {
			return "", api.Param(param, fmt.Sprintf("%q: after the optional pye_ prefix only digits are allowed", id), api.CodeInvalidRequest)
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
		return createBody{}, api.Param("SlippageBps", fmt.Sprintf("%d is outside %d..%d", p.SlippageBps, MinSlippageBps, MaxSlippageBps), api.CodeInvalidFields)
	}
	if p.PurposeCode == "" {
		return createBody{}, api.Param("PurposeCode", "required", api.CodeInvalidRequest)
	}
	if !p.PurposeCode.validShape() {
		return createBody{}, api.Param("PurposeCode", fmt.Sprintf("%q is not a purpose code (upper-case letters, digits and underscores)", p.PurposeCode), api.CodeInvalidRequest)
	}
	if p.FundingSource != "" && !p.FundingSource.Known() {
		return createBody{}, api.Param("FundingSource", fmt.Sprintf("%q is neither member nor merchant", p.FundingSource), api.CodeInvalidFields)
	}
	if p.Line != "" && !p.Line.Known() {
		return createBody{}, api.Param("Line", fmt.Sprintf("%q is neither express nor pobo (the service would silently use express)", p.Line), api.CodeInvalidRequest)
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
// api.WithIdempotencyKey resends a payment after a timeout.
//
// A replay of the same key and parameters returns Duplicated true, Quote nil
// and the order's current status, with Response.Replayed true. A 201 with
// status pending means the order waits (merchant funds); it advances by
// itself.
//
// Invalid parameters give a *api.ParamError and nothing is sent.
func (c *Client) Create(ctx context.Context, member string, p CreateParams, opts ...api.CallOption) (*CreateResult, error) {
	body, err := p.body()
	if err != nil {
		return nil, err
	}
	var out CreateResult
	resp, err := c.caller.Do(ctx, &api.Request{
		Method: http.MethodPost, Path: "/v1/remittances", MemberScoped: true, Member: member,
		Body: body, Idempotent: true, AcceptedStatus: []int{http.StatusCreated},
	}, &out, opts...)
	if err != nil {
		return nil, err
	}
	out.Response = resp
	if out.Duplicated {
		out.Quote = nil
	}
	return &out, nil
}

// orderPathID returns an order id with its rmt_ prefix, validating that the
// rest is a single path segment.
func orderPathID(id string) (string, error) {
	id = strings.TrimSpace(id)
	rest := strings.TrimPrefix(id, "rmt_")
	if rest == "" {
		return "", api.Param("id", "order id is required", api.CodeInvalidRequest)
	}
	if strings.ContainsAny(rest, "/?#") {
		return "", api.Param("id", fmt.Sprintf("%q is not an order id", id), api.CodeInvalidRequest)
	}
	return "rmt_" + rest, nil
}

// OrderResult is an Order with the metadata of the call that read it.
type OrderResult struct {
	Order
	// Response is the HTTP metadata of the call.
	Response *api.Response `json:"-"`
}

// Get reads one order of member (GET /v1/remittances/{id}, scope remittances:read); id with or
// without rmt_, for example the bare uuid of an event's data.id.
// The response shape is inferred: the specification names this endpoint
// without showing its fields; it is taken to be the list item.
func (c *Client) Get(ctx context.Context, member, id string, opts ...api.CallOption) (*OrderResult, error) {
	pid, err := orderPathID(id)
	if err != nil {
		return nil, err
	}
	var out OrderResult
	resp, err := c.caller.Do(ctx, &api.Request{
		Method: http.MethodGet, Path: "/v1/remittances/" + url.PathEscape(pid), MemberScoped: true, Member: member,
	}, &out.Order, opts...)
	if err != nil {
		return nil, err
	}
	if err := out.Order.normalize(); err != nil {
		return nil, err
	}
	out.Response = resp
	return &out, nil
}

// List walks member's orders, newest first (GET /v1/remittances, scope
// remittances:read). It stops
// when the service says has_more is false. An order pending for merchant
// funds is listed as pending; unknown statuses are kept verbatim.
func (c *Client) List(ctx context.Context, member string, p api.ListParams, opts ...api.CallOption) iter.Seq2[Order, error] {
	inner := api.Iterate[Order](ctx, c.caller, api.Request{
		Method: http.MethodGet, Path: "/v1/remittances", MemberScoped: true, Member: member,
	}, p, opts...)
	return func(yield func(Order, error) bool) {
		for o, err := range inner {
			if err == nil {
				err = o.normalize()
			}
			if !yield(o, err) || err != nil {
				return
			}
		}
	}
}
