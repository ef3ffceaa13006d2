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
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"

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

// maxInputShown bounds how much of a rejected input ParseError.Error prints.
const maxInputShown = 64

// ParseError describes a string that could not be parsed as an Amount. The
// input is kept because amounts are not secrets; Error prints at most its
// first 64 bytes.
type ParseError struct {
	// Input is the string as given.
	Input string
	// Scale is the scale asked for, or -1 when none was (a JSON value that
	// is not a string).
	Scale int
	// Err is one of the package's sentinel errors, possibly wrapped.
	Err error
}

// Error describes the failure, for example
// `money: cannot parse "1.234" at scale 2: more decimals than the ledger scale`.
func (e *ParseError) Error() string {
	in := e.Input
	if len(in) > maxInputShown {
		in = in[:maxInputShown] + "..."
	}
	reason := "invalid"
	if e.Err != nil {
		reason = strings.TrimPrefix(e.Err.Error(), "money: ")
	}
	if e.Scale < 0 {
		return fmt.Sprintf("money: cannot parse %q: %s", in, reason)
	}
	return fmt.Sprintf("money: cannot parse %q at scale %d: %s", in, e.Scale, reason)
}

// Unwrap returns the underlying error, one of the package's sentinels.
func (e *ParseError) Unwrap() error { return e.Err }

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

// Parse parses s, a plain decimal string such as "12.5" or "-0.000001", at the
// given ledger scale (0..MaxScale). More decimals than scale are accepted only
// when all the extra digits are zero ("1.2300" at scale 2 is 1.23); otherwise
// ErrPrecision. The result always has exactly scale decimals. Parse never
// rounds. Errors are *ParseError wrapping ErrSyntax, ErrPrecision, ErrScale or
// ErrRange.
func Parse(s string, scale int) (Amount, error) {
	a, err := parse(s, scale, modeSigned)
	if err != nil {
		return Amount{}, &ParseError{Input: s, Scale: scale, Err: err}
	}
	return a, nil
}

// ParseNonNegative is Parse that also rejects a leading minus sign with
// ErrNegative, even on zero ("-0"). ErrSyntax and ErrScale take precedence
// over ErrNegative, which takes precedence over ErrPrecision and ErrRange.
func ParseNonNegative(s string, scale int) (Amount, error) {
	a, err := parse(s, scale, modeNonNegative)
	if err != nil {
		return Amount{}, &ParseError{Input: s, Scale: scale, Err: err}
	}
	return a, nil
}

// ParseMinor parses an integer string counted in the smallest unit of a
// currency, as card transactions send them: "1234" with scale 2 is 12.34.
// The grammar is -?[0-9]+ (no decimal point).
func ParseMinor(s string, scale int) (Amount, error) {
	a, err := parse(s, scale, modeMinor)
	if err != nil {
		return Amount{}, &ParseError{Input: s, Scale: scale, Err: err}
	}
	return a, nil
}

// MustParse is Parse that panics on error. Use it only for constants in tests
// and examples, never on input.
func MustParse(s string, scale int) Amount {
	a, err := Parse(s, scale)
	if err != nil {
		panic(err)
	}
	return a
}

type parseMode uint8

const (
	modeSigned parseMode = iota
	modeNonNegative
	modeMinor
)

