// Package money holds Amount, an exact fixed-point decimal that carries the
// ledger_scale of its asset.
//
// The service sends every amount as a decimal string whose number of decimals
// is the asset's ledger_scale (see GET /v1/assets). An Amount is parsed with
// that scale and never passes through binary floating point: Parse rejects
// exponents, signs where a plain number is expected, leading or trailing dots,
// NaN and Infinity, and more decimals than the scale unless every extra digit
// is zero. Nothing in this package rounds unless a method takes an explicit
// Rounding.
//
// display_scale only truncates what is shown (see Amount.Display); it is never
// used to parse.
package money

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/apd/v3"
)

// MaxScale is the largest ledger_scale accepted (ETH-style assets use 18).
const MaxScale = 36

// maxDigits bounds the digits of one amount so hostile input cannot make
// arithmetic expensive.
const maxDigits = 80

// Errors returned by this package. They are wrapped in a *ParseError where an
// input string is involved, so errors.Is works on the sentinel.
var (
	// ErrSyntax reports a string that is not a plain decimal: digits with an
	// optional leading minus and an optional fractional part.
	ErrSyntax = errors.New("money: not a plain decimal string")
	// ErrPrecision reports more non-zero decimals than the ledger scale.
	ErrPrecision = errors.New("money: more decimals than the ledger scale")
	// ErrScale reports an invalid scale or two amounts of different scales.
	ErrScale = errors.New("money: scale mismatch or out of range")
	// ErrRange reports an amount with more digits than this package accepts.
	ErrRange = errors.New("money: amount out of range")
	// ErrNegative reports a negative amount where only non-negative ones are valid.
	ErrNegative = errors.New("money: negative amount")
)

// ParseError describes a string that could not be parsed as an Amount. The
// input is kept because amounts are not secrets.
type ParseError struct {
	Input string
	Scale int
	Err   error
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("money: parse %q at scale %d: %v", e.Input, e.Scale, e.Err)
}

// Unwrap returns the sentinel error.
func (e *ParseError) Unwrap() error { return e.Err }

// Amount is an exact decimal amount with a fixed scale (number of decimals).
// The zero value is 0 at scale 0. Amounts are values: copy them freely. Compare
// with Equal or Cmp, never with ==.
type Amount struct {
	d     apd.Decimal // always finite, Exponent == -scale, never negative zero
	scale int32
}

// Zero returns 0 at the given scale.
func Zero(scale int) Amount {
	a := Amount{scale: int32(scale)}
	a.d.Exponent = -int32(scale)
	return a
}

// FromMinor returns units of the smallest unit at the given scale: FromMinor(1234, 2)
// is 12.34.
func FromMinor(units int64, scale int) (Amount, error) {
	if scale < 0 || scale > MaxScale {
		return Amount{}, ErrScale
	}
	var a Amount
	a.scale = int32(scale)
	a.d.SetFinite(units, -int32(scale))
	return a, nil
}

// Parse parses s, a plain decimal string such as "12.5" or "-0.000001", at the
// given ledger scale. More decimals than scale are accepted only when all the
// extra digits are zero ("1.2300" at scale 2 is 1.23); otherwise ErrPrecision.
// The result always has exactly scale decimals. Parse never rounds.
func Parse(s string, scale int) (Amount, error) {
	a, err := parse(s, scale, true)
	if err != nil {
		return Amount{}, &ParseError{Input: s, Scale: scale, Err: err}
	}
	return a, nil
}

// ParseNonNegative is Parse that also rejects negative amounts.
func ParseNonNegative(s string, scale int) (Amount, error) {
	a, err := parse(s, scale, false)
	if err != nil {
		return Amount{}, &ParseError{Input: s, Scale: scale, Err: err}
	}
	return a, nil
}

