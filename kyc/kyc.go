package kyc

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/mail"
	"strings"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
)

// Ticket is a hosted KYC ticket: a one-time screen bound to the member.
type Ticket struct {
	// Meta holds Response, the HTTP exchange that returned the value.
	mwallet.Meta
	// ID carries the kyc_ prefix.
	ID string `json:"id"`
	// HostedURL is the one-time link to give to the member. It is sensitive:
	// String and GoString hide it.
	HostedURL string `json:"hosted_url"`
	// ExpiresAt is when the link lapses (24 hours after issue); expires_at
	// in Unix seconds on the wire.
	ExpiresAt time.Time `json:"-"`
}

// UnmarshalJSON reads the ticket, expires_at from Unix seconds.
func (t *Ticket) UnmarshalJSON(b []byte) error {
	type plain Ticket
	w := struct {
		*plain
		ExpiresAt int64 `json:"expires_at"`
	}{plain: (*plain)(t)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	t.ExpiresAt = time.Time{}
	if w.ExpiresAt > 0 {
		t.ExpiresAt = time.Unix(w.ExpiresAt, 0).UTC()
	}
	return nil
}

// String hides the hosted URL.
func (t *Ticket) String() string {
	return fmt.Sprintf("kyc.Ticket{ID:%s HostedURL:[redacted] ExpiresAt:%s}", t.ID, t.ExpiresAt.Format(time.RFC3339))
}

// GoString hides the hosted URL.
func (t *Ticket) GoString() string { return t.String() }

// ProfileSession issues a hosted KYC screen for member, prefilled with the
// existing profile (POST /v1/kyc/profile-sessions, scope kyc:write). The member must already
// have a profile, otherwise the service answers 404 not_found. The screen is
// one-time and valid 24 hours. No body is sent; an idempotency key is.
func (c *Client) ProfileSession(ctx context.Context, member string, opts ...mwallet.CallOption) (*Ticket, error) {
	return mwallet.Call[Ticket](ctx, c.caller, &mwallet.Request{
		Method: http.MethodPost, Path: "/v1/kyc/profile-sessions", MemberScoped: true, Member: member,
		Idempotent: true, AcceptedStatus: []int{http.StatusCreated},
	}, opts...)
}

// ReviewStatus is the review state of a member's KYC profile (open
// enumeration).
type ReviewStatus string

// Known review statuses.
const (
	// ReviewNone: the member has no KYC profile.
	ReviewNone ReviewStatus = "none"
	// ReviewPending: submitted or updated, waiting for review (level is 0).
	ReviewPending ReviewStatus = "pending_review"
	// ReviewApproved: the level is in force.
	ReviewApproved ReviewStatus = "approved"
	// ReviewRejected: the review failed.
	ReviewRejected ReviewStatus = "rejected"
	// ReviewSupplementRequired: supplementary documents are requested.
	ReviewSupplementRequired ReviewStatus = "supplement_required"
)

// Known reports whether s is a known review status.
func (s ReviewStatus) Known() bool {
	switch s {
	case ReviewNone, ReviewPending, ReviewApproved, ReviewRejected, ReviewSupplementRequired:
		return true
	}
	return false
}

// State is a member's KYC state.
//
// The shape is inferred: the specification names GET /v1/kyc without showing
// its fields.
type State struct {
	// Meta holds Response, the HTTP exchange that returned the value.
	mwallet.Meta
	// MemberID is mem_<uuid>; the kyc event's data.id is its bare uuid.
	MemberID string `json:"member_id"`
	// ExternalMemberID is the merchant's identifier of the member.
	ExternalMemberID string `json:"external_member_id"`
	// Level is the verified level in force (0 while a profile is in review).
	Level int `json:"level"`
	// Status is the review state of the profile.
	Status ReviewStatus `json:"status"`
	// UpdatedAt is when the state last changed.
	UpdatedAt time.Time `json:"updated_at"`
}

// Get reads member's KYC state (GET /v1/kyc, scope kyc:read), for example after a
// kyc.result.updated event.
//
// The response shape is inferred: the specification names this endpoint
// without showing its fields.
func (c *Client) Get(ctx context.Context, member string, opts ...mwallet.CallOption) (*State, error) {
	return mwallet.Call[State](ctx, c.caller, &mwallet.Request{Method: http.MethodGet, Path: "/v1/kyc", MemberScoped: true, Member: member}, opts...)
}

// QuickBindingStatus is the status of a quick KYC binding (open enumeration).
type QuickBindingStatus string

// Known binding statuses: active, then compensated (no longer usable).
const (
	QuickBindingActive      QuickBindingStatus = "active"
	QuickBindingCompensated QuickBindingStatus = "compensated"
)

// Known reports whether s is a known binding status.
func (s QuickBindingStatus) Known() bool {
	return s == QuickBindingActive || s == QuickBindingCompensated
}

// MaxQuickBindings is the number of quick KYC profiles a member may hold.
const MaxQuickBindings = 5

// QuickBinding is a quick KYC profile bound to the merchant and a member. Use
// its ID as quick_kyc_binding_id on card invoices and applications.
//
// The shape is inferred: the specification describes the binding without
// showing its fields.
type QuickBinding struct {
	// Meta holds Response, the HTTP exchange that returned the value (nil
	// for list items).
	mwallet.Meta
	// ID identifies the binding (quick_kyc_binding_id).
	ID string `json:"id"`
	// Status is active, or compensated once no longer usable.
	Status QuickBindingStatus `json:"status"`
	// FeeAsset and FeeAmount are the usage fee charged at allocation.
	FeeAsset  string `json:"fee_asset"`
	FeeAmount string `json:"fee_amount"`
	// CreatedAt is the allocation time.
	CreatedAt time.Time `json:"created_at"`
}

// QuickBindings walks member's active quick KYC bindings (GET /v1/kyc/quick,
// scope kyc:read).
// A compensated binding no longer appears.
//
// The response shape is inferred: the specification names this endpoint
// without showing its fields; it is taken to be the list envelope of
// QuickBinding.
//
// To stop and resume later, walk QuickBindingPages instead.
func (c *Client) QuickBindings(ctx context.Context, member string, p mwallet.ListParams, opts ...mwallet.CallOption) iter.Seq2[QuickBinding, error] {
	return mwallet.Items(c.QuickBindingPages(ctx, member, p, opts...))
}

// QuickBindingPages walks the pages of QuickBindings: each page carries its
// bindings, the cursor of the next page and the Response. Keep a page's
// NextCursor and pass it as p.Cursor to resume after that page (see
// mwallet.Pages).
func (c *Client) QuickBindingPages(ctx context.Context, member string, p mwallet.ListParams, opts ...mwallet.CallOption) iter.Seq2[*mwallet.Page[QuickBinding], error] {
	return mwallet.Pages[QuickBinding](ctx, c.caller, mwallet.Request{Method: http.MethodGet, Path: "/v1/kyc/quick", MemberScoped: true, Member: member}, p, opts...)
}

// QuickBindingParams are the parameters of CreateQuickBinding.
type QuickBindingParams struct {
	// Email is required when the member has no genuine level-1 KYC; it must
	// never have been used for any KYC before.
	Email string `json:"email,omitempty"`
}

// CreateQuickBinding allocates a quick KYC profile to member. The usage fee
// (10 USDT) is charged on allocation: from the member's available balance on
// platform_hosted accounts, from the merchant prepaid account on
// merchant_hosted ones (quick_kyc_unpaid when not covered). At most 5 per
// member (quick_kyc_limit).
//
// The endpoint (POST /v1/kyc/quick, scope kyc:write) and its shape are inferred: the
// specification describes bindings and their error codes without showing how
// one is created outside a card application.
func (c *Client) CreateQuickBinding(ctx context.Context, member string, p QuickBindingParams, opts ...mwallet.CallOption) (*QuickBinding, error) {
	p.Email = strings.TrimSpace(p.Email)
	return mwallet.Call[QuickBinding](ctx, c.caller, &mwallet.Request{
		Method: http.MethodPost, Path: "/v1/kyc/quick", MemberScoped: true, Member: member,
		Body: p, Idempotent: true, AcceptedStatus: []int{http.StatusCreated}, Invalid: p.check(),
	}, opts...)
}

// check refuses an e-mail address that is not a plain one.
func (p QuickBindingParams) check() error {
	if p.Email != "" {
		if a, err := mail.ParseAddress(p.Email); err != nil || a.Address != p.Email {
			return &mwallet.ParamError{Param: "Email", Reason: "not a plain e-mail address", Code: mwallet.CodeInvalidFields}
		}
	}
	return nil
}
