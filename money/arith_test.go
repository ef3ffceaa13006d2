package money_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mwallet/mwallet-go/money"
)

// Values around the internal representation boundaries: 64 bits, 128 bits
// and beyond.
const (
	u64max  = "18446744073709551615"                    // 2^64-1
	u128max = "340282366920938463463374607431768211455" // 2^128-1
	u128    = "340282366920938463463374607431768211456" // 2^128
)

func TestDisplay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		scale   int
		display int
		want    string
	}{
		{"12.345678", 6, 2, "12.34"},
		{"12.349999", 6, 2, "12.34"},
		{"-12.349999", 6, 2, "-12.34"},
		{"12.345678", 6, 0, "12"},
		{"1.999", 3, 0, "1"},
		{"-1.999", 3, 0, "-1"},
		{"-0.001", 6, 2, "0.00"},
		{"-0.001", 6, 0, "0"},
		{"-0.01", 6, 2, "-0.01"},
		{"0.00000001", 8, 6, "0.000000"},
		{"0.99999999", 8, 6, "0.999999"},
		{"12.34", 2, 2, "12.34"},
		{"12.34", 2, 6, "12.34"},
		{"12.34", 2, -1, "12.34"},
		{"0", 0, 2, "0"},
		{"123456789012.345678901234567890", 18, 4, "123456789012.3456"},
		{"-" + u128max[:21] + "." + u128max[21:], 18, 2, "-" + u128max[:21] + "." + u128max[21:23]},
	}
	for _, tt := range tests {
		a := money.MustParse(tt.in, tt.scale)
		if got := a.Display(tt.display); got != tt.want {
			t.Errorf("MustParse(%q, %d).Display(%d) = %q, want %q", tt.in, tt.scale, tt.display, got, tt.want)
		}
	}
}

func TestRescale(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		from    int
		to      int
		want    string
		wantErr error
	}{
		{"1.5", 1, 6, "1.500000", nil},
		{"-1.5", 1, 6, "-1.500000", nil},
		{"1.500000", 6, 1, "1.5", nil},
		{"1.500000", 6, 0, "", money.ErrPrecision},
		{"1.500001", 6, 1, "", money.ErrPrecision},
		{"-0.000001", 6, 2, "", money.ErrPrecision},
		{"12.34", 2, 2, "12.34", nil},
		{"0", 6, 0, "0", nil},
		{"7", 0, 36, "7." + strings.Repeat("0", 36), nil},
		{"7." + strings.Repeat("0", 36), 36, 0, "7", nil},
		{"7." + strings.Repeat("0", 35) + "1", 36, 0, "", money.ErrPrecision},
		{"7." + strings.Repeat("0", 16) + "1" + strings.Repeat("0", 19), 36, 0, "", money.ErrPrecision},
		{u64max, 0, 18, u64max + "." + strings.Repeat("0", 18), nil},
		{u128max, 0, 2, u128max + ".00", nil},
		{"-" + u128max, 0, 36, "-" + u128max + "." + strings.Repeat("0", 36), nil},
		{u128max + ".000000", 6, 0, u128max, nil},
		{u128max + ".000001", 6, 0, "", money.ErrPrecision},
		{strings.Repeat("9", 50), 0, 30, strings.Repeat("9", 50) + "." + strings.Repeat("0", 30), nil},
		{strings.Repeat("9", 50), 0, 31, "", money.ErrRange},
		{"1", 0, 37, "", money.ErrScale},
		{"1", 0, -1, "", money.ErrScale},
	}
	for _, tt := range tests {
		a := money.MustParse(tt.in, tt.from)
		got, err := a.Rescale(tt.to)
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("%s.Rescale(%d) error = %v, want %v", a, tt.to, err, tt.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		if got.String() != tt.want || got.Scale() != tt.to {
			t.Errorf("%s.Rescale(%d) = %s (scale %d), want %s", a, tt.to, got, got.Scale(), tt.want)
		}
		if got.Cmp(a) != 0 {
			t.Errorf("%s.Rescale(%d) changed the value: %s", a, tt.to, got)
		}
	}
}