// ParseMinor parses an integer string counted in the smallest unit of a
// currency, as card transactions send them ("1234" with scale 2 is 12.34).
func ParseMinor(s string, scale int) (Amount, error) {
	if scale < 0 || scale > MaxScale {
		return Amount{}, &ParseError{Input: s, Scale: scale, Err: ErrScale}
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return Amount{}, &ParseError{Input: s, Scale: scale, Err: ErrSyntax}
		}
	}
	a, err := parse(s, 0, true)
	if err != nil {
		return Amount{}, &ParseError{Input: s, Scale: scale, Err: err}
	}
	a.scale = int32(scale)
	a.d.Exponent = -int32(scale)
	return a, nil
}

// MustParse is Parse that panics on error. Use it only for constants in tests
// and examples.
func MustParse(s string, scale int) Amount {
	a, err := Parse(s, scale)
	if err != nil {
		panic(err)
	}
	return a
}

func parse(s string, scale int, allowNeg bool) (Amount, error) {
	if scale < 0 || scale > MaxScale {
		return Amount{}, ErrScale
	}
	i := 0
	neg := false
	if len(s) > 0 && s[0] == '-' {
		if !allowNeg {
			return Amount{}, ErrNegative
		}
		neg = true
		i = 1
	}
	// Integer part: at least one digit.
	intStart := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intEnd := i
	if intEnd == intStart {
		return Amount{}, ErrSyntax
	}
	fracStart, fracEnd := i, i
	if i < len(s) {
		if s[i] != '.' {
			return Amount{}, ErrSyntax
		}
		i++
		fracStart = i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		fracEnd = i
		if fracEnd == fracStart || i != len(s) {
			return Amount{}, ErrSyntax
		}
	}
	// Extra decimals must be zeros.
	fracLen := fracEnd - fracStart
	if fracLen > scale {
		for j := fracStart + scale; j < fracEnd; j++ {
			if s[j] != '0' {
				return Amount{}, ErrPrecision
			}
		}
		fracEnd = fracStart + scale
		fracLen = scale
	}
	// Skip leading zeros of the integer part for the digit count.
	for intStart < intEnd-1 && s[intStart] == '0' {
		intStart++
	}
	nd := (intEnd - intStart) + scale
	if nd > maxDigits {
		return Amount{}, ErrRange
	}
	var a Amount
	a.scale = int32(scale)
	if nd <= 18 {
		// Fast path: the coefficient fits in int64.
		var c int64
		for j := intStart; j < intEnd; j++ {
			c = c*10 + int64(s[j]-'0')
		}
		for j := fracStart; j < fracEnd; j++ {
			c = c*10 + int64(s[j]-'0')
		}
		for j := fracLen; j < scale; j++ {
			c *= 10
		}
		a.d.SetFinite(c, -int32(scale))
		a.d.Negative = neg && c != 0
		return a, nil
	}
	buf := make([]byte, 0, nd)
	buf = append(buf, s[intStart:intEnd]...)
	buf = append(buf, s[fracStart:fracEnd]...)
	for j := fracLen; j < scale; j++ {
		buf = append(buf, '0')
	}
	if _, ok := a.d.Coeff.SetString(string(buf), 10); !ok {
		return Amount{}, ErrSyntax
	}
	a.d.Exponent = -int32(scale)
	a.d.Negative = neg && a.d.Coeff.Sign() != 0
	return a, nil
}

// Scale returns the number of decimals of a.
func (a Amount) Scale() int { return int(a.scale) }

// Sign returns -1, 0 or +1.
func (a Amount) Sign() int { return a.d.Sign() }

// IsZero reports whether a is zero.
func (a Amount) IsZero() bool { return a.d.IsZero() }

// IsNegative reports whether a is below zero.
func (a Amount) IsNegative() bool { return a.d.Sign() < 0 }

// String returns a with exactly Scale decimals, for example "12.340000".
func (a Amount) String() string {
	var buf [48]byte
	return string(a.Append(buf[:0]))
}

// Append appends the text of a (as String) to buf and returns the result. It
// does not allocate when buf has room.
func (a Amount) Append(buf []byte) []byte {
	if a.d.Coeff.IsInt64() {
		return appendFixed(buf, a.d.Coeff.Int64(), a.d.Negative, int(a.scale))
	}
	d := a.d
	if d.Exponent == 0 && a.scale != 0 {
		d.Exponent = -a.scale
	}
	return d.Append(buf, 'f')
}

