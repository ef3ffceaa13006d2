package money

import (
	"fmt"
	"math/bits"
	"strconv"

	"github.com/cockroachdb/apd/v3"
)

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
