package money

import (
	"fmt"
	"math/bits"

	"github.com/cockroachdb/apd/v3"
)

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
