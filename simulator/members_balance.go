package simulator

import (
	"errors"
	"fmt"

	"github.com/mwallet/mwallet-go/money"
)

// ErrUnknownMember is matched (errors.Is) by the error of a call that names
// a member the simulator does not have, by mem_ id, bare uuid or
// external_member_id.
var ErrUnknownMember = errors.New("member not found")

// Balance returns the available and locked balance in asset of the member
// id: its mem_ id, the bare uuid or its external_member_id. A member the
// simulator does not have is a *NameError matching ErrUnknownMember (a typo is
// never read as a zero balance); an asset outside the catalogue reads as
// zero. Control API: GET /_sim/members/{id} (balances).
//
//	available, locked, err := sim.Members.Balance("member-1", "USDT")
func (m *MembersControl) Balance(id, asset string) (available, locked money.Amount, err error) {
	if _, ok := m.Get(id); !ok {
		return money.Amount{}, money.Amount{}, &NameError{Kind: "member", Name: id, NotFound: true,
			err: fmt.Errorf("simulator: member %q: %w", id, ErrUnknownMember)}
	}
	available, locked = m.s.Balance(id, asset)
	return available, locked, nil
}
