package money_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/money"
)

func TestParseAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		scale int
		want  string
	}{
		// Scale 0.
		{"0", 0, "0"},
		{"00", 0, "0"},
		{"-0", 0, "0"},
		{"7", 0, "7"},
		{"-7", 0, "-7"},
		{"007", 0, "7"},
		{"5.0", 0, "5"},
		{"5.000000", 0, "5"},
		{"-5.00", 0, "-5"},
		{"9223372036854775807", 0, "9223372036854775807"},
		{"9223372036854775808", 0, "9223372036854775808"},
		{"18446744073709551615", 0, "18446744073709551615"},
		{"18446744073709551616", 0, "18446744073709551616"},
		{"-18446744073709551616", 0, "-18446744073709551616"},
		// Scale 2.
		{"12.5", 2, "12.50"},
		{"12.50", 2, "12.50"},
		{"12.500", 2, "12.50"},
		{"1.2300", 2, "1.23"},
		{"0.01", 2, "0.01"},
		{"-0.01", 2, "-0.01"},
		{"-0.00", 2, "0.00"},
		{"-0.000", 2, "0.00"},
		{"0.0", 2, "0.00"},
		{"000.10", 2, "0.10"},
		{"1", 2, "1.00"},
		{"1.0000000000000000000000000000000000000000000000000", 2, "1.00"},
		{"123456789012345678901234567890", 2, "123456789012345678901234567890.00"},
		// Scale 6.
		{"12345.678901", 6, "12345.678901"},
		{"-0.000001", 6, "-0.000001"},
		{"1000", 6, "1000.000000"},
		{"9999999999999.999999", 6, "9999999999999.999999"},
		{"99999999999999.999999", 6, "99999999999999.999999"},
		{"-99999999999999.999999", 6, "-99999999999999.999999"},
		// Scale 8.
		{"0.00000001", 8, "0.00000001"},
		{"21000000", 8, "21000000.00000000"},
		{"-1.5", 8, "-1.50000000"},
		{"0.123456780000", 8, "0.12345678"},
		// Scale 18.
		{"1", 18, "1.000000000000000000"},
		{"0.000000000000000001", 18, "0.000000000000000001"},
		{"-0.000000000000000001", 18, "-0.000000000000000001"},
		{"123456789012.345678901234567890", 18, "123456789012.345678901234567890"},
		{"99999999999999999999.999999999999999999", 18, "99999999999999999999.999999999999999999"},
		{"100000000000000000000", 18, "100000000000000000000.000000000000000000"},
		{"-340282366920.938463463374607431768211455", 27, "-340282366920.938463463374607431768211455"},
		{"115792089237316195423570985008687907853269984665640564039457.584007913129639935", 18, "115792089237316195423570985008687907853269984665640564039457.584007913129639935"},
		// Scale 36.
		{"1", 36, "1.000000000000000000000000000000000000"},
		{"0.000000000000000000000000000000000001", 36, "0.000000000000000000000000000000000001"},
		{"-12.5", 36, "-12.500000000000000000000000000000000000"},
		{"99", 36, "99.000000000000000000000000000000000000"},
		{"340", 36, "340.000000000000000000000000000000000000"},
		// 80 digits is the limit.
		{strings.Repeat("9", 80), 0, strings.Repeat("9", 80)},
		{strings.Repeat("9", 44), 36, strings.Repeat("9", 44) + "." + strings.Repeat("0", 36)},
		{"0000000000000000000000000000000000000000000000000000000000000000000000000000000000000001", 0, "1"},
	}
	for _, tt := range tests {
		a, err := money.Parse(tt.in, tt.scale)
		if err != nil {
			t.Errorf("Parse(%q, %d): %v", tt.in, tt.scale, err)
			continue
		}
		if got := a.String(); got != tt.want {
			t.Errorf("Parse(%q, %d) = %s, want %s", tt.in, tt.scale, got, tt.want)
		}
		if a.Scale() != tt.scale {
			t.Errorf("Parse(%q, %d).Scale() = %d", tt.in, tt.scale, a.Scale())
		}
		if a.IsZero() && (a.IsNegative() || a.Sign() != 0) {
			t.Errorf("Parse(%q, %d) is a negative zero", tt.in, tt.scale)
		}
		if wantNeg := strings.HasPrefix(tt.want, "-"); a.IsNegative() != wantNeg {
			t.Errorf("Parse(%q, %d).IsNegative() = %v", tt.in, tt.scale, a.IsNegative())
		}
	}
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		scale int
		want  error
	}{
		// Not the plain grammar; every one of these is accepted by apd.
		{"", 2, money.ErrSyntax},
		{"-", 2, money.ErrSyntax},
		{"+5", 2, money.ErrSyntax},
		{"5.", 2, money.ErrSyntax},
		{".5", 2, money.ErrSyntax},
		{"-.5", 2, money.ErrSyntax},
		{".-5", 2, money.ErrSyntax},
		{"1e3", 2, money.ErrSyntax},
		{"1E3", 2, money.ErrSyntax},
		{"1e-3", 2, money.ErrSyntax},
		{"1.5e2", 2, money.ErrSyntax},
		{"NaN", 2, money.ErrSyntax},
		{"nan", 2, money.ErrSyntax},
		{"sNaN", 2, money.ErrSyntax},
		{"Infinity", 2, money.ErrSyntax},
		{"-Infinity", 2, money.ErrSyntax},
		{"Inf", 2, money.ErrSyntax},
		{"inf", 2, money.ErrSyntax},
		// Other malformed strings.
		{" 1", 2, money.ErrSyntax},
		{"1 ", 2, money.ErrSyntax},
		{"1\n", 2, money.ErrSyntax},
		{"1,000", 2, money.ErrSyntax},
		{"1,5", 2, money.ErrSyntax},
		{"1_000", 2, money.ErrSyntax},
		{"0x10", 2, money.ErrSyntax},
		{"--1", 2, money.ErrSyntax},
		{"-+1", 2, money.ErrSyntax},
		{"1-", 2, money.ErrSyntax},
		{"1.2.3", 2, money.ErrSyntax},
		{"1..2", 2, money.ErrSyntax},
		{"12a", 2, money.ErrSyntax},
		{"a12", 2, money.ErrSyntax},
		{"1.2a", 2, money.ErrSyntax},
		{"\u0661", 2, money.ErrSyntax},    // Arabic-Indic digit one
		{"\uff11", 2, money.ErrSyntax},    // fullwidth digit one
		{"1\x00", 2, money.ErrSyntax},     // NUL byte
		{"1.239x", 2, money.ErrSyntax},    // syntax wins over precision
		{"1.2\xff", 2, money.ErrSyntax},   // invalid UTF-8
		{"$1.00", 2, money.ErrSyntax},     // currency symbol
		{"1.00 USDT", 2, money.ErrSyntax}, // unit
		// Non-zero decimals beyond the scale: never rounded.
		{"1.234", 2, money.ErrPrecision},
		{"0.001", 2, money.ErrPrecision},
		{"1.2301", 2, money.ErrPrecision},
		{"1.5", 0, money.ErrPrecision},
		{"-0.0000001", 6, money.ErrPrecision},
		{"0.0000000000000000001", 18, money.ErrPrecision},
		{"1." + strings.Repeat("0", 36) + "1", 36, money.ErrPrecision},
		// Scale outside 0..MaxScale.
		{"1", -1, money.ErrScale},
		{"1", 37, money.ErrScale},
		{"1", 1 << 40, money.ErrScale},
		// More than 80 digits.
		{"1" + strings.Repeat("0", 80), 0, money.ErrRange},
		{strings.Repeat("9", 45), 36, money.ErrRange},
		{"-" + strings.Repeat("9", 79), 2, money.ErrRange},
	}
	for _, tt := range tests {
		a, err := money.Parse(tt.in, tt.scale)
		if !errors.Is(err, tt.want) {
			t.Errorf("Parse(%q, %d) = %v, %v; want %v", tt.in, tt.scale, a, err, tt.want)
			continue
		}
		var pe *money.ParseError
		if !errors.As(err, &pe) || pe.Input != tt.in || pe.Scale != tt.scale {
			t.Errorf("Parse(%q, %d) error %#v is not a *ParseError naming the input", tt.in, tt.scale, err)
		}
		if !a.Equal(money.Amount{}) {
			t.Errorf("Parse(%q, %d) returned %v with its error", tt.in, tt.scale, a)
		}
	}
}

