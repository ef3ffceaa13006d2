package catalogue

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mwallet/mwallet-go/money"
)

// Amounts: every amount string the simulator reads (a request field, a
// control-API argument, a fixture or table constant) is parsed here, by
// Parse or, for an amount of a catalogue asset, Catalogue.Amount.
//
// The grammar is money's plain decimal: digits, optionally a '.' and at
// least one more digit ("12", "12.5", "0.000001"). No '+', no exponent
// ("1e3"), no spaces, no thousands separators, no leading or trailing '.';
// a leading '-' only where the form allows it. The result is at exactly the
// scale asked for: fewer decimals are padded, extra decimals are accepted
// only when they are all zero ("1.2300" at scale 2 is 1.23), and nothing
// is ever rounded. Errors are *money.ParseError (ErrSyntax, ErrPrecision,
// ErrNegative, ErrRange, ErrScale), or *UnknownAssetError from
// Catalogue.Amount.
//
// Zero and negative values the grammar lets through are each caller's
// rule, and so is the answer to a refused amount, because the contract
// gives each endpoint its own:
//
//   - POST /v1/deposits amount (ledger scale): invalid_request, and
//     invalid_request "greater than zero" for zero or less;
//   - card applications first_topup and card top-ups amount (ledger scale,
//     NonNegative): invalid_fields naming the field, or
//     product_not_available for a source asset outside the catalogue;
//   - POST /v1/remittances payout_amount (the currency's minor units,
//     NonNegative, exactly that many decimals): invalid_request;
//   - QR payment amounts (api.FiatAmount: the currency's minor units,
//     NonNegative, at most 16 characters, above zero):
//     invalid_request for a request's amount, qr_code_invalid for the
//     amount a code carries;
//   - card network transactions (control API, Minor): the amount as
//     the network sends it, in cents;
//   - control API prepaid top-up, withdrawal, settled_amount, merchant
//     prepaid and member seed balances (ledger scale): invalid_request;
//   - fixture and table constants (ledger scale): valid by construction.

// Form is how an amount string is written.
type Form uint8

const (
	// Signed is a plain decimal; a leading '-' is allowed.
	Signed Form = iota
	// NonNegative is a plain decimal without sign: a leading '-' is
	// ErrNegative, even on zero ("-0").
	NonNegative
	// Minor is an integer count of the scale's smallest unit ("1234" at
	// scale 2 is 12.34); no '.', a leading '-' allowed.
	Minor
)

// Parse parses v in form at scale (0..money.MaxScale). It is the one
// amount parser of the simulator.
func Parse(v string, scale int, form Form) (money.Amount, error) {
	switch form {
	case NonNegative:
		return money.ParseNonNegative(v, scale)
	case Minor:
		return money.ParseMinor(v, scale)
	default:
		return money.Parse(v, scale)
	}
}

// UnknownAssetError is an amount of an asset outside the catalogue.
type UnknownAssetError struct{ Asset string }

func (e *UnknownAssetError) Error() string { return fmt.Sprintf("unknown asset %q", e.Asset) }

// Amount parses v in form at the ledger scale of the catalogue asset code.
func (c *Catalogue) Amount(code, v string, form Form) (money.Amount, error) {
	sc, ok := c.Scale(code)
	if !ok {
		return money.Amount{}, &UnknownAssetError{Asset: code}
	}
	return Parse(v, sc, form)
}

// CheckAmounts refuses an amount its asset cannot hold (more decimals
// than its ledger scale, a negative one, an asset outside the catalogue),
// the amounts keyed by asset code and checked in the codes' order; the
// error names field.code.
func (c *Catalogue) CheckAmounts(field string, amounts map[string]string) error {
	codes := make([]string, 0, len(amounts))
	for code := range amounts {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	for _, code := range codes {
		if err := c.CheckAmount(field+"."+code, code, amounts[code]); err != nil {
			return err
		}
	}
	return nil
}

// CheckAmount refuses an amount of asset (its code in any case, spaces
// around it ignored) that the asset cannot hold, as CheckAmounts does,
// naming field.
func (c *Catalogue) CheckAmount(field, asset, amount string) error {
	if _, err := c.Amount(strings.ToUpper(strings.TrimSpace(asset)), amount, NonNegative); err != nil {
		return fmt.Errorf("%s: %v", field, err)
	}
	return nil
}
