package ledger

import (
	"fmt"
	"strings"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Hold is what one live object holds: Amount of Asset on the locked
// Account. Owner names the object ("<id> (<status>)").
type Hold struct {
	Owner   string
	Account string
	Asset   string
	Amount  money.Amount
}

// HoldAccount reports the accounts whose balance must equal the holds of
// their live objects: the merchant's prepaid locked account and every
// member's locked account.
func HoldAccount(account string) bool {
	return account == kernel.AccountMerchantPrepaidLocked || (strings.HasPrefix(account, "member:") && strings.HasSuffix(account, ":locked"))
}

// holdBook sums the holds the live objects claim, per account and asset, and
// remembers which objects claim them.
type holdBook struct {
	amounts map[string]map[string]money.Amount // account -> asset -> sum
	owners  map[string][]string                // account|asset -> object ids
	errs    []string
}

func (h *holdBook) add(account, asset string, amt money.Amount, owner string) {
	if amt.IsZero() {
		return
	}
	if h.amounts[account] == nil {
		h.amounts[account] = map[string]money.Amount{}
	}
	cur, ok := h.amounts[account][asset]
	if !ok {
		h.amounts[account][asset] = amt
	} else {
		sum, err := cur.Add(amt)
		if err != nil {
			h.errs = append(h.errs, fmt.Sprintf("%s: hold of %s %s at a foreign scale (%v)", owner, amt, asset, err))
			return
		}
		h.amounts[account][asset] = sum
	}
	k := account + "|" + asset
	h.owners[k] = append(h.owners[k], owner)
}

// HoldViolations checks that every hold account's balance equals, asset
// by asset, the sum of the holds of its live objects: no hold without a
// live object and no live object without its hold. It returns one sentence
// per account and asset that differs, and per hold that cannot be summed,
// in no particular order.
func (l *Books) HoldViolations(tx *kernel.Tx, holds []Hold) []string {
	h := &holdBook{amounts: map[string]map[string]money.Amount{}, owners: map[string][]string{}}
	for _, x := range holds {
		h.add(x.Account, x.Asset, x.Amount, x.Owner)
	}
	out := h.errs
	balances := l.Accounts(tx)
	accounts := map[string]bool{}
	for acct := range balances {
		if HoldAccount(acct) {
			accounts[acct] = true
		}
	}
	for acct := range h.amounts {
		accounts[acct] = true
	}
	for acct := range accounts {
		assets := map[string]bool{}
		for a := range balances[acct] {
			assets[a] = true
		}
		for a := range h.amounts[acct] {
			assets[a] = true
		}
		for asset := range assets {
			got := l.Balance(tx, acct, asset)
			want, ok := h.amounts[acct][asset]
			if !ok {
				want = money.Zero(got.Scale())
			}
			if got.Cmp(want) == 0 {
				continue
			}
			owners := h.owners[acct+"|"+asset]
			switch {
			case len(owners) == 0:
				out = append(out, fmt.Sprintf("%s holds %s %s but no live object holds anything there (a hold without a live order)", acct, got, asset))
			default:
				out = append(out, fmt.Sprintf("%s holds %s %s but its live objects hold %s (%s)", acct, got, asset, want, strings.Join(owners, ", ")))
			}
		}
	}
	return out
}