// pow10u holds 10^i for i in 0..19.
var pow10u = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// parse is the one parser behind Parse, ParseNonNegative and ParseMinor. It
// validates the grammar and accumulates the coefficient in one pass; inputs
// with more than 19 digits (after leading zeros, counting scale decimals)
// take parseWide.
func parse(s string, scale int, mode parseMode) (Amount, error) {
	if uint(scale) > MaxScale {
		return Amount{}, fmt.Errorf("%w: scale %d is outside 0..%d", ErrScale, scale, MaxScale)
	}
	fracScale := scale // decimals the string may carry
	if mode == modeMinor {
		fracScale = 0
	}
	i := 0
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg = true
		i = 1
	}
	var v uint64
	sig := 0 // significant integer digits seen so far
	intStart := i
	for ; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			break
		}
		if sig > 0 || c != 0 {
			sig++
			v = v*10 + uint64(c) // wraps when sig > 19; parseWide redoes it
		}
	}
	intEnd := i
	if intEnd == intStart {
		return Amount{}, ErrSyntax
	}
	fracStart, fracEnd := i, i
	if i < len(s) {
		if s[i] != '.' || mode == modeMinor {
			return Amount{}, ErrSyntax
		}
		i++
		fracStart = i
		for ; i < len(s); i++ {
			c := s[i] - '0'
			if c > 9 {
				return Amount{}, ErrSyntax
			}
			if i-fracStart < fracScale {
				v = v*10 + uint64(c)
			} else if c != 0 {
				// Keep scanning: a syntax error later wins over precision.
				for i++; i < len(s); i++ {
					if s[i]-'0' > 9 {
						return Amount{}, ErrSyntax
					}
				}
				if neg && mode == modeNonNegative {
					return Amount{}, ErrNegative
				}
				return Amount{}, ErrPrecision
			}
		}
		fracEnd = i
		if fracEnd == fracStart {
			return Amount{}, ErrSyntax
		}
	}
	if neg && mode == modeNonNegative {
		return Amount{}, ErrNegative
	}
	nd := sig + fracScale
	if nd > maxDigits {
		return Amount{}, ErrRange
	}
	if nd > 19 {
		return parseWide(s, intEnd-sig, intEnd, fracStart, fracEnd, fracScale, scale, neg)
	}
	if used := fracEnd - fracStart; used < fracScale {
		v *= pow10u[fracScale-used]
	}
	var a Amount
	a.scale = int32(scale)
	a.d.Exponent = -int32(scale)
	a.d.Coeff.SetUint64(v)
	a.d.Negative = neg && v != 0
	return a, nil
}

// parseWide builds the coefficient of an already validated string with more
// than 19 digits: in 128 bits when it fits (no allocation), else as a big
// integer. s[intStart:intEnd] is the integer part without leading zeros,
// s[fracStart:fracEnd] the decimals, of which at most fracScale are used.
func parseWide(s string, intStart, intEnd, fracStart, fracEnd, fracScale, scale int, neg bool) (Amount, error) {
	if fracEnd-fracStart > fracScale {
		fracEnd = fracStart + fracScale
	}
	pad := fracScale - (fracEnd - fracStart)
	nd := intEnd - intStart + fracScale
	var a Amount
	a.scale = int32(scale)
	a.d.Exponent = -int32(scale)
	if nd <= 38 {
		var m u128
		for j := intStart; j < intEnd; j++ {
			m = m.mul10add(uint64(s[j] - '0'))
		}
		for j := fracStart; j < fracEnd; j++ {
			m = m.mul10add(uint64(s[j] - '0'))
		}
		for ; pad > 0; pad-- {
			m = m.mul10add(0)
		}
		a.setMag(m)
	} else {
		buf := make([]byte, 0, nd)
		buf = append(buf, s[intStart:intEnd]...)
		buf = append(buf, s[fracStart:fracEnd]...)
		for ; pad > 0; pad-- {
			buf = append(buf, '0')
		}
		if _, ok := a.d.Coeff.SetString(string(buf), 10); !ok {
			return Amount{}, ErrSyntax
		}
	}
	a.d.Negative = neg && a.d.Coeff.Sign() != 0
	return a, nil
}

// u128 is an unsigned 128-bit integer, the magnitude of most amounts.
type u128 struct{ hi, lo uint64 }

func (m u128) mul10add(d uint64) u128 {
	h, l := bits.Mul64(m.lo, 10)
	l, c := bits.Add64(l, d, 0)
	return u128{hi: m.hi*10 + h + c, lo: l}
}

// mul64 returns m*x and whether it overflowed.
func (m u128) mul64(x uint64) (u128, bool) {
	h, l := bits.Mul64(m.lo, x)
	hh, hl := bits.Mul64(m.hi, x)
	hi, c := bits.Add64(hl, h, 0)
	return u128{hi: hi, lo: l}, hh != 0 || c != 0
}