func appendFixed(buf []byte, c int64, neg bool, scale int) []byte {
	var tmp [24]byte
	i := len(tmp)
	for c > 0 {
		i--
		tmp[i] = byte('0' + c%10)
		c /= 10
	}
	digits := tmp[i:]
	if neg {
		buf = append(buf, '-')
	}
	if len(digits) <= scale {
		buf = append(buf, '0')
		if scale > 0 {
			buf = append(buf, '.')
			for j := len(digits); j < scale; j++ {
				buf = append(buf, '0')
			}
			buf = append(buf, digits...)
		}
		return buf
	}
	buf = append(buf, digits[:len(digits)-scale]...)
	if scale > 0 {
		buf = append(buf, '.')
		buf = append(buf, digits[len(digits)-scale:]...)
	}
	return buf
}

// Display returns a truncated (never rounded) to displayScale decimals, for
// showing to people. Never parse the result back.
func (a Amount) Display(displayScale int) string {
	s := a.String()
	if displayScale < 0 || displayScale >= int(a.scale) {
		return s
	}
	cut := len(s) - (int(a.scale) - displayScale)
	if displayScale == 0 {
		cut-- // drop the dot too
	}
	out := s[:cut]
	if out == "-0" || (len(out) > 1 && out[0] == '-' && isAllZero(out[1:])) {
		out = out[1:]
	}
	return out
}

func isAllZero(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '0' && s[i] != '.' {
			return false
		}
	}
	return true
}

// Rescale returns a at another scale. Growing the scale is always exact;
// shrinking it is allowed only when the dropped digits are zero (ErrPrecision
// otherwise).
func (a Amount) Rescale(scale int) (Amount, error) {
	if scale < 0 || scale > MaxScale {
		return Amount{}, ErrScale
	}
	if int32(scale) == a.scale {
		return a, nil
	}
	var out Amount
	out.scale = int32(scale)
	if _, err := exactCtx.Quantize(&out.d, &a.d, -int32(scale)); err != nil {
		return Amount{}, ErrRange
	}
	if a.d.Cmp(&out.d) != 0 {
		return Amount{}, ErrPrecision
	}
	out.d.Negative = out.d.Negative && !out.d.IsZero()
	return out, nil
}

var exactCtx = apd.Context{Precision: maxDigits + MaxScale, MaxExponent: apd.MaxExponent, MinExponent: apd.MinExponent, Traps: apd.DefaultTraps}

func sameScale(a, b Amount) error {
	if a.scale != b.scale {
		return fmt.Errorf("%w: %d and %d", ErrScale, a.scale, b.scale)
	}
	return nil
}

// Add returns a+b. Both must have the same scale.
func (a Amount) Add(b Amount) (Amount, error) {
	if err := sameScale(a, b); err != nil {
		return Amount{}, err
	}
	out := Amount{scale: a.scale}
	if _, err := exactCtx.Add(&out.d, &a.d, &b.d); err != nil {
		return Amount{}, ErrRange
	}
	out.normalize()
	return out, nil
}

// Sub returns a-b. Both must have the same scale.
func (a Amount) Sub(b Amount) (Amount, error) {
	if err := sameScale(a, b); err != nil {
		return Amount{}, err
	}
	out := Amount{scale: a.scale}
	if _, err := exactCtx.Sub(&out.d, &a.d, &b.d); err != nil {
		return Amount{}, ErrRange
	}
	out.normalize()
	return out, nil
}

// Neg returns -a.
func (a Amount) Neg() Amount {
	out := Amount{scale: a.scale}
	out.d.Set(&a.d)
	out.d.Negative = !a.d.Negative && !a.d.IsZero()
	return out
}