func TestParseNonNegative(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    string
		wantErr error
	}{
		{"1.5", "1.50", nil},
		{"0", "0.00", nil},
		{"0.000", "0.00", nil},
		{"-1.5", "", money.ErrNegative},
		{"-0", "", money.ErrNegative},
		{"-0.00", "", money.ErrNegative},
		{"-x", "", money.ErrSyntax},
		{"-1.5e3", "", money.ErrSyntax},
		{"+1.5", "", money.ErrSyntax},
		{"1.555", "", money.ErrPrecision},
		{"-1.555", "", money.ErrNegative},
	}
	for _, tt := range tests {
		a, err := money.ParseNonNegative(tt.in, 2)
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("ParseNonNegative(%q) error = %v, want %v", tt.in, err, tt.wantErr)
			continue
		}
		if err == nil && a.String() != tt.want {
			t.Errorf("ParseNonNegative(%q) = %s, want %s", tt.in, a, tt.want)
		}
	}
}

func TestParseMinor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		scale   int
		want    string
		wantErr error
	}{
		{"1234", 2, "12.34", nil},
		{"-1234", 2, "-12.34", nil},
		{"0", 2, "0.00", nil},
		{"-0", 2, "0.00", nil},
		{"5", 8, "0.00000005", nil},
		{"1234", 0, "1234", nil},
		{"000100", 2, "1.00", nil},
		{"123456789012345678901234567890", 18, "123456789012.345678901234567890", nil},
		{strings.Repeat("9", 80), 36, strings.Repeat("9", 44) + "." + strings.Repeat("9", 36), nil},
		{"12.34", 2, "", money.ErrSyntax},
		{"12.00", 2, "", money.ErrSyntax},
		{"", 2, "", money.ErrSyntax},
		{"+1", 2, "", money.ErrSyntax},
		{"1e2", 2, "", money.ErrSyntax},
		{"1", 37, "", money.ErrScale},
		{"1", -1, "", money.ErrScale},
		{strings.Repeat("9", 81), 2, "", money.ErrRange},
	}
	for _, tt := range tests {
		a, err := money.ParseMinor(tt.in, tt.scale)
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("ParseMinor(%q, %d) error = %v, want %v", tt.in, tt.scale, err, tt.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		if a.String() != tt.want || a.Scale() != tt.scale {
			t.Errorf("ParseMinor(%q, %d) = %s (scale %d), want %s", tt.in, tt.scale, a, a.Scale(), tt.want)
		}
		back, err := money.ParseMinor(a.Minor(), tt.scale)
		if err != nil || !back.Equal(a) {
			t.Errorf("ParseMinor(Minor(%s)) = %v, %v", a, back, err)
		}
	}
}