// div64 returns m/x and m%x; x must not be zero.
func (m u128) div64(x uint64) (u128, uint64) {
	qh, r := m.hi/x, m.hi%x
	ql, r := bits.Div64(r, m.lo, x)
	return u128{hi: qh, lo: ql}, r
}

func (m u128) add(x u128) (u128, bool) {
	lo, c := bits.Add64(m.lo, x.lo, 0)
	hi, c := bits.Add64(m.hi, x.hi, c)
	return u128{hi: hi, lo: lo}, c != 0
}

// sub returns m-x; m must be >= x.
func (m u128) sub(x u128) u128 {
	lo, b := bits.Sub64(m.lo, x.lo, 0)
	hi, _ := bits.Sub64(m.hi, x.hi, b)
	return u128{hi: hi, lo: lo}
}

func (m u128) cmp(x u128) int {
	switch {
	case m.hi < x.hi:
		return -1
	case m.hi > x.hi:
		return 1
	case m.lo < x.lo:
		return -1
	case m.lo > x.lo:
		return 1
	}
	return 0
}

// mulPow10 returns m*10^k and whether it overflowed.
func (m u128) mulPow10(k int) (u128, bool) {
	for k > 0 {
		step := min(k, 19)
		var over bool
		if m, over = m.mul64(pow10u[step]); over {
			return m, true
		}
		k -= step
	}
	return m, false
}

// divPow10 returns m/10^k and whether the division was exact.
func (m u128) divPow10(k int) (u128, bool) {
	exact := true
	for k > 0 {
		step := min(k, 19)
		var r uint64
		m, r = m.div64(pow10u[step])
		exact = exact && r == 0
		k -= step
	}
	return m, exact
}

// mag returns the magnitude of a when it fits in 128 bits.
func (a *Amount) mag() (u128, bool) {
	if a.d.Coeff.IsUint64() {
		return u128{lo: a.d.Coeff.Uint64()}, true
	}
	w := a.d.Coeff.Bits()
	if len(w) > 128/bits.UintSize {
		return u128{}, false
	}
	var m u128
	for i, x := range w {
		shift := uint(i * bits.UintSize)
		if shift < 64 {
			m.lo |= uint64(x) << shift
		} else {
			m.hi |= uint64(x) << (shift - 64)
		}
	}
	return m, true
}

// setMag sets the coefficient of a freshly built a to m without allocating.
func (a *Amount) setMag(m u128) {
	if m.hi == 0 {
		a.d.Coeff.SetUint64(m.lo)
		return
	}
	var b [16]byte
	for i := 0; i < 8; i++ {
		b[i] = byte(m.hi >> (56 - 8*i))
		b[8+i] = byte(m.lo >> (56 - 8*i))
	}
	a.d.Coeff.SetBytes(b[:])
}

// fromMag returns the amount with magnitude m, sign neg and the given scale.
func fromMag(m u128, neg bool, scale int32) Amount {
	a := Amount{scale: scale}
	a.d.Exponent = -scale
	a.setMag(m)
	a.d.Negative = neg && (m.hi|m.lo) != 0
	return a
}

// Big-integer fallbacks for values beyond 128 bits.

// pow10Big holds 10^i for i in 0..maxDigits; index maxDigits is the bound
// every coefficient stays below.
var pow10Big = func() (p [maxDigits + 1]apd.BigInt) {
	p[0].SetInt64(1)
	ten := apd.NewBigInt(10)
	for i := 1; i <= maxDigits; i++ {
		p[i].Mul(&p[i-1], ten)
	}
	return p
}()

// signed sets z to the signed coefficient of a.
func (a *Amount) signed(z *apd.BigInt) *apd.BigInt {
	z.Set(&a.d.Coeff)
	if a.d.Negative {
		z.Neg(z)
	}
	return z
}

// fromSigned returns the amount with signed coefficient z at scale, or
// ErrRange when z has more than maxDigits digits.
func fromSigned(z *apd.BigInt, scale int32) (Amount, error) {
	if z.CmpAbs(&pow10Big[maxDigits]) >= 0 {
		return Amount{}, fmt.Errorf("%w: result has more than %d digits", ErrRange, maxDigits)
	}
	a := Amount{scale: scale}
	a.d.Exponent = -scale
	a.d.Coeff.Abs(z)
	// apd can carry a negative sign on a zero BigInt, so test the magnitude.
	a.d.Negative = z.Sign() < 0 && a.d.Coeff.Sign() != 0
	return a, nil
}