func TestAddSub(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b    string
		scale   int
		sum     string
		diff    string
		wantErr error
	}{
		{"1.25", "2.50", 2, "3.75", "-1.25", nil},
		{"-1.25", "2.50", 2, "1.25", "-3.75", nil},
		{"1.00", "-1.00", 2, "0.00", "2.00", nil},
		{"1.00", "1.00", 2, "2.00", "0.00", nil},
		{"-1.00", "-1.00", 2, "-2.00", "0.00", nil},
		{"0", "0", 0, "0", "0", nil},
		{"9223372036854775807", "1", 0, "9223372036854775808", "9223372036854775806", nil},
		{u64max, "1", 0, "18446744073709551616", "18446744073709551614", nil},
		{"-" + u64max, "-1", 0, "-18446744073709551616", "-18446744073709551614", nil},
		{u64max, u64max, 0, "36893488147419103230", "0", nil},
		{u128max, "1", 0, u128, "340282366920938463463374607431768211454", nil},
		{u128, "-1", 0, u128max, "340282366920938463463374607431768211457", nil},
		{"-" + u128, "1", 0, "-" + u128max, "-340282366920938463463374607431768211457", nil},
		{u128, u128, 0, "680564733841876926926749214863536422912", "0", nil},
		{"0.000000000000000001", "123456789012.345678901234567890", 18, "123456789012.345678901234567891", "-123456789012.345678901234567889", nil},
		{strings.Repeat("9", 80), "1", 0, "", "", money.ErrRange},
		{"-" + strings.Repeat("9", 80), "-1", 0, "", "", money.ErrRange},
	}
	for _, tt := range tests {
		a := money.MustParse(tt.a, tt.scale)
		b := money.MustParse(tt.b, tt.scale)
		sum, err := a.Add(b)
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("%s + %s error = %v, want %v", a, b, err, tt.wantErr)
		} else if err == nil && (sum.String() != tt.sum || sum.Scale() != tt.scale) {
			t.Errorf("%s + %s = %s, want %s", a, b, sum, tt.sum)
		}
		if tt.wantErr != nil {
			continue
		}
		diff, err := a.Sub(b)
		if err != nil || diff.String() != tt.diff {
			t.Errorf("%s - %s = %s, %v; want %s", a, b, diff, err, tt.diff)
		}
		if sum.IsZero() && sum.IsNegative() || diff.IsZero() && diff.IsNegative() {
			t.Errorf("%s ± %s gave a negative zero", a, b)
		}
	}

	if _, err := money.MustParse("1", 2).Add(money.MustParse("1", 6)); !errors.Is(err, money.ErrScale) {
		t.Errorf("Add across scales error = %v, want ErrScale", err)
	}
	if _, err := money.MustParse("1", 2).Sub(money.MustParse("1", 6)); !errors.Is(err, money.ErrScale) {
		t.Errorf("Sub across scales error = %v, want ErrScale", err)
	}
}

func TestNeg(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"1.50", "-1.50"},
		{"-1.50", "1.50"},
		{"0.00", "0.00"},
		{"-0.00", "0.00"},
		{u128, "-" + u128 + ".00"},
		{"-" + u128, u128 + ".00"},
	} {
		a := money.MustParse(tt.in, 2)
		n := a.Neg()
		if n.String() != tt.want {
			t.Errorf("(%s).Neg() = %s, want %s", a, n, tt.want)
		}
		if !n.Neg().Equal(a) {
			t.Errorf("(%s).Neg().Neg() = %s", a, n.Neg())
		}
		if n.IsZero() && n.IsNegative() {
			t.Errorf("(%s).Neg() is a negative zero", a)
		}
	}
}

