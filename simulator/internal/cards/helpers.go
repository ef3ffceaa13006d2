package cards

import (
	"fmt"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// mustAmount parses a fixture constant of the card line (product fees,
// limits) at the asset's ledger scale: valid by construction, so an error
// is a bug in the simulator and panics (a handler answers it as api_error).
func mustAmount(tx *kernel.Tx, asset, v string) money.Amount {
	a, err := tx.Amount(asset, v)
	if err != nil {
		panic(fmt.Sprintf("simulator: fixture amount %s %q: %v", asset, v, err))
	}
	return a
}

// unknownAssetError is an amount of an asset outside the catalogue.
type unknownAssetError struct{ asset string }

func (e *unknownAssetError) Error() string { return fmt.Sprintf("unknown asset %q", e.asset) }

// nonNegAmount parses a request amount of a catalogue asset: a plain
// non-negative decimal at the asset's ledger scale.
func nonNegAmount(tx *kernel.Tx, asset, v string) (money.Amount, error) {
	sc, ok := tx.AssetScale(asset)
	if !ok {
		return money.Amount{}, &unknownAssetError{asset: asset}
	}
	return money.ParseNonNegative(v, sc)
}