// Scale returns the number of decimals of a.
func (a Amount) Scale() int { return int(a.scale) }

// Sign returns -1, 0 or +1.
func (a Amount) Sign() int { return a.d.Sign() }

// IsZero reports whether a is zero, at any scale. The `omitzero` JSON option
// uses it.
func (a Amount) IsZero() bool { return a.d.IsZero() }

// IsNegative reports whether a is below zero.
func (a Amount) IsNegative() bool { return a.d.Sign() < 0 }

// String returns a with exactly Scale decimals and no exponent, for example
// "12.340000" or "-0.00000001".
func (a Amount) String() string {
	var buf [48]byte
	return string(a.Append(buf[:0]))
}

// Append appends the text of a (as String) to buf and returns the extended
// buffer. It does not allocate when buf has room.
func (a Amount) Append(buf []byte) []byte {
	return a.appendScaled(buf, int(a.scale))
}

// appendScaled appends the coefficient with its sign and a decimal point
// placed scale digits from the right.
func (a *Amount) appendScaled(buf []byte, scale int) []byte {
	if m, ok := a.mag(); ok {
		var tmp [40]byte
		return appendDigits(buf, fmtU128(&tmp, m), a.d.Negative, scale)
	}
	digits := a.d.Coeff.Append(nil, 10)
	return appendDigits(buf, digits, a.d.Negative, scale)
}

// fmtU128 writes the decimal digits of m at the end of tmp and returns them.
func fmtU128(tmp *[40]byte, m u128) []byte {
	i := len(tmp)
	for m.hi != 0 {
		var r uint64
		m, r = m.div64(pow10u[19])
		for k := 0; k < 19; k++ {
			i--
			tmp[i] = byte('0' + r%10)
			r /= 10
		}
	}
	v := m.lo
	for v >= 10 {
		i--
		tmp[i] = byte('0' + v%10)
		v /= 10
	}
	i--
	tmp[i] = byte('0' + v)
	return tmp[i:]
}