func TestCmpEqual(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a      string
		as     int
		b      string
		bs     int
		cmp    int
		equals bool
	}{
		{"1.5", 1, "1.50", 2, 0, false},
		{"1.5", 2, "1.50", 2, 0, true},
		{"1.5", 2, "1.51", 2, -1, false},
		{"-1.5", 2, "-1.51", 2, 1, false},
		{"-1.5", 2, "1.5", 2, -1, false},
		{"0", 2, "-0", 2, 0, true},
		{"0", 0, "0", 18, 0, false},
		{"-0.000001", 6, "0", 0, -1, false},
		{"0.000001", 6, "0", 0, 1, false},
		{"100", 0, "99.999999999999999999", 18, 1, false},
		{"-100", 0, "-99.999999999999999999", 18, -1, false},
		{u64max, 0, u64max, 18, 0, false},
		{u128max, 0, u128max + ".1", 1, -1, false},
		{u128max, 0, u128max, 36, 0, false},
		{"-" + u128, 2, "-" + u128max, 2, -1, false},
		{u128, 2, u128, 2, 0, true},
		{strings.Repeat("9", 44), 0, strings.Repeat("9", 44) + ".000000000000000000000000000000000001", 36, -1, false},
	}
	for _, tt := range tests {
		a := money.MustParse(tt.a, tt.as)
		b := money.MustParse(tt.b, tt.bs)
		if got := a.Cmp(b); got != tt.cmp {
			t.Errorf("Cmp(%s@%d, %s@%d) = %d, want %d", a, tt.as, b, tt.bs, got, tt.cmp)
		}
		if got := b.Cmp(a); got != -tt.cmp {
			t.Errorf("Cmp(%s@%d, %s@%d) = %d, want %d", b, tt.bs, a, tt.as, got, -tt.cmp)
		}
		if got := a.Equal(b); got != tt.equals {
			t.Errorf("Equal(%s@%d, %s@%d) = %v, want %v", a, tt.as, b, tt.bs, got, tt.equals)
		}
	}
}