func TestMinor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		scale int
		want  string
	}{
		{"12.34", 2, "1234"},
		{"-0.05", 2, "-5"},
		{"0", 2, "0"},
		{"-0", 6, "0"},
		{"1", 0, "1"},
		{"100", 2, "10000"},
		{"123456789012.345678901234567890", 18, "123456789012345678901234567890"},
		{"-" + strings.Repeat("9", 60), 18, "-" + strings.Repeat("9", 60) + strings.Repeat("0", 18)},
	}
	for _, tt := range tests {
		if got := money.MustParse(tt.in, tt.scale).Minor(); got != tt.want {
			t.Errorf("MustParse(%q, %d).Minor() = %s, want %s", tt.in, tt.scale, got, tt.want)
		}
	}
}

func TestFromMinorAndZero(t *testing.T) {
	t.Parallel()
	tests := []struct {
		units int64
		scale int
		want  string
	}{
		{1234, 2, "12.34"},
		{-5, 8, "-0.00000005"},
		{0, 6, "0.000000"},
		{-9223372036854775808, 0, "-9223372036854775808"},
		{9223372036854775807, 18, "9.223372036854775807"},
		{-9223372036854775808, 36, "-0.000000000000000009223372036854775808"},
	}
	for _, tt := range tests {
		a, err := money.FromMinor(tt.units, tt.scale)
		if err != nil {
			t.Fatalf("FromMinor(%d, %d): %v", tt.units, tt.scale, err)
		}
		if a.String() != tt.want || !a.Equal(money.MustParse(tt.want, tt.scale)) {
			t.Errorf("FromMinor(%d, %d) = %s, want %s", tt.units, tt.scale, a, tt.want)
		}
	}
	for _, sc := range []int{-1, 37} {
		if _, err := money.FromMinor(1, sc); !errors.Is(err, money.ErrScale) {
			t.Errorf("FromMinor(1, %d) error = %v, want ErrScale", sc, err)
		}
	}

	zeros := []struct {
		scale     int
		wantScale int
		want      string
	}{
		{0, 0, "0"},
		{6, 6, "0.000000"},
		{18, 18, "0.000000000000000000"},
		{-3, 0, "0"},
		{99, money.MaxScale, "0." + strings.Repeat("0", money.MaxScale)},
	}
	for _, tt := range zeros {
		z := money.Zero(tt.scale)
		if z.Scale() != tt.wantScale || z.String() != tt.want || !z.IsZero() || z.Sign() != 0 {
			t.Errorf("Zero(%d) = %s at scale %d", tt.scale, z, z.Scale())
		}
	}
	var zv money.Amount
	if zv.String() != "0" || !zv.Equal(money.Zero(0)) || zv.Scale() != 0 {
		t.Errorf("zero value Amount = %s at scale %d", zv, zv.Scale())
	}
}

func TestParseErrorMessage(t *testing.T) {
	t.Parallel()
	_, err := money.Parse("1.234", 2)
	if got, want := err.Error(), `money: cannot parse "1.234" at scale 2: more decimals than the ledger scale`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	long := strings.Repeat("x", 10000)
	_, err = money.Parse(long, 2)
	if msg := err.Error(); len(msg) > 200 || !strings.Contains(msg, "...") {
		t.Errorf("Error() for a long input is %d bytes: %.100q", len(msg), msg)
	}
	var pe *money.ParseError
	if !errors.As(err, &pe) || pe.Input != long {
		t.Errorf("ParseError.Input does not hold the full input")
	}
}

func TestMustParsePanicsOnBadInput(t *testing.T) {
	t.Parallel()
	defer func() {
		r := recover()
		err, ok := r.(error)
		if !ok || !errors.Is(err, money.ErrSyntax) {
			t.Errorf("MustParse(\"1e3\") panicked with %v, want an ErrSyntax error", r)
		}
	}()
	money.MustParse("1e3", 2)
}
