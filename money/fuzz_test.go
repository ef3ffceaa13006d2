package money_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/money"
)

// The seed corpus lives in testdata/fuzz/<FuzzName>/ and runs with every
// plain `go test`; the f.Add seeds below cover the grammar's corners too.

// FuzzParse checks that Parse never panics, agrees with a math/big.Rat
// reading of the same string on every valid input, rejects everything
// outside the plain grammar (exponents, signs, NaN, Infinity, spaces, ...),
// and round-trips through String.
func FuzzParse(f *testing.F) {
	for _, seed := range []struct {
		s     string
		scale int
	}{
		{"12345.678901", 6}, {"-0.00", 2}, {"1.2300", 2}, {"1.234", 2},
		{"1e3", 2}, {"+5", 2}, {"5.", 2}, {".5", 2}, {".-5", 2}, {"NaN", 2},
		{"Infinity", 2}, {"-", 0}, {"", 0}, {" 1", 0}, {u128max, 0}, {u128, 36},
		{"99999999999999999999.999999999999999999", 18}, {"1", -1}, {"1", 37},
		{strings.Repeat("9", 81), 0},
	} {
		f.Add(seed.s, seed.scale)
	}
	f.Fuzz(func(t *testing.T, s string, scale int) {
		checkParse(t, s, scale)
		a, err := money.Parse(s, scale)
		if err == nil {
			for _, c := range s {
				if !(c >= '0' && c <= '9' || c == '.' || c == '-') {
					t.Fatalf("Parse(%q, %d) accepted %q", s, scale, c)
				}
			}
			return
		}
		if !a.Equal(money.Amount{}) {
			t.Fatalf("Parse(%q, %d) returned %v with its error", s, scale, a)
		}
		_ = err.Error()
	})
}

// FuzzRoundTrip parses an amount and checks every way out and back in:
// String, Append, Minor, JSON, text, Rescale up and down, Neg, and the
// arithmetic identities a+(-a) = 0, a-a = 0, (a+a)-a = a.
func FuzzRoundTrip(f *testing.F) {
	for _, seed := range []struct {
		s             string
		scale, to, ds int
	}{
		{"12.34", 2, 6, 1}, {"-0.000001", 6, 2, 0}, {"0", 0, 36, 2},
		{"123456789012.345678901234567890", 18, 36, 4}, {"-" + u128max, 0, 2, 0},
		{u64max, 0, 18, 2}, {strings.Repeat("9", 80), 0, 1, 0},
	} {
		f.Add(seed.s, seed.scale, seed.to, seed.ds)
	}
	f.Fuzz(func(t *testing.T, s string, scale, to, display int) {
		a, err := money.Parse(s, scale)
		if err != nil {
			return
		}
		str := a.String()
		if back, err := money.Parse(str, scale); err != nil || !back.Equal(a) {
			t.Fatalf("Parse(String(%s)) = %v, %v", str, back, err)
		}
		if got := string(a.Append([]byte("x"))); got != "x"+str {
			t.Fatalf("Append = %q, want %q", got, "x"+str)
		}
		if back, err := money.ParseMinor(a.Minor(), scale); err != nil || !back.Equal(a) {
			t.Fatalf("ParseMinor(Minor(%s)) = %v, %v", str, back, err)
		}
		b, err := json.Marshal(a)
		if err != nil || string(b) != `"`+str+`"` {
			t.Fatalf("Marshal(%s) = %s, %v", str, b, err)
		}
		var j money.Amount
		if err := json.Unmarshal(b, &j); err != nil || !j.Equal(a) {
			t.Fatalf("Unmarshal(Marshal(%s)) = %v, %v", str, j, err)
		}
		var txt money.Amount
		if err := txt.UnmarshalText([]byte(str)); err != nil || !txt.Equal(a) {
			t.Fatalf("UnmarshalText(%s) = %v, %v", str, txt, err)
		}
		if r, err := a.Rescale(to); err == nil {
			if back, err := r.Rescale(scale); err != nil || !back.Equal(a) {
				t.Fatalf("%s.Rescale(%d).Rescale(%d) = %v, %v", str, to, scale, back, err)
			}
		} else if !errors.Is(err, money.ErrScale) && !errors.Is(err, money.ErrPrecision) && !errors.Is(err, money.ErrRange) {
			t.Fatalf("%s.Rescale(%d): unexpected error %v", str, to, err)
		}
		if !a.Neg().Neg().Equal(a) {
			t.Fatalf("(%s).Neg().Neg() = %s", str, a.Neg().Neg())
		}
		if z, err := a.Add(a.Neg()); err != nil || !z.Equal(money.Zero(scale)) {
			t.Fatalf("%s + -%s = %v, %v", str, str, z, err)
		}
		if z, err := a.Sub(a); err != nil || !z.Equal(money.Zero(scale)) || z.IsNegative() {
			t.Fatalf("%s - %s = %v, %v", str, str, z, err)
		}
		if twice, err := a.Add(a); err == nil {
			if back, err := twice.Sub(a); err != nil || !back.Equal(a) {
				t.Fatalf("(%s + %s) - %s = %v, %v", str, str, str, back, err)
			}
		} else if !errors.Is(err, money.ErrRange) {
			t.Fatalf("%s + %s: unexpected error %v", str, str, err)
		}
		checkAgainstModel(t, a, a.Neg(), 1, 1, money.RoundExact, to, display)
	})
}

// FuzzArithmetic compares Add, Sub, Cmp, Rescale, MulRatio and Display on two
// parsed amounts with the math/big reference model.
func FuzzArithmetic(f *testing.F) {
	for _, seed := range []struct {
		x, y         string
		scale        int
		num, den     int64
		mode, to, ds int
	}{
		{"1.00", "0.01", 2, 1, 8, int(money.RoundHalfEven), 0, 1},
		{"-1.00", "1", 2, 1, 8, int(money.RoundHalfUp), 6, 0},
		{u64max, "1", 0, 3, 2, int(money.RoundFloor), 2, 0},
		{u128max, "-" + u128, 0, -7, 3, int(money.RoundCeiling), 1, 0},
		{"123456789012.345678901234567890", "0.000000000000000001", 18, 30, 10000, int(money.RoundDown), 2, 2},
		{"0.05", "-0.05", 2, 1, 2, int(money.RoundExact), 1, 1},
		{"5", "5", 0, 1, 0, int(money.RoundUp), 0, 0},
		{strings.Repeat("9", 80), "1", 0, 1 << 62, 1, 0, 0, 0},
	} {
		f.Add(seed.x, seed.y, seed.scale, seed.num, seed.den, seed.mode, seed.to, seed.ds)
	}
	f.Fuzz(func(t *testing.T, x, y string, scale int, num, den int64, mode, to, display int) {
		a, err := money.Parse(x, scale)
		if err != nil {
			return
		}
		b, err := money.Parse(y, scale)
		if err != nil {
			return
		}
		checkAgainstModel(t, a, b, num, den, money.Rounding(mode), to, display)
	})
}