// normalize keeps the exponent at -scale and removes negative zero.
func (a *Amount) normalize() {
	if a.d.Exponent != -a.scale {
		var q apd.Decimal
		_, _ = exactCtx.Quantize(&q, &a.d, -a.scale)
		a.d.Set(&q)
	}
	if a.d.IsZero() {
		a.d.Negative = false
	}
}

// Cmp compares a and b by value (scales may differ): -1 if a < b, 0 if equal,
// +1 if a > b.
func (a Amount) Cmp(b Amount) int { return a.d.Cmp(&b.d) }

// Equal reports whether a and b are the same value at the same scale. Use it
// as a go-cmp Comparer: cmp.Comparer(money.Amount.Equal).
func (a Amount) Equal(b Amount) bool { return a.scale == b.scale && a.d.Cmp(&b.d) == 0 }

// Rounding selects how MulRatio rounds a result that does not fit the scale.
type Rounding int

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
)

// MulRatio returns a × num / den at a's scale, rounded with mode. Basis points
// are MulRatio(bps, 10000, mode). den must be positive.
func (a Amount) MulRatio(num, den int64, mode Rounding) (Amount, error) {
	if den <= 0 {
		return Amount{}, fmt.Errorf("money: MulRatio denominator %d must be positive", den)
	}
	if mode < RoundDown || mode > RoundExact {
		return Amount{}, fmt.Errorf("money: unknown rounding mode %d", mode)
	}
	var n, q, r, d apd.BigInt
	n.SetInt64(num)
	d.SetInt64(den)
	n.Mul(&n, &a.d.Coeff) // coefficient is non-negative
	neg := a.d.Negative != (num < 0)
	if num < 0 {
		n.Neg(&n)
	}
	q.QuoRem(&n, &d, &r)
	if r.Sign() != 0 {
		var twice apd.BigInt
		twice.Mul(&r, apd.NewBigInt(2))
		half := twice.Cmp(&d) // -1 below half, 0 half, +1 above
		up := false
		switch mode {
		case RoundExact:
			return Amount{}, ErrPrecision
		case RoundDown:
		case RoundUp:
			up = true
		case RoundHalfUp:
			up = half >= 0
		case RoundHalfEven:
			up = half > 0 || (half == 0 && q.Bit(0) == 1)
		}
		if up {
			q.Add(&q, apd.NewBigInt(1))
		}
	}
	out := Amount{scale: a.scale}
	out.d.Coeff.Set(&q)
	out.d.Exponent = -a.scale
	out.d.Negative = neg && q.Sign() != 0
	if out.d.NumDigits() > maxDigits {
		return Amount{}, ErrRange
	}
	return out, nil
}

// Minor returns a in the smallest unit as an integer string ("12.34" at
// scale 2 gives "1234"), the form card transactions use.
func (a Amount) Minor() string {
	d := a.d
	d.Exponent = 0
	return d.Text('f')
}

// MarshalJSON writes a as a JSON string such as "12.340000".
func (a Amount) MarshalJSON() ([]byte, error) {
	buf := make([]byte, 0, 32)
	buf = append(buf, '"')
	buf = a.Append(buf)
	buf = append(buf, '"')
	return buf, nil
}

// UnmarshalJSON reads a JSON string. Numbers are rejected: the service sends
// amounts as strings, and a JSON number would have passed through a float
// somewhere. The scale is the number of decimals printed; callers that know the
// asset's ledger_scale check it with Rescale.
func (a *Amount) UnmarshalJSON(b []byte) error {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return &ParseError{Input: string(b), Scale: -1, Err: fmt.Errorf("%w: amounts are JSON strings", ErrSyntax)}
	}
	s := string(b[1 : len(b)-1])
	scale := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			scale = len(s) - i - 1
			break
		}
	}
	if scale > MaxScale {
		return &ParseError{Input: s, Scale: scale, Err: ErrScale}
	}
	v, err := Parse(s, scale)
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// Decimal returns a copy of a as an apd.Decimal for callers that need more
// arithmetic than this package offers.
func (a Amount) Decimal() *apd.Decimal {
	var d apd.Decimal
	d.Set(&a.d)
	return &d
}
