package merchant

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Settings is an operator's change of the merchant (POST /_sim/merchant,
// sim.Merchant.Set). Empty strings and nil fields leave the setting as it
// is; a non-nil empty AssetAllowlist removes the allowlist.
type Settings struct {
	Model          string
	Status         string
	Env            string
	FeeRateBps     *int64
	AssetAllowlist []string
	// Prepaid sets prepaid available balances exactly (asset code to
	// decimal string); the difference is posted against the world account.
	Prepaid map[string]string
}

// Set changes the merchant as ms says, or answers invalid_request and
// changes nothing. The remittances waiting for merchant funds advance when
// the prepaid balances are set or the merchant becomes active.
func (l *Line) Set(tx *kernel.Tx, ms Settings) error {
	change := Change{Model: ms.Model, Status: ms.Status, Env: ms.Env, FeeRateBps: ms.FeeRateBps}
	if err := change.Validate(); err != nil {
		return api.InvalidRequest(err.Error())
	}
	var allow map[string]bool
	if ms.AssetAllowlist != nil {
		allow = map[string]bool{}
		for _, a := range ms.AssetAllowlist {
			code := strings.ToUpper(strings.TrimSpace(a))
			if _, ok := tx.AssetScale(code); !ok {
				return api.InvalidRequest(fmt.Sprintf("asset_allowlist: unknown asset %q", a))
			}
			allow[code] = true
		}
	}
	type move struct {
		asset string
		diff  money.Amount
	}
	var moves []move
	for code, v := range ms.Prepaid {
		code = strings.ToUpper(strings.TrimSpace(code))
		want, err := tx.Amount(code, v)
		if err != nil {
			return api.InvalidRequest(fmt.Sprintf("prepaid %s: %v", code, err))
		}
		if want.IsNegative() {
			return api.InvalidRequest(fmt.Sprintf("prepaid %s: negative", code))
		}
		have, _ := l.Prepaid(tx, code)
		diff, err := want.Sub(have)
		if err != nil {
			return api.InvalidRequest(fmt.Sprintf("prepaid %s: %v", code, err))
		}
		moves = append(moves, move{code, diff})
	}
	if len(moves) > 0 {
		sort.Slice(moves, func(i, j int) bool { return moves[i].asset < moves[j].asset })
		var postings []kernel.Posting
		for _, m := range moves {
			if m.diff.IsZero() {
				continue
			}
			postings = append(postings,
				kernel.Posting{Account: kernel.AccountMerchantPrepaid, Asset: m.asset, Amount: m.diff},
				kernel.Posting{Account: kernel.AccountWorld, Asset: m.asset, Amount: m.diff.Neg()})
		}
		if len(postings) > 0 {
			if err := tx.Post(tx.Now(), "operator: set merchant prepaid", postings...); err != nil {
				return err
			}
		}
	}
	change.AssetAllowlist = allow
	l.Apply(tx, change)
	if len(moves) > 0 || ms.Status == StatusActive {
		l.host.AdvanceQueued(tx) // remittances waiting for merchant funds advance
	}
	return nil
}
