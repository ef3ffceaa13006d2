package simulator

import (
	"github.com/mwallet/mwallet-go/money"
	assetcat "github.com/mwallet/mwallet-go/simulator/internal/catalogue"
)

// Amounts: every amount string the simulator reads is parsed by the
// catalogue's one parser (internal/catalogue, amounts.go, which says the
// grammar and which answer each endpoint gives a refused amount):
// parseAmount at a given scale, catalogue.Amount at the ledger scale of a
// catalogue asset.

// amountForm is how an amount string is written (assetcat.Form).
type amountForm = assetcat.Form

// The amount forms.
const (
	decimalSigned      = assetcat.Signed
	decimalNonNegative = assetcat.NonNegative
	minorUnits         = assetcat.Minor
)

// parseAmount parses v in form at scale (assetcat.Parse).
func parseAmount(v string, scale int, form amountForm) (money.Amount, error) {
	return assetcat.Parse(v, scale, form)
}