// appendDigits appends digits (no leading zeros, "0" for zero) as a fixed
// point number with scale decimals.
func appendDigits(buf, digits []byte, neg bool, scale int) []byte {
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

// Display returns a truncated toward zero (never rounded) to displayScale
// decimals, for showing to people: 12.345678 with displayScale 2 is "12.34"
// and -0.001 is "0.00". A displayScale at or above Scale, or negative, gives
// String unchanged. The result is for display only: never parse it back, and
// never parse with a display scale.
func (a Amount) Display(displayScale int) string {
	if displayScale < 0 || displayScale >= int(a.scale) {
		return a.String()
	}
	var buf [48]byte
	b := a.Append(buf[:0])
	cut := len(b) - (int(a.scale) - displayScale)
	if displayScale == 0 {
		cut-- // drop the dot too
	}
	b = b[:cut]
	if b[0] == '-' && isAllZero(b[1:]) {
		b = b[1:]
	}
	return string(b)
}

func isAllZero(b []byte) bool {
	for _, c := range b {
		if c != '0' && c != '.' {
			return false
		}
	}
	return true
}

// Rescale returns a at another scale. Growing the scale is always exact
// (ErrRange if the result would exceed the digit limit); shrinking it is
// allowed only when the dropped digits are zero (ErrPrecision otherwise).
// ErrScale reports a scale outside 0..MaxScale.
func (a Amount) Rescale(scale int) (Amount, error) {
	if err := checkScale(scale); err != nil {
		return Amount{}, err
	}
	to := int32(scale)
	if to == a.scale {
		return a, nil
	}
	if m, ok := a.mag(); ok {
		if to > a.scale {
			if r, over := m.mulPow10(int(to - a.scale)); !over {
				return fromMag(r, a.d.Negative, to), nil
			}
		} else {
			r, exact := m.divPow10(int(a.scale - to))
			if !exact {
				return Amount{}, fmt.Errorf("%w: %s does not fit scale %d", ErrPrecision, a, scale)
			}
			return fromMag(r, a.d.Negative, to), nil
		}
	}
	var z apd.BigInt
	a.signed(&z)
	if to > a.scale {
		z.Mul(&z, &pow10Big[to-a.scale])
		return fromSigned(&z, to)
	}
	var r apd.BigInt
	z.QuoRem(&z, &pow10Big[a.scale-to], &r)
	if r.Sign() != 0 {
		return Amount{}, fmt.Errorf("%w: %s does not fit scale %d", ErrPrecision, a, scale)
	}
	return fromSigned(&z, to)
}

// scaleMismatch reports two amounts of different scales.
func scaleMismatch(a, b int32) error {
	return fmt.Errorf("%w: %d and %d", ErrScale, a, b)
}

// Add returns a+b exactly. Both must have the same scale (ErrScale).
func (a Amount) Add(b Amount) (Amount, error) {
	if a.scale != b.scale {
		return Amount{}, scaleMismatch(a.scale, b.scale)
	}
	return add(&a, &b, b.d.Negative)
}

// Sub returns a-b exactly. Both must have the same scale (ErrScale).
func (a Amount) Sub(b Amount) (Amount, error) {
	if a.scale != b.scale {
		return Amount{}, scaleMismatch(a.scale, b.scale)
	}
	return add(&a, &b, !b.d.Negative)
}

// add returns a + (b's magnitude with sign bneg); both have the same scale.
func add(a, b *Amount, bneg bool) (Amount, error) {
	if x, ok := a.mag(); ok {
		if y, ok := b.mag(); ok {
			if a.d.Negative == bneg {
				if s, over := x.add(y); !over {
					return fromMag(s, bneg, a.scale), nil
				}
			} else if x.cmp(y) >= 0 {
				return fromMag(x.sub(y), a.d.Negative, a.scale), nil
			} else {
				return fromMag(y.sub(x), bneg, a.scale), nil
			}
		}
	}
	var x, y apd.BigInt
	a.signed(&x)
	b.signed(&y)
	if bneg != b.d.Negative {
		y.Neg(&y)
	}
	x.Add(&x, &y)
	return fromSigned(&x, a.scale)
}

// Neg returns -a (zero stays zero, never negative zero).
func (a Amount) Neg() Amount {
	out := a // shares the coefficient, which is never modified in place
	out.d.Negative = !a.d.Negative && !a.d.IsZero()
	return out
}

// Cmp compares a and b by value, also across scales (1.5 at scale 1 equals
// 1.50 at scale 2): -1 if a < b, 0 if equal, +1 if a > b.
func (a Amount) Cmp(b Amount) int {
	as, bs := a.d.Sign(), b.d.Sign()
	if as != bs || as == 0 {
		return cmpInt(as, bs)
	}
	x, okx := a.mag()
	y, oky := b.mag()
	if okx && oky {
		over := false
		switch {
		case a.scale < b.scale:
			x, over = x.mulPow10(int(b.scale - a.scale))
		case a.scale > b.scale:
			y, over = y.mulPow10(int(a.scale - b.scale))
		}
		if !over {
			return x.cmp(y) * as
		}
	}
	return a.d.Cmp(&b.d)
}

func cmpInt(x, y int) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// Equal reports whether a and b are the same value at the same scale. go-cmp
// uses it automatically for Amount values; it also works as an explicit
// comparer: cmp.Comparer(money.Amount.Equal).
func (a Amount) Equal(b Amount) bool { return a.scale == b.scale && a.Cmp(b) == 0 }

// Rounding selects how MulRatio rounds a result that does not fit the scale.
// The zero value is not a valid mode: callers always choose one.
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
	// RoundFloor rounds toward negative infinity.
	RoundFloor
	// RoundCeiling rounds toward positive infinity.
	RoundCeiling
)

var roundingNames = [...]string{
	RoundDown:     "RoundDown",
	RoundUp:       "RoundUp",
	RoundHalfUp:   "RoundHalfUp",
	RoundHalfEven: "RoundHalfEven",
	RoundExact:    "RoundExact",
	RoundFloor:    "RoundFloor",
	RoundCeiling:  "RoundCeiling",
}

