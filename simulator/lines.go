package simulator

import (
	"fmt"
	"sort"
	"strings"
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

// membersHost is the members line's members.Host.
type membersHost struct{ s *Simulator }

func (h membersHost) MerchantID() string { return h.s.merchant.ID }

func (h membersHost) NewUUID() string { return h.s.newUUID() }

func (h membersHost) Now() time.Time { return h.s.clock.Now() }

// Seed parses every seed balance, then posts them in one entry.
func (h membersHost) Seed(_ *kernel.Tx, memberID string, balances map[string]string) error {
	s := h.s
	codes := make([]string, 0, len(balances))
	for code := range balances {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	var postings []Posting
	for _, code := range codes {
		asset := strings.ToUpper(strings.TrimSpace(code))
		amt, err := s.cat.amount(asset, balances[code], decimalSigned)
		if err != nil {
			return errInvalidRequest(fmt.Sprintf("balance %s: %v", code, err))
		}
		if amt.IsNegative() {
			return errInvalidRequest(fmt.Sprintf("balance %s: negative", code))
		}
		postings = append(postings,
			Posting{Account: AccountWorld, Asset: asset, Amount: amt.Neg()},
			Posting{Account: MemberAvailable(memberID), Asset: asset, Amount: amt})
	}
	if len(postings) > 0 {
		return s.ledger.Post(s.clock.Now(), "seed member balance", postings...)
	}
	return nil
}

func (h membersHost) Emit(tx *kernel.Tx, typ, object, id string, m *member, status string) {
	h.s.emit(tx, typ, object, id, m, status, 0, nil)
}
