package simulator

import (
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/deposits"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The product lines that have their own package under internal/, and the
// hosts through which each reaches the rest of the simulator: a line
// declares what it needs (its Host interface) and the simulator answers
// it here, so that no line touches another's state.

// registerDeposits builds the deposits line and registers its endpoints.
func (s *Simulator) registerDeposits() {
	s.deposits = deposits.New(depositsHost{s})
	for _, e := range s.deposits.Endpoints() {
		s.register(e)
	}
}

// depositsHost is the deposits line's deposits.Host.
type depositsHost struct{ s *Simulator }

func (h depositsHost) MerchantID(*kernel.Tx) string { return h.s.merchant.ID }

func (h depositsHost) PlatformHosted(*kernel.Tx) bool { return h.s.merchant.Model == PlatformHosted }

func (h depositsHost) AssetAllowed(_ *kernel.Tx, code string) bool {
	return h.s.cat.allowed(code, h.s.merchant.AssetAllowlist)
}

func (h depositsHost) AssetScale(code string) (int, bool) { return h.s.cat.scale(code) }

func (h depositsHost) Amount(asset, v string) (money.Amount, error) {
	return h.s.cat.amount(asset, v, decimalSigned)
}

func (h depositsHost) Credit(_ *kernel.Tx, at time.Time, memo, asset string, amt money.Amount, memberID string) error {
	return h.s.ledger.Transfer(at, memo, asset, amt, AccountMerchantCustody, MemberAvailable(memberID))
}

func (h depositsHost) Emit(tx *kernel.Tx, typ, object, id string, m *member, status string) {
	h.s.emit(tx, typ, object, id, m, status, 0, nil)
}