// String returns the constant's name, or "Rounding(n)" for unknown values.
func (r Rounding) String() string {
	if r.valid() {
		return roundingNames[r]
	}
	return "Rounding(" + strconv.Itoa(int(r)) + ")"
}

func (r Rounding) valid() bool { return r >= RoundDown && r <= RoundCeiling }

// roundUp decides whether a truncated magnitude goes up one unit. half is
// the remainder compared with half the divisor (-1 below, 0 tie, +1 above);
// odd reports an odd truncated quotient; neg is the sign of the result.
func (r Rounding) roundUp(half int, odd, neg bool) bool {
	switch r {
	case RoundUp:
		return true
	case RoundHalfUp:
		return half >= 0
	case RoundHalfEven:
		return half > 0 || (half == 0 && odd)
	case RoundFloor:
		return neg
	case RoundCeiling:
		return !neg
	}
	return false // RoundDown
}

// MulRatio returns a × num / den at a's scale, rounded with mode. Basis
// points are MulRatio(bps, 10000, mode). den must be positive and mode one of
// the Rounding constants (ErrArgument otherwise). Under RoundExact an inexact
// result is ErrPrecision; a result beyond the digit limit is ErrRange.
func (a Amount) MulRatio(num, den int64, mode Rounding) (Amount, error) {
	if den <= 0 {
		return Amount{}, fmt.Errorf("%w: MulRatio denominator %d must be positive", ErrArgument, den)
	}
	if !mode.valid() {
		return Amount{}, fmt.Errorf("%w: unknown rounding mode %d", ErrArgument, int(mode))
	}
	neg := a.d.Negative != (num < 0)
	un := uint64(num)
	if num < 0 {
		un = -un
	}
	ud := uint64(den)
	if m, ok := a.mag(); ok {
		if q, exact, ok := mulDiv(m, un, ud, mode, neg); ok {
			if !exact && mode == RoundExact {
				return Amount{}, inexact(a, num, den)
			}
			return fromMag(q, neg, a.scale), nil
		}
	}
	var n, d, q, r apd.BigInt
	n.SetUint64(un)
	d.SetUint64(ud)
	n.Mul(&n, &a.d.Coeff) // the coefficient is non-negative
	q.QuoRem(&n, &d, &r)
	if r.Sign() != 0 {
		if mode == RoundExact {
			return Amount{}, inexact(a, num, den)
		}
		var rest apd.BigInt
		rest.Sub(&d, &r)
		if mode.roundUp(r.Cmp(&rest), q.Bit(0) == 1, neg) {
			q.Add(&q, &pow10Big[0])
		}
	}
	if neg {
		q.Neg(&q)
	}
	return fromSigned(&q, a.scale)
}

// mulDiv returns m*n/d rounded with mode, whether it was exact, and whether
// the result fits in 128 bits (ok).
func mulDiv(m u128, n, d uint64, mode Rounding, neg bool) (q u128, exact, ok bool) {
	// 192-bit product in p2:p1:p0, then long division by d.
	h0, p0 := bits.Mul64(m.lo, n)
	h1, l1 := bits.Mul64(m.hi, n)
	p1, c := bits.Add64(l1, h0, 0)
	p2 := h1 + c
	if p2 >= d { // the quotient needs more than 128 bits
		return u128{}, false, false
	}
	q1, r := bits.Div64(p2, p1, d)
	q0, r := bits.Div64(r, p0, d)
	q = u128{hi: q1, lo: q0}
	if r == 0 {
		return q, true, true
	}
	if mode.roundUp(cmpU64(r, d-r), q0&1 == 1, neg) {
		var over bool
		if q, over = q.add(u128{lo: 1}); over {
			return u128{}, false, false
		}
	}
	return q, false, true
}