func TestMulRatio(t *testing.T) {
	t.Parallel()
	all := []money.Rounding{money.RoundDown, money.RoundUp, money.RoundHalfUp, money.RoundHalfEven, money.RoundExact, money.RoundFloor, money.RoundCeiling}
	tests := []struct {
		a        string
		scale    int
		num, den int64
		// want per mode, in the order of all; "err" means ErrPrecision.
		want [7]string
	}{
		// 0.125: a tie between 0.12 and 0.13.
		{"1.00", 2, 1, 8, [7]string{"0.12", "0.13", "0.13", "0.12", "err", "0.12", "0.13"}},
		{"-1.00", 2, 1, 8, [7]string{"-0.12", "-0.13", "-0.13", "-0.12", "err", "-0.13", "-0.12"}},
		{"1.00", 2, -1, 8, [7]string{"-0.12", "-0.13", "-0.13", "-0.12", "err", "-0.13", "-0.12"}},
		{"-1.00", 2, -1, 8, [7]string{"0.12", "0.13", "0.13", "0.12", "err", "0.12", "0.13"}},
		// 0.015 and 0.025: ties on each side of an even digit.
		{"0.03", 2, 1, 2, [7]string{"0.01", "0.02", "0.02", "0.02", "err", "0.01", "0.02"}},
		{"0.05", 2, 1, 2, [7]string{"0.02", "0.03", "0.03", "0.02", "err", "0.02", "0.03"}},
		{"-0.05", 2, 1, 2, [7]string{"-0.02", "-0.03", "-0.03", "-0.02", "err", "-0.03", "-0.02"}},
		// Not ties.
		{"1.00", 2, 1, 3, [7]string{"0.33", "0.34", "0.33", "0.33", "err", "0.33", "0.34"}},
		{"1.00", 2, 2, 3, [7]string{"0.66", "0.67", "0.67", "0.67", "err", "0.66", "0.67"}},
		{"-1.00", 2, 2, 3, [7]string{"-0.66", "-0.67", "-0.67", "-0.67", "err", "-0.67", "-0.66"}},
		// Below one unit: the result is zero or one unit, never negative zero.
		{"-0.01", 2, 1, 3, [7]string{"0.00", "-0.01", "0.00", "0.00", "err", "-0.01", "0.00"}},
		{"0.01", 2, 1, 3, [7]string{"0.00", "0.01", "0.00", "0.00", "err", "0.00", "0.01"}},
		// Exact: 25 basis points of 100.
		{"100.00", 2, 25, 10000, [7]string{"0.25", "0.25", "0.25", "0.25", "0.25", "0.25", "0.25"}},
		{"0", 6, 7, 3, [7]string{"0.000000", "0.000000", "0.000000", "0.000000", "0.000000", "0.000000", "0.000000"}},
		{"12.5", 2, 0, 1, [7]string{"0.00", "0.00", "0.00", "0.00", "0.00", "0.00", "0.00"}},
		// 30 basis points of a large ETH amount (128-bit path).
		{"123456789012.345678901234567890", 18, 30, 10000,
			[7]string{"370370367.037037036703703703", "370370367.037037036703703704", "370370367.037037036703703704", "370370367.037037036703703704", "err", "370370367.037037036703703703", "370370367.037037036703703704"}},
		// Beyond 128 bits.
		{u128max, 0, 3, 2, [7]string{"510423550381407695195061911147652317182", "510423550381407695195061911147652317183", "510423550381407695195061911147652317183", "510423550381407695195061911147652317182", "err", "510423550381407695195061911147652317182", "510423550381407695195061911147652317183"}},
		{"-" + u128, 0, 1, 3, [7]string{"-113427455640312821154458202477256070485", "-113427455640312821154458202477256070486", "-113427455640312821154458202477256070485", "-113427455640312821154458202477256070485", "err", "-113427455640312821154458202477256070486", "-113427455640312821154458202477256070485"}},
		// Zero times a value beyond 128 bits is zero, not negative zero.
		{"-" + u128, 0, 0, 1, [7]string{"0", "0", "0", "0", "0", "0", "0"}},
		{u128, 0, 0, 7, [7]string{"0", "0", "0", "0", "0", "0", "0"}},
		// The extreme multiplier.
		{"1", 0, -9223372036854775808, 1, [7]string{"-9223372036854775808", "-9223372036854775808", "-9223372036854775808", "-9223372036854775808", "-9223372036854775808", "-9223372036854775808", "-9223372036854775808"}},
		{"0.01", 2, 1, 9223372036854775807, [7]string{"0.00", "0.01", "0.00", "0.00", "err", "0.00", "0.01"}},
	}
	for _, tt := range tests {
		a := money.MustParse(tt.a, tt.scale)
		for i, mode := range all {
			got, err := a.MulRatio(tt.num, tt.den, mode)
			if tt.want[i] == "err" {
				if !errors.Is(err, money.ErrPrecision) {
					t.Errorf("%s.MulRatio(%d, %d, %v) = %s, %v; want ErrPrecision", a, tt.num, tt.den, mode, got, err)
				}
				continue
			}
			if err != nil || got.String() != tt.want[i] || got.Scale() != tt.scale {
				t.Errorf("%s.MulRatio(%d, %d, %v) = %s, %v; want %s", a, tt.num, tt.den, mode, got, err, tt.want[i])
			}
			if got.IsZero() && got.IsNegative() {
				t.Errorf("%s.MulRatio(%d, %d, %v) is a negative zero", a, tt.num, tt.den, mode)
			}
		}
	}
}

func TestMulRatioErrors(t *testing.T) {
	t.Parallel()
	a := money.MustParse("1.00", 2)
	tests := []struct {
		num, den int64
		mode     money.Rounding
		want     error
	}{
		{1, 0, money.RoundDown, money.ErrArgument},
		{1, -3, money.RoundDown, money.ErrArgument},
		{1, 3, 0, money.ErrArgument},
		{1, 3, money.RoundCeiling + 1, money.ErrArgument},
		{1, 3, -1, money.ErrArgument},
		{1, 3, money.RoundExact, money.ErrPrecision},
	}
	for _, tt := range tests {
		if _, err := a.MulRatio(tt.num, tt.den, tt.mode); !errors.Is(err, tt.want) {
			t.Errorf("MulRatio(%d, %d, %v) error = %v, want %v", tt.num, tt.den, tt.mode, err, tt.want)
		}
	}
	big := money.MustParse(strings.Repeat("9", 70), 0)
	if _, err := big.MulRatio(1<<62, 1, money.RoundDown); !errors.Is(err, money.ErrRange) {
		t.Errorf("MulRatio past 80 digits error = %v, want ErrRange", err)
	}
}

