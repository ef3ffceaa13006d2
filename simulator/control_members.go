package simulator

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

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
	mem, err := invoke[*member](m.s, opMembersCreate, memberInOf(seed))
	if err != nil {
		return "", err
	}
	return mem.ID, nil
}

// Get finds a member by mem_ id, bare uuid or external_member_id.
func (m *MembersControl) Get(id string) (MemberInfo, bool) {
	info, err := invoke[MemberInfo](m.s, opMembersGet, &memberID{ID: id})
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
	b, err := invoke[[2]money.Amount](m.s, opMembersBalance, &memberAsset{ID: id, Asset: asset})
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

// memberID is the input of an op on one member (mem_ id, bare uuid or
// external_member_id).
type memberID struct {
	ID string `path:"id" json:"-" dom:"member"`
}

// memberAsset is the input of Members.Balance.
type memberAsset struct {
	ID    string `json:"id" dom:"member"`
	Asset string `json:"asset" dom:"name"`
}

// memberIn is the body of POST /_sim/members, the fields of a MemberSeed.
type memberIn struct {
	ExternalMemberID string            `json:"external_member_id" dom:"member_ref,req"`
	KYCLevel         int               `json:"kyc_level" dom:"kyc_level"`
	Balances         map[string]string `json:"balances" dom:"decimal,key=asset"`
	Status           string            `json:"status" dom:"member_status"`
	PlatformDirect   bool              `json:"platform_direct" dom:"boolean"`
	MerchantID       string            `json:"merchant_id" dom:"name"`
}

func memberInOf(seed MemberSeed) *memberIn {
	return &memberIn{ExternalMemberID: seed.ExternalID, KYCLevel: seed.KYCLevel, Balances: seed.Balances,
		Status: seed.Status, PlatformDirect: seed.PlatformDirect, MerchantID: seed.MerchantID}
}

func (in *memberIn) seed() MemberSeed {
	return MemberSeed{ExternalID: in.ExternalMemberID, KYCLevel: in.KYCLevel, Balances: in.Balances,
		Status: in.Status, PlatformDirect: in.PlatformDirect, MerchantID: in.MerchantID}
}

// rules: every balance is an amount of its asset (at most its ledger
// scale), checked before the member's id is drawn.
func (in *memberIn) rules(x *opRun) error {
	return checkAmounts(x, "balances", in.Balances)
}

// checkAmounts refuses an amount its asset cannot hold (more decimals than
// its ledger scale).
func checkAmounts(x *opRun, field string, amounts map[string]string) error {
	if x.legacy {
		// Earlier builds left them to the line (a member's id was drawn
		// before a balance was refused).
		return nil
	}
	codes := make([]string, 0, len(amounts))
	for c := range amounts {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	for _, c := range codes {
		if err := checkAmount(x, field+"."+c, c, amounts[c]); err != nil {
			return err
		}
	}
	return nil
}

// checkAmount refuses an amount of asset that the asset cannot hold, as
// checkAmounts does, naming field.
func checkAmount(x *opRun, field, asset, amount string) error {
	if x.legacy {
		return nil
	}
	if _, err := x.s.st.cat.Amount(strings.ToUpper(strings.TrimSpace(asset)), amount, decimalNonNegative); err != nil {
		return errInvalidRequest(fmt.Sprintf("%s: %v", field, err))
	}
	return nil
}

var (
	opMembersCreate = def[memberIn]{
		Route: "POST /_sim/members", Name: "Members.Create", Status: http.StatusCreated,
		Args: func(in *memberIn) []any { return []any{in.seed()} },
		Run: func(x *opRun, in *memberIn) (any, error) {
			return createMemberControl(x.tx, &x.s.st.members, in.seed())
		},
		Reply: func(x *opRun, _ *memberIn, out any) (int, any) {
			return http.StatusCreated, x.s.wiring.view.memberJSON(x.tx, out.(*member))
		},
	}.Op()
	opMembersGet = def[memberID]{Route: "GET /_sim/members/{id}", Name: "Members.Get", NoCall: true,
		Run: func(x *opRun, in *memberID) (any, error) {
			info, _ := x.s.wiring.view.memberInfo(x.tx, in.ID)
			return info, nil
		},
		Reply: func(x *opRun, in *memberID, _ any) (int, any) {
			return http.StatusOK, x.s.wiring.view.memberJSON(x.tx, x.s.st.members.ByAny(x.tx, in.ID))
		},
	}.Op()
	opMembersBalance = def[memberAsset]{Name: "Members.Balance", NoCall: true, Run: func(x *opRun, in *memberAsset) (any, error) {
		if in.ID == "" {
			return nil, &NameError{Kind: "member", Name: in.ID, NotFound: true, Field: "id"}
		}
		a, l := x.s.wiring.view.balance(x.tx, in.ID, in.Asset)
		return [2]money.Amount{a, l}, nil
	}}.Op()
)

// memberLineOps are the member actions that need only the members line
// and the transaction, declared in the line (internal/members).
var memberLineOps = members.NewControlOps(func(x *opRun) (*members.Line, *kernel.Tx) { return &x.s.st.members, x.tx })

// membersOps declares the members' routes and methods.
var membersOps = []*op{
	opMembersCreate,
	def[noInput]{Route: "GET /_sim/members", Run: func(x *opRun, _ *noInput) (any, error) {
		all := x.s.st.members.All(x.tx)
		out := make([]map[string]any, 0, len(all))
		for _, m := range all {
			out = append(out, x.s.wiring.view.memberJSON(x.tx, &m))
		}
		return controlList(out), nil
	}}.Op(),
	opMembersGet, opMembersBalance, memberLineOps.SetStatus, memberLineOps.SetFundsProtection,
}

// ErrUnknownMember is matched (errors.Is) by the error of a call that names
// a member the simulator does not have, by mem_ id, bare uuid or
// external_member_id.
var ErrUnknownMember = errors.New("member not found")
