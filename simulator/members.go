package simulator

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// registerMembers serves GET /v1/members/{id} and the member control actions.
// It is called from registerKYC, the member-facing product line.
func (s *Simulator) registerMembers() {
	s.register(endpoint{Method: http.MethodGet, Pattern: "/v1/members/{id}", Scope: "members:read", Handle: s.getMember})
	s.actions["members/status"] = func(tx *kernel.Tx, id string, body []byte) (any, error) {
		var in struct {
			Status string `json:"status"`
		}
		if err := decodeControl(body, &in); err != nil {
			return nil, err
		}
		m, err := s.setMemberStatus(tx, id, in.Status)
		if err != nil {
			return nil, err
		}
		return memberJSON(m), nil
	}
}

// memberByID finds a member by mem_<uuid> or bare uuid (REST ids); external
// ids are not member ids here.
func (s *Simulator) memberByID(id string) *member {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil
	}
	if !strings.HasPrefix(id, "mem_") {
		id = "mem_" + id
	}
	return s.members[id]
}

// memberByAnyID finds a member by mem_<uuid>, bare uuid or
// external_member_id; control actions accept all three.
func (s *Simulator) memberByAnyID(id string) *member {
	if m := s.memberByID(id); m != nil {
		return m
	}
	return s.membersByExt[strings.TrimSpace(id)]
}

// memberStatuses are the statuses a member may be given by the control API.
// suspended and blocklisted members are answered as member_not_found on every
// member-scoped call; banned and frozen members are found but refused by the
// operations that check them (request_rejected).
var memberStatuses = map[string]bool{"active": true, "suspended": true, "blocklisted": true, "banned": true, "frozen": true}

func memberJSON(m *member) map[string]any {
	return map[string]any{
		"id":                 m.ID,
		"external_member_id": m.ExternalID,
		"status":             m.Status,
		"kyc_level":          m.KYCLevel,
		"created_at":         m.CreatedAt.UTC().Format(time.RFC3339),
	}
}

// getMember answers GET /v1/members/{id}: mem_<uuid> (or the bare uuid).
// The response shape is inferred: the specification names this endpoint
// without showing its fields.
func (s *Simulator) getMember(c *rc) (int, any, error) {
	m := s.memberByID(c.PathID())
	if m == nil || (m.MerchantID != "" && m.MerchantID != s.merchant.ID) {
		// A member of another merchant is answered like an unknown id.
		return 0, nil, errNotFound("member")
	}
	return http.StatusOK, memberJSON(m), nil
}

// runSetMemberStatus sets a member's status (active, suspended, blocklisted,
// banned or frozen); id is mem_<uuid>, the bare uuid or the
// external_member_id. Moving into or out of suspended emits member.suspended.
func (s *Simulator) runSetMemberStatus(id, status string) error {
	tx := s.k.Begin()
	defer tx.End()
	_, err := s.setMemberStatus(tx, id, status)
	return err
}

func (s *Simulator) setMemberStatus(tx *kernel.Tx, id, status string) (*member, error) {
	m := s.memberByAnyID(id)
	if m == nil {
		return nil, errNotFound("member")
	}
	if !memberStatuses[status] {
		return nil, errInvalidRequest(fmt.Sprintf("status %q: want active, suspended, blocklisted, banned or frozen", status))
	}
	prev := m.Status
	m.Status = status
	if (prev == "suspended") != (status == "suspended") {
		s.emit(tx, "member.suspended", "member", strings.TrimPrefix(m.ID, "mem_"), m, status, 0, nil)
	}
	return m, nil
}