func TestRoundingString(t *testing.T) {
	t.Parallel()
	for r, want := range map[money.Rounding]string{
		money.RoundDown:     "RoundDown",
		money.RoundHalfEven: "RoundHalfEven",
		money.RoundCeiling:  "RoundCeiling",
		0:                   "Rounding(0)",
		42:                  "Rounding(42)",
	} {
		if got := r.String(); got != want {
			t.Errorf("Rounding(%d).String() = %q, want %q", int(r), got, want)
		}
	}
}

func TestFormat(t *testing.T) {
	t.Parallel()
	a := money.MustParse("-12.5", 2)
	tests := []struct {
		format string
		want   string
	}{
		{"%v", "-12.50"},
		{"%s", "-12.50"},
		{"%q", `"-12.50"`},
		{"%8s", "  -12.50"},
		{"%-8v|", "-12.50  |"},
		{"%#v", `money.MustParse("-12.50", 2)`},
		{"%d", "%!d(money.Amount=-12.50)"},
		{"%f", "%!f(money.Amount=-12.50)"},
		{"%v", "-12.50"},
	}
	for _, tt := range tests {
		if got := fmt.Sprintf(tt.format, a); got != tt.want {
			t.Errorf("Sprintf(%q) = %q, want %q", tt.format, got, tt.want)
		}
	}
	// Inside other values, by value and by pointer.
	type line struct {
		Amount money.Amount
		Memo   string
	}
	if got, want := fmt.Sprintf("%v", line{a, "x"}), "{-12.50 x}"; got != want {
		t.Errorf("Sprintf(%%v, struct) = %q, want %q", got, want)
	}
	fee := money.MustParse("0.01", 2)
	if got, want := fmt.Sprint([]money.Amount{a, fee}), "[-12.50 0.01]"; got != want {
		t.Errorf("Sprint(slice) = %q, want %q", got, want)
	}
	if got, want := fmt.Sprintf("%v", &fee), "0.01"; got != want {
		t.Errorf("Sprintf(%%v, pointer) = %q, want %q", got, want)
	}
}

func TestDecimalIsACopy(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"12.50", "-" + u128 + ".25"} {
		a := money.MustParse(s, 2)
		d := a.Decimal()
		if got := d.Text('f'); got != a.String() {
			t.Errorf("Decimal(%s).Text('f') = %s", a, got)
		}
		d.Coeff.SetInt64(7)
		d.Negative = false
		d.Exponent = 0
		if a.String() != money.MustParse(s, 2).String() {
			t.Errorf("changing Decimal() changed the amount to %s", a)
		}
	}
}

// TestConcurrentUse shares amounts of every size between goroutines; run
// with -race it checks that no method writes to shared state.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	shared := []money.Amount{
		money.MustParse("12.345678", 6),
		money.MustParse(u128max+".5", 6),
		money.MustParse("-"+strings.Repeat("7", 70), 6),
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, a := range shared {
				for _, b := range shared {
					_, _ = a.Add(b)
					_, _ = a.Sub(b)
					_ = a.Cmp(b)
				}
				_, _ = a.MulRatio(3, 7, money.RoundHalfEven)
				_, _ = a.Rescale(36)
				_, _ = a.Rescale(0)
				_ = a.Neg().String()
				_ = a.Display(2)
				_ = a.Decimal()
			}
		}()
	}
	wg.Wait()
	for i, want := range []string{"12.345678", u128max + ".500000", "-" + strings.Repeat("7", 70) + ".000000"} {
		if got := shared[i].String(); got != want {
			t.Errorf("shared[%d] changed to %s", i, got)
		}
	}
}
