// Package members reads the merchant's members.
//
// The member resource is named by the specification without its fields; the
// shape here (id, external_member_id, status, kyc_level, created_at) is
// inferred and kept conservative.
package members

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	mwallet "github.com/mwallet/mwallet-go"
)

// Client is the members client. mwclient.Client has one as its Members
// field; it shares the root client's tokens, signing, idempotency keys and
// retries.
type Client struct {
	caller *mwallet.Client
}

// New returns a members client that sends its calls through c, the root
// client. mwclient.New builds one for its Members field.
func New(c *mwallet.Client) *Client { return &Client{caller: c} }

// Status is a member's status (open enumeration).
type Status string

// Known member statuses: the spec names active and suspended, and the
// states that refuse deposits (banned, blocklisted, frozen).
const (
	StatusActive      Status = "active"
	StatusSuspended   Status = "suspended"
	StatusBlocklisted Status = "blocklisted"
	StatusBanned      Status = "banned"
	StatusFrozen      Status = "frozen"
)

// Known reports whether s is a known status.
func (s Status) Known() bool {
	switch s {
	case StatusActive, StatusSuspended, StatusBlocklisted, StatusBanned, StatusFrozen:
		return true
	}
	return false
}

// Member is a member of the merchant.
//
// The shape is inferred: the specification names the member resource without
// showing its fields.
type Member struct {
	// Meta holds Response, the HTTP exchange that returned the value.
	mwallet.Meta
	// ID is mem_<uuid>; member events carry the bare uuid.
	ID string `json:"id"`
	// ExternalMemberID is the merchant's own identifier of the member.
	ExternalMemberID string `json:"external_member_id"`
	// Status is active, suspended, blocklisted, banned or frozen (open
	// enumeration).
	Status Status `json:"status"`
	// KYCLevel is the verified KYC level in force.
	KYCLevel int `json:"kyc_level"`
	// CreatedAt is when the member was created.
	CreatedAt time.Time `json:"created_at"`
}

// ID returns the REST id (mem_<uuid>) of a member id given with or without
// its prefix, such as the bare uuid of a member event's data.id.
func ID(id string) string {
	id = strings.TrimSpace(id)
	if id == "" || strings.HasPrefix(id, "mem_") {
		return id
	}
	return "mem_" + id
}

// Get reads a member (GET /v1/members/{id}, scope members:read) by its service id, mem_<uuid> or
// the bare uuid. An external_member_id is not a member id: it is refused
// locally with a *mwallet.ParamError.
//
// The response shape is inferred: the specification names this endpoint
// without showing its fields.
func (c *Client) Get(ctx context.Context, id string, opts ...mwallet.CallOption) (*Member, error) {
	pid := ID(id)
	if _, err := uuid.Parse(strings.TrimPrefix(pid, "mem_")); err != nil || len(pid) != len("mem_")+36 {
		return nil, &mwallet.ParamError{Param: "id", Reason: "a member id is mem_<uuid> or the bare uuid; external_member_id is not accepted here", Code: mwallet.CodeNotFound}
	}
	return mwallet.Call[Member](ctx, c.caller, &mwallet.Request{Method: http.MethodGet, Path: "/v1/members/" + url.PathEscape(pid)}, opts...)
}
