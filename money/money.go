// Package money holds Amount, an exact fixed-point decimal that carries the
// ledger_scale of its asset.
//
// The service sends every amount as a decimal string whose number of decimals
// is the asset's ledger_scale (see GET /v1/assets). An Amount is parsed with
// that scale and never passes through binary floating point: nothing in this
// package accepts or returns a float.
//
// # Parsing
//
// Parse accepts exactly the plain grammar
//
//	-?[0-9]+(\.[0-9]+)?
//
// and checks it itself before any arithmetic happens: exponents ("1e3"),
// plus signs ("+5"), leading or trailing dots ("5.", ".5"), spaces, NaN and
// Infinity are all ErrSyntax. More decimals than the scale are accepted only
// when every extra digit is zero ("1.2300" at scale 2 is 1.23); otherwise
// ErrPrecision. Parse never rounds, and "-0.00" is plain zero (an Amount is
// never negative zero). ParseNonNegative also refuses a minus sign, and
// ParseMinor reads integer strings counted in the smallest unit.
//
// Amounts of up to 38 digits (counting the scale's decimals, so any balance
// below 10^20 at scale 18) are parsed, printed, added, compared, rescaled
// and multiplied without allocating; larger ones, up to 80 digits, take a
// big-integer path.
//
// # Arithmetic
//
// Add and Sub are exact and require equal scales (ErrScale otherwise). Cmp
// compares values across scales; Equal also requires the same scale.
// Nothing rounds unless a method takes an explicit Rounding: MulRatio
// multiplies by an integer ratio such as basis points and rounds with the
// mode given, or fails with ErrPrecision under RoundExact. Results are
// limited to 80 digits (ErrRange beyond).
//
// # Text and JSON
//
// String and Append print exactly Scale decimals ("12.340000" at scale 6),
// never an exponent. JSON is a quoted string in both directions: a JSON
// number is refused when decoding, because it may have passed through a
// float on its way. A decoded Amount takes the scale printed in the string;
// check it against the asset's ledger_scale with Rescale.
//
// An Amount is a struct, so the `omitempty` JSON option never omits it. The
// `omitzero` option (Go 1.24 and later) calls Amount.IsZero and omits every
// zero amount, whatever its scale. A *Amount field with `omitempty` is
// omitted only when the pointer is nil.
//
// # Display
//
// The asset catalogue's display_scale only truncates what is shown (see
// Amount.Display, which truncates toward zero and never rounds). It must
// never be used to parse: parse with ledger_scale.
package money

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cockroachdb/apd/v3"
)

// MaxScale is the largest ledger_scale accepted (ETH-style assets use 18).
const MaxScale = 36

// maxDigits bounds the digits of one amount so hostile input cannot make
// arithmetic expensive. Every Amount has a coefficient below 10^maxDigits.
const maxDigits = 80

// Errors returned by this package. They are wrapped (in a *ParseError where
// an input string is involved), so test for them with errors.Is.
var (
	// ErrSyntax reports a string that is not a plain decimal: digits with an
	// optional leading minus and an optional fractional part.
	ErrSyntax = errors.New("money: not a plain decimal string")
	// ErrPrecision reports more non-zero decimals than the ledger scale, or a
	// result that cannot be represented at the scale without rounding.
	ErrPrecision = errors.New("money: more decimals than the ledger scale")
	// ErrScale reports an invalid scale or two amounts of different scales.
	ErrScale = errors.New("money: scale mismatch or out of range")
	// ErrRange reports an amount with more digits than this package accepts.
	ErrRange = errors.New("money: amount out of range")
	// ErrNegative reports a negative amount where only non-negative ones are valid.
	ErrNegative = errors.New("money: negative amount")
	// ErrArgument reports an invalid argument to an arithmetic method, such as
	// a non-positive denominator or an unknown Rounding.
	ErrArgument = errors.New("money: invalid argument")
)

// Amount is an exact decimal amount with a fixed scale (number of decimals).
// The zero value is 0 at scale 0. Amounts are immutable values: copy them
// freely and share them between goroutines. Compare them with Equal or Cmp,
// never with ==.
type Amount struct {
	// d is always finite with Exponent == -scale, a coefficient below
	// 10^maxDigits, and never negative zero. Its coefficient may be shared
	// between copies, so it is never modified in place once built.
	d     apd.Decimal
	scale int32
}

// Zero returns 0 at the given scale. A scale outside 0..MaxScale is clamped
// into that range.
func Zero(scale int) Amount {
	scale = max(0, min(scale, MaxScale))
	a := Amount{scale: int32(scale)}
	a.d.Exponent = -int32(scale)
	return a
}

// FromMinor returns units of the smallest unit at the given scale:
// FromMinor(1234, 2) is 12.34. It fails with ErrScale when scale is outside
// 0..MaxScale.
func FromMinor(units int64, scale int) (Amount, error) {
	if err := checkScale(scale); err != nil {
		return Amount{}, err
	}
	var a Amount
	a.scale = int32(scale)
	a.d.SetFinite(units, -int32(scale))
	return a, nil
}

func checkScale(scale int) error {
	if scale < 0 || scale > MaxScale {
		return fmt.Errorf("%w: scale %d is outside 0..%d", ErrScale, scale, MaxScale)
	}
	return nil
}

const (
	modeSigned parseMode = iota
	modeNonNegative
	modeMinor
)

// Big-integer fallbacks for values beyond 128 bits.

// Scale returns the number of decimals of a.
func (a Amount) Scale() int { return int(a.scale) }

// Sign returns -1, 0 or +1.
func (a Amount) Sign() int { return a.d.Sign() }

// IsZero reports whether a is zero, at any scale. The `omitzero` JSON option
// uses it.
func (a Amount) IsZero() bool { return a.d.IsZero() }

// IsNegative reports whether a is below zero.
func (a Amount) IsNegative() bool { return a.d.Sign() < 0 }

const (
	// RoundDown truncates toward zero.
	RoundDown Rounding = iota + 1
	// RoundUp rounds away from zero.
	RoundUp
	// RoundHalfUp rounds to nearest, ties away from zero.
	RoundHalfUp
	// RoundHalfEven rounds to nearest, ties to even (banker's rounding).
	RoundHalfEven
	// RoundExact refuses any rounding: MulRatio returns ErrPrecision instead.
	RoundExact
	// RoundFloor rounds toward negative infinity.
	RoundFloor
	// RoundCeiling rounds toward positive infinity.
	RoundCeiling
)

// Decimal returns a copy of a as an apd.Decimal for callers that need more
// arithmetic than this package offers. Changing it does not change a.
func (a Amount) Decimal() *apd.Decimal {
	var d apd.Decimal
	d.Set(&a.d)
	return &d
}

// compile-time checks of the interfaces Amount implements.
var (
	_ fmt.Stringer     = Amount{}
	_ fmt.Formatter    = Amount{}
	_ json.Marshaler   = Amount{}
	_ json.Unmarshaler = (*Amount)(nil)
)
