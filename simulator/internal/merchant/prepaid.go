package merchant

import (
	"strings"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The merchant prepaid account, which funds merchant-funded remittances.

// Host is what the merchant line needs of another line, beyond what every
// transaction gives (kernel.Tx: the clock, the ledger, the catalogue).
// Every method runs in the caller's transaction.
type Host interface {
	// AdvanceQueued advances the remittances waiting for merchant funds.
	AdvanceQueued(tx *kernel.Tx)
}

// TopUpPrepaid credits the merchant prepaid account from outside money
// with amount of asset and advances the remittances waiting for it.
func (l *Line) TopUpPrepaid(tx *kernel.Tx, asset, amount string) error {
	asset = strings.ToUpper(strings.TrimSpace(asset))
	amt, err := tx.Amount(asset, amount)
	if err != nil || amt.Sign() <= 0 {
		return api.InvalidRequest("asset and a positive amount at its ledger scale are required")
	}
	if err := tx.Transfer(tx.Now(), "merchant prepaid top-up", asset, amt, kernel.AccountWorld, kernel.AccountMerchantPrepaid); err != nil {
		return err
	}
	l.host.AdvanceQueued(tx)
	return nil
}

// WithdrawPrepaid takes amount of asset out of the merchant prepaid
// account ("" takes the whole available prepaid balance), for example to
// play a merchant whose prepaid cannot fund a remittance.
func (l *Line) WithdrawPrepaid(tx *kernel.Tx, asset, amount string) error {
	asset = strings.ToUpper(strings.TrimSpace(asset))
	if _, ok := tx.AssetScale(asset); !ok {
		return api.InvalidRequest("unknown asset " + asset)
	}
	amt, _ := l.Prepaid(tx, asset)
	if amount != "" {
		v, err := tx.Amount(asset, amount)
		if err != nil || v.Sign() <= 0 {
			return api.InvalidRequest("a positive amount at the asset's ledger scale is required")
		}
		amt = v
	}
	return tx.Transfer(tx.Now(), "merchant prepaid withdrawal", asset, amt, kernel.AccountMerchantPrepaid, kernel.AccountWorld)
}

// Prepaid is the available and locked balance of asset (any case) in the
// merchant prepaid account.
func (l *Line) Prepaid(tx *kernel.Tx, asset string) (available, locked money.Amount) {
	asset = strings.ToUpper(asset)
	return tx.Balance(kernel.AccountMerchantPrepaid, asset), tx.Balance(kernel.AccountMerchantPrepaidLocked, asset)
}

// JSON is the merchant as the operator API renders it (GET and POST
// /_sim/merchant): its settings and, per catalogue asset, its prepaid
// balances.
func (l *Line) JSON(tx *kernel.Tx) map[string]any {
	prepaid := map[string]any{}
	for _, a := range tx.Assets() {
		available, locked := l.Prepaid(tx, a.Code)
		prepaid[a.Code] = map[string]string{"available": available.String(), "locked": locked.String()}
	}
	out := l.Fields(tx)
	out["prepaid"] = prepaid
	return out
}
