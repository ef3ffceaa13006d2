package money

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

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
