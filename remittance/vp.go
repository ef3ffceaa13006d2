package remittance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
)

// MaxVPQueryMembers is the largest batch of QueryVPApplications.
const MaxVPQueryMembers = 100

// VPApplication is a member's VP application as returned by the batch query.
type VPApplication struct {
	// ID identifies the application.
	ID string `json:"id"`
	// Status is the application status (open enumeration, for example approved).
	Status string `json:"status"`
	// ReviewedAt is when the application was reviewed; zero when not
	// reviewed yet (reviewed_at, RFC 3339 or empty, on the wire).
	ReviewedAt time.Time `json:"-"`
	// CreatedAt is when the application was made.
	CreatedAt time.Time `json:"created_at"`
}

// UnmarshalJSON reads the application; an empty or null reviewed_at is a
// zero ReviewedAt.
func (a *VPApplication) UnmarshalJSON(b []byte) error {
	type plain VPApplication
	w := struct {
		*plain
		ReviewedAt *string `json:"reviewed_at"`
	}{plain: (*plain)(a)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	a.ReviewedAt = time.Time{}
	if w.ReviewedAt == nil || strings.TrimSpace(*w.ReviewedAt) == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(*w.ReviewedAt))
	if err != nil {
		return fmt.Errorf("remittance: reviewed_at %q is not an RFC 3339 time", *w.ReviewedAt)
	}
	a.ReviewedAt = t
	return nil
}

// VPQueryItem is one answer of QueryVPApplications, in request order.
type VPQueryItem struct {
	// Query echoes the identifier sent.
	Query string `json:"query"`
	// MemberID (mem_<uuid>) and ExternalMemberID identify the member found.
	MemberID         string `json:"member_id,omitempty"`
	ExternalMemberID string `json:"external_member_id,omitempty"`
	// Application is nil when the member has none (or on error).
	Application *VPApplication `json:"application"`
	// Stage is the application stage (open enumeration).
	Stage string `json:"stage,omitempty"`
	// Error is set (member_not_found) when the member is unknown or foreign;
	// the other items of the batch are unaffected.
	Error mwallet.Code `json:"error,omitempty"`
}

// VPQueryResult is the answer of QueryVPApplications.
type VPQueryResult struct {
	// Meta holds Response, the HTTP exchange that returned the value.
	mwallet.Meta
	// Items answer the request identifiers one for one, in order.
	Items []VPQueryItem `json:"items"`
}

// QueryVPApplications reads the VP applications of 1 to 100 members of the
// merchant (POST /v1/remit/vp/applications/query, scope remittances:read;
// merchant-scoped, no
// x-on-behalf-of). Identifiers may mix external_member_id and mem_<uuid>.
// Items come back in request order; an unknown or foreign member yields an
// item with Error member_not_found and no application.
//
// It is a read: no idempotency key is sent.
func (c *Client) QueryVPApplications(ctx context.Context, members []string, opts ...mwallet.CallOption) (*VPQueryResult, error) {
	if len(members) == 0 || len(members) > MaxVPQueryMembers {
		return nil, &mwallet.ParamError{Param: "members", Reason: fmt.Sprintf("%d members given; send 1 to %d", len(members), MaxVPQueryMembers), Code: mwallet.CodeInvalidRequest}
	}
	for i, m := range members {
		if strings.TrimSpace(m) == "" {
			return nil, &mwallet.ParamError{Param: fmt.Sprintf("members[%d]", i), Reason: "empty member identifier", Code: mwallet.CodeInvalidRequest}
		}
	}
	return mwallet.Call[VPQueryResult](ctx, c.caller, &mwallet.Request{
		Method: http.MethodPost, Path: "/v1/remit/vp/applications/query",
		Body: map[string][]string{"members": members},
	}, opts...)
}
