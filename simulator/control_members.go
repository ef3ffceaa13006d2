package simulator

import (
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// MembersControl creates members and changes their status (sim.Members).
// Control API: POST /_sim/members, GET /_sim/members/{id} and the member
// actions.
type MembersControl struct{ s *Simulator }

// Create creates a member of the merchant and returns its mem_ id.
func (m *MembersControl) Create(seed MemberSeed) (string, error) {
	return call2(m.s, ctlMembersCreate, func() (string, error) {
		id, err := inTx1(m.s, func(tx *kernel.Tx) (string, error) {
			mem, err := createMemberControl(tx, &m.s.st.members, seed)
			if err != nil {
				return "", err
			}
			return mem.ID, nil
		})
		if seed.Status != "" {
			err = badName("member status", seed.Status, memberStatusNames, err)
		}
		return id, err
	}, seed)
}

// createMemberCall is POST /_sim/members, the HTTP entry of Create: it
// answers 201 with the member.
func createMemberCall(s *Simulator, _ *http.Request, body []byte) (string, []any, controlRun, error) {
	var in struct {
		ExternalMemberID string            `json:"external_member_id"`
		KYCLevel         int               `json:"kyc_level"`
		Balances         map[string]string `json:"balances"`
		Status           string            `json:"status"`
		PlatformDirect   bool              `json:"platform_direct"`
		MerchantID       string            `json:"merchant_id"`
	}
	if err := decodeControl(body, &in); err != nil {
		return "", nil, nil, err
	}
	seed := MemberSeed{
		ExternalID: in.ExternalMemberID, KYCLevel: in.KYCLevel, Balances: in.Balances,
		Status: in.Status, PlatformDirect: in.PlatformDirect, MerchantID: in.MerchantID,
	}
	return "", []any{seed}, func(tx *kernel.Tx) (int, any, error) {
		m, err := createMemberControl(tx, &s.st.members, seed)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusCreated, s.wiring.view.memberJSON(m), nil
	}, nil
}

// Get finds a member by mem_ id, bare uuid or external_member_id.
func (m *MembersControl) Get(id string) (MemberInfo, bool) {
	tx := m.s.k.Begin()
	defer tx.End()
	return m.s.wiring.view.memberInfo(tx, id)
}

// SetStatus sets a member's status (active, suspended, blocklisted,
// banned or frozen); id is mem_<uuid>, the bare uuid or the
// external_member_id. Moving into or out of suspended emits member.suspended.
func (m *MembersControl) SetStatus(id, status string) error {
	return call1(m.s, ctlMembersSetStatus, func() error {
		return badName("member status", status, memberStatusNames, unknownID("member", id, inTx(m.s, func(tx *kernel.Tx) error { _, err := m.s.st.members.SetStatus(tx, id, status); return err })))
	}, id, status)
}

// SetFundsProtection puts a member (mem_ id, bare uuid or
// external_member_id) in funds-protection mode or takes it out: card
// top-ups answer product_not_available (a top-up prerequisite), QR quotes
// carry blocked_reason funds_protected and QR payments answer 500 api_error
// ("card funds protected"). Control API: POST
// /_sim/members/{id}/funds_protection with {"enabled": true|false}.
func (m *MembersControl) SetFundsProtection(id string, on bool) error {
	return call1(m.s, ctlMembersSetFundsProtection, func() error {
		return unknownID("member", id, inTx(m.s, func(*kernel.Tx) error {
			mem, err := m.s.wiring.ctl.memberOf(id)
			if err != nil {
				return err
			}
			mem.FundsProtected = on
			return nil
		}))
	}, id, on)
}

// The names the Members control methods record their calls under, each declared
// once and used by its method and by membersControls.
const (
	ctlMembersCreate             = "Members.Create"
	ctlMembersSetStatus          = "Members.SetStatus"
	ctlMembersSetFundsProtection = "Members.SetFundsProtection"
)

// membersControls declares the members control methods and the routes that call them
// (control_decl.go), the routes in their registration order. Create is
// declared with its route among the core routes (control.go), where it
// registers.
var membersControls = []controlDecl{
	{
		name: ctlMembersSetFundsProtection, bind: func(s *Simulator) any { return s.Members.SetFundsProtection },
		route: "POST /_sim/members/{id}/funds_protection",
		call: func(s *Simulator, r *http.Request, body []byte) (int, any, error) {
			on, err := decodeBool(body, "enabled")
			if err != nil {
				return 0, nil, err
			}
			if err := s.Members.SetFundsProtection(r.PathValue("id"), on); err != nil {
				return 0, nil, notFoundIf(err)
			}
			return http.StatusOK, map[string]any{"member": r.PathValue("id"), "funds_protection": on}, nil
		},
	},
	{name: "Members.Get", noCall: true, bind: func(s *Simulator) any { return s.Members.Get }},
	{name: ctlMembersSetStatus, bind: func(s *Simulator) any { return s.Members.SetStatus }},
	{name: "Members.Balance", noCall: true, bind: func(s *Simulator) any { return s.Members.Balance }},
}