func cmpU64(x, y uint64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func inexact(a Amount, num, den int64) error {
	return fmt.Errorf("%w: %s × %d / %d is not exact at scale %d", ErrPrecision, a, num, den, a.scale)
}

// Minor returns a in the smallest unit as an integer string ("12.34" at
// scale 2 gives "1234"), the form card transactions use. ParseMinor reads it
// back.
func (a Amount) Minor() string {
	var buf [48]byte
	return string(a.appendScaled(buf[:0], 0))
}

// MarshalJSON writes a as a JSON string such as "12.340000". It has a value
// receiver, so Amount fields marshal as strings whether the struct is held
// by value or by pointer.
func (a Amount) MarshalJSON() ([]byte, error) {
	buf := make([]byte, 0, 24)
	buf = append(buf, '"')
	buf = a.Append(buf)
	buf = append(buf, '"')
	return buf, nil
}

// UnmarshalJSON reads a JSON string holding a plain decimal. Numbers are
// rejected (ErrSyntax): the service sends amounts as strings, and a JSON
// number may have passed through a float somewhere. The scale is the number
// of decimals printed; callers that know the asset's ledger_scale check it
// with Rescale. JSON null leaves a unchanged, as encoding/json expects.
func (a *Amount) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return &ParseError{Input: string(b), Scale: -1, Err: fmt.Errorf("%w: amounts are JSON strings", ErrSyntax)}
	}
	if bytes.IndexByte(b, '\\') >= 0 {
		s, err := unquoteJSON(b)
		if err != nil {
			return err
		}
		return a.unmarshalString(s)
	}
	return a.unmarshalString(string(b[1 : len(b)-1]))
}

// unquoteJSON decodes a JSON string literal that contains escapes.
func unquoteJSON(b []byte) (string, error) {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return "", &ParseError{Input: string(b), Scale: -1, Err: fmt.Errorf("%w: %v", ErrSyntax, err)}
	}
	return s, nil
}

// MarshalText returns String's text. It lets Amount serve as a map key and
// in text-based formats.
func (a Amount) MarshalText() ([]byte, error) {
	return a.Append(make([]byte, 0, 24)), nil
}

// AppendText appends String's text to b (encoding.TextAppender).
func (a Amount) AppendText(b []byte) ([]byte, error) {
	return a.Append(b), nil
}

// UnmarshalText parses a plain decimal with the scale it is printed with
// ("12.50" has scale 2), like UnmarshalJSON without the quotes.
func (a *Amount) UnmarshalText(text []byte) error {
	return a.unmarshalString(string(text))
}

// unmarshalString parses s at the scale it is printed with.
func (a *Amount) unmarshalString(s string) error {
	scale := 0
	if i := strings.IndexByte(s, '.'); i >= 0 {
		scale = len(s) - i - 1
	}
	if scale > MaxScale {
		return &ParseError{Input: s, Scale: scale, Err: fmt.Errorf("%w: more than %d decimals", ErrScale, MaxScale)}
	}
	v, err := Parse(s, scale)
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// Format implements fmt.Formatter: %v and %s print String, %q prints it
// quoted, %#v prints a Go expression (money.MustParse("1.50", 2)). Width and
// the '-' flag pad as for strings. Other verbs print %!verb(money.Amount=...).
func (a Amount) Format(f fmt.State, verb rune) {
	var buf [64]byte
	var b []byte
	switch verb {
	case 'v', 's', 'q':
		if verb == 'v' && f.Flag('#') {
			b = append(buf[:0], `money.MustParse("`...)
			b = a.Append(b)
			b = append(b, `", `...)
			b = strconv.AppendInt(b, int64(a.scale), 10)
			b = append(b, ')')
			break
		}
		b = a.Append(buf[:0])
		if verb == 'q' {
			b = append(append([]byte{'"'}, b...), '"')
		}
	default:
		b = append(buf[:0], "%!"...)
		b = append(b, string(verb)...)
		b = append(b, "(money.Amount="...)
		b = a.Append(b)
		b = append(b, ')')
		_, _ = f.Write(b)
		return
	}
	if w, ok := f.Width(); ok && w > len(b) {
		pad := strings.Repeat(" ", w-len(b))
		if f.Flag('-') {
			b = append(b, pad...)
		} else {
			b = append([]byte(pad), b...)
		}
	}
	_, _ = f.Write(b)
}

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
