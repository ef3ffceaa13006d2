package simulator

import assetcat "github.com/mwallet/mwallet-go/simulator/internal/catalogue"

// Amounts: every amount string the simulator reads is parsed by the
// catalogue's one parser (internal/catalogue, amounts.go, which says the
// grammar and which answer each endpoint gives a refused amount):
// assetcat.Parse at a given scale, catalogue.Amount at the ledger scale of
// a catalogue asset, in one of these forms.
const (
	decimalSigned      = assetcat.Signed
	decimalNonNegative = assetcat.NonNegative
	minorUnits         = assetcat.Minor
)
