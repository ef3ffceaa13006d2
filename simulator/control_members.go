package simulator

import (
	"errors"
	"github.com/mwallet/mwallet-go/simulator/internal/api"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/members"
)

// MembersControl creates members and changes their status (sim.Members).
// Control API: POST /_sim/members, GET /_sim/members/{id} and the member
// actions.
type MembersControl struct{ s *Simulator }

// Create creates a member of the merchant and returns its mem_ id.
func (m *MembersControl) Create(seed MemberSeed) (string, error) {
	in := seed.seedIn()
	mem, err := invoke[*member](m.s, memberOps.Create, &in)
	if err != nil {
		return "", err
	}
	return mem.ID, nil
}

// Get finds a member by mem_ id, bare uuid or external_member_id.
func (m *MembersControl) Get(id string) (MemberInfo, bool) {
	info, err := invoke[MemberInfo](m.s, memberOps.Get, &members.MemberRef{ID: id})
	return info, err == nil
}

// Balance returns the available and locked balance in asset of the member
// id: its mem_ id, the bare uuid or its external_member_id. A member the
// simulator does not have is a *NameError matching ErrUnknownMember (a typo is
// never read as a zero balance); an asset outside the catalogue reads as
// zero. Control API: GET /_sim/members/{id} (balances).
//
//	available, locked, err := sim.Members.Balance("member-1", "USDT")
func (m *MembersControl) Balance(id, asset string) (available, locked money.Amount, err error) {
	b, err := invoke[[2]money.Amount](m.s, memberOps.Balance, &members.MemberAsset{ID: id, Asset: asset})
	return b[0], b[1], err
}

// SetStatus sets a member's status (active, suspended, blocklisted,
// banned or frozen); id is mem_<uuid>, the bare uuid or the
// external_member_id. Moving into or out of suspended emits member.suspended.
func (m *MembersControl) SetStatus(id, status string) error {
	return m.s.wiring.ctl.perform(memberLineOps.SetStatus, &members.StatusIn{ID: id, Status: status})
}

// SetFundsProtection puts a member (mem_ id, bare uuid or
// external_member_id) in funds-protection mode or takes it out: card
// top-ups answer product_not_available (a top-up prerequisite), QR quotes
// carry blocked_reason funds_protected and QR payments answer 500 api_error
// ("card funds protected"). Control API: POST
// /_sim/members/{id}/funds_protection with {"enabled": true|false}.
func (m *MembersControl) SetFundsProtection(id string, on bool) error {
	return m.s.wiring.ctl.perform(memberLineOps.SetFundsProtection, &members.FlagIn{ID: id, Enabled: &on})
}

// checkAmounts refuses an amount its asset cannot hold (more decimals than
// its ledger scale), and checkAmount one amount of an asset, naming field
// (the catalogue's CheckAmounts and CheckAmount).
func checkAmounts(x *opRun, field string, amounts map[string]string) error {
	if x.Legacy {
		// Earlier builds left them to the line (a member's id was drawn
		// before a balance was refused).
		return nil
	}
	return invalidRequest(x.Sim.st.cat.CheckAmounts(field, amounts))
}

func checkAmount(x *opRun, field, asset, amount string) error {
	if x.Legacy {
		return nil
	}
	return invalidRequest(x.Sim.st.cat.CheckAmount(field, asset, amount))
}

// invalidRequest is err as an invalid_request with its message (nil for
// nil).
func invalidRequest(err error) error {
	if err != nil {
		return api.InvalidRequest(err.Error())
	}
	return nil
}

// memberOps are the ops on whole members, declared in the members line
// (internal/members): a creation takes the public MemberSeed and its
// balances are checked as every control amount is (checkAmounts); the
// line creates it, answering a refusal as an *apiError; a member's
// document, info and balances are the operator's view (devtools.Accounts),
// Get answers the public MemberInfo and Balance refuses the empty id with a
// *NameError.
var memberOps = members.NewMemberOps(membersAt, members.Views[*opRun]{
	Seed:     func(in members.SeedIn) any { return memberSeedOf(in) },
	Amounts:  checkAmounts,
	Document: func(x *opRun, m *member) map[string]any { return x.Sim.wiring.view.accounts().Document(x.Tx, m) },
	Info: func(x *opRun, id string) any {
		info, _ := x.Sim.wiring.view.accounts().Info(x.Tx, id)
		return MemberInfo(info)
	},
	Balance: func(x *opRun, id, asset string) [2]money.Amount {
		return x.Sim.wiring.view.accounts().Balance(x.Tx, id, asset)
	},
	Unknown: func(id string) error { return &NameError{Kind: "member", Name: id, NotFound: true, Field: "id"} },
})

// memberSeedOf is the public seed of a creation's input, and seedIn the
// input of a public seed (ExternalID is the input's ExternalMemberID).
func memberSeedOf(in members.SeedIn) MemberSeed {
	return MemberSeed{ExternalID: in.ExternalMemberID, KYCLevel: in.KYCLevel, Balances: in.Balances,
		Status: in.Status, PlatformDirect: in.PlatformDirect, MerchantID: in.MerchantID}
}

func (seed MemberSeed) seedIn() members.SeedIn {
	return members.SeedIn{ExternalMemberID: seed.ExternalID, KYCLevel: seed.KYCLevel,
		Balances: seed.Balances, Status: seed.Status, PlatformDirect: seed.PlatformDirect, MerchantID: seed.MerchantID}
}

// memberLineOps are the member actions that need only the members line
// and the transaction, declared in the line (internal/members).
var memberLineOps = members.NewControlOps(membersAt)

// membersOps declares the members' routes and methods.
var membersOps = []*op{
	memberOps.Create, memberOps.List, memberOps.Get, memberOps.Balance, memberLineOps.SetStatus, memberLineOps.SetFundsProtection,
}

// ErrUnknownMember is matched (errors.Is) by the error of a call that names
// a member the simulator does not have, by mem_ id, bare uuid or
// external_member_id.
var ErrUnknownMember = errors.New("member not found")

// membersAt is the members line and the transaction of a run.
func membersAt(x *opRun) (*members.Line, *kernel.Tx) { return &x.Sim.st.members, x.Tx }
