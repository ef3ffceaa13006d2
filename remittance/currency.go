package remittance

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/money"
)

// MaxPayoutAmountLen is the longest payout_amount the service accepts, in
// characters ("at most 32 chars"). A valid amount is ASCII, so characters and
// bytes agree on it; counting characters keeps the length message for
// amounts that are too long, and the syntax message for any other.
const MaxPayoutAmountLen = 32

// minorUnits is the ISO 4217 number of minor units of active currencies.
var minorUnits = map[string]int{
	// Zero decimals.
	"BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0,
	"PYG": 0, "RWF": 0, "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
	// Three decimals.
	"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
	// Four decimals.
	"CLF": 4, "UYW": 4,
	// Two decimals.
	"AED": 2, "AFN": 2, "ALL": 2, "AMD": 2, "ANG": 2, "AOA": 2, "ARS": 2, "AUD": 2, "AWG": 2, "AZN": 2,
	"BAM": 2, "BBD": 2, "BDT": 2, "BGN": 2, "BMD": 2, "BND": 2, "BOB": 2, "BRL": 2, "BSD": 2, "BTN": 2,
	"BWP": 2, "BYN": 2, "BZD": 2, "CAD": 2, "CDF": 2, "CHF": 2, "CNY": 2, "COP": 2, "CRC": 2, "CUP": 2,
	"CVE": 2, "CZK": 2, "DKK": 2, "DOP": 2, "DZD": 2, "EGP": 2, "ERN": 2, "ETB": 2, "EUR": 2, "FJD": 2,
	"FKP": 2, "GBP": 2, "GEL": 2, "GHS": 2, "GIP": 2, "GMD": 2, "GTQ": 2, "GYD": 2, "HKD": 2, "HNL": 2,
	"HTG": 2, "HUF": 2, "IDR": 2, "ILS": 2, "INR": 2, "IRR": 2, "JMD": 2, "KES": 2, "KGS": 2, "KHR": 2,
	"KPW": 2, "KYD": 2, "KZT": 2, "LAK": 2, "LBP": 2, "LKR": 2, "LRD": 2, "LSL": 2, "MAD": 2, "MDL": 2,
	"MGA": 2, "MKD": 2, "MMK": 2, "MNT": 2, "MOP": 2, "MRU": 2, "MUR": 2, "MVR": 2, "MWK": 2, "MXN": 2,
	"MYR": 2, "MZN": 2, "NAD": 2, "NGN": 2, "NIO": 2, "NOK": 2, "NPR": 2, "NZD": 2, "PAB": 2, "PEN": 2,
	"PGK": 2, "PHP": 2, "PKR": 2, "PLN": 2, "QAR": 2, "RON": 2, "RSD": 2, "RUB": 2, "SAR": 2, "SBD": 2,
	"SCR": 2, "SDG": 2, "SEK": 2, "SGD": 2, "SHP": 2, "SLE": 2, "SOS": 2, "SRD": 2, "SSP": 2, "STN": 2,
	"SVC": 2, "SYP": 2, "SZL": 2, "THB": 2, "TJS": 2, "TMT": 2, "TOP": 2, "TRY": 2, "TTD": 2, "TWD": 2,
	"TZS": 2, "UAH": 2, "USD": 2, "UYU": 2, "UZS": 2, "VES": 2, "WST": 2, "XCD": 2, "YER": 2, "ZAR": 2,
	"ZMW": 2, "ZWG": 2,
}

// MinorUnits returns the ISO 4217 number of decimals of currency (an
// alphabetic code such as "GBP"; case-insensitive) and whether the currency is
// in the table.
func MinorUnits(currency string) (int, bool) {
	n, ok := minorUnits[strings.ToUpper(strings.TrimSpace(currency))]
	return n, ok
}

// ErrPayoutPrecision reports a payout amount whose decimals differ from the
// currency's minor units.
var ErrPayoutPrecision = errors.New("remittance: payout amount precision differs from the currency's minor units")

// ParsePayout parses a payout amount of currency at the currency's precision.
// It accepts the exact form only ("10.50" GBP, "1000" JPY): the service
// rejects any other number of decimals.
func ParsePayout(currency, amount string) (money.Amount, error) {
	units, ok := MinorUnits(currency)
	if !ok {
		return money.Amount{}, fmt.Errorf("remittance: unknown currency %q", currency)
	}
	if err := checkPayout(amount, units); err != nil {
		return money.Amount{}, err
	}
	return money.ParseNonNegative(amount, units)
}

// NormalizePayout returns amount written with exactly the minor units of
// currency: "10.5" GBP gives "10.50", "1000.00" JPY gives "1000". It never
// rounds: "10.505" GBP is an error.
func NormalizePayout(currency, amount string) (string, error) {
	units, ok := MinorUnits(currency)
	if !ok {
		return "", fmt.Errorf("remittance: unknown currency %q", currency)
	}
	a, err := money.ParseNonNegative(strings.TrimSpace(amount), units)
	if err != nil {
		return "", fmt.Errorf("remittance: payout amount for %s: %w", strings.ToUpper(currency), err)
	}
	return a.String(), nil
}

// checkPayout verifies that s is a plain positive decimal with exactly units
// decimals.
func checkPayout(s string, units int) error {
	if utf8.RuneCountInString(s) > MaxPayoutAmountLen {
		return fmt.Errorf("remittance: payout amount longer than %d characters", MaxPayoutAmountLen)
	}
	a, err := money.ParseNonNegative(s, units)
	if err != nil {
		return err
	}
	if a.IsZero() {
		return errors.New("remittance: payout amount must be greater than zero")
	}
	dec := 0
	if i := strings.IndexByte(s, '.'); i >= 0 {
		dec = len(s) - i - 1
	}
	if dec != units {
		return fmt.Errorf("%w: %q has %d decimals, the currency has %d", ErrPayoutPrecision, s, dec, units)
	}
	return nil
}

// validatePayout is the client-side check of payout_amount for Create and
// Quote. Without the payee's currency the precision cannot be known: the
// amount is then sent as given and the service checks it.
func validatePayout(currency, amount string) error {
	if amount == "" {
		return &mwallet.ParamError{Param: "PayoutAmount", Reason: "required", Code: mwallet.CodeInvalidRequest}
	}
	if strings.TrimSpace(currency) == "" {
		return nil
	}
	units, ok := MinorUnits(currency)
	if !ok {
		return &mwallet.ParamError{Param: "PayoutCurrency", Reason: fmt.Sprintf("%q is not an ISO 4217 currency code", currency), Code: mwallet.CodeInvalidRequest}
	}
	if amount == "" {
		return &mwallet.ParamError{Param: "PayoutAmount", Reason: "required", Code: mwallet.CodeInvalidRequest}
	}
	if err := checkPayout(amount, units); err != nil {
		return &mwallet.ParamError{Param: "PayoutAmount", Reason: err.Error(), Code: mwallet.CodeInvalidRequest}
	}
	return nil
}
