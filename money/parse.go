package money

import (
	"fmt"
	"strings"
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
