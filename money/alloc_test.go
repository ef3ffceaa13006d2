package money_test

import (
	"testing"

	"github.com/mwallet/mwallet-go/money"
)

// TestAllocations pins the allocation budgets of the money paths (Parse and
// Append: 0), so that a regression fails CI without timing anything:
// parsing, formatting into a caller's buffer, and arithmetic on amounts
// whose coefficient fits in 128 bits (38 digits), which covers every
// realistic balance at scale 18.
func TestAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	small := money.MustParse("12345.678901", 6)
	small2 := money.MustParse("-0.000123", 6)
	wide := money.MustParse("123456789012.345678901234567890", 18)
	wide2 := money.MustParse("-99999999999999999999.999999999999999999", 18)
	buf := make([]byte, 0, 64)
	tests := []struct {
		name string
		max  float64
		fn   func()
	}{
		{"Parse 12 digits", 0, func() { sinkAmount, _ = money.Parse("12345.678901", 6) }},
		{"Parse 18 digits", 0, func() { sinkAmount, _ = money.Parse("-123456789012.345678", 6) }},
		{"Parse 30 digits", 0, func() { sinkAmount, _ = money.Parse("123456789012.345678901234567890", 18) }},
		{"Parse 38 digits", 0, func() { sinkAmount, _ = money.Parse("99999999999999999999.999999999999999999", 18) }},
		{"ParseNonNegative", 0, func() { sinkAmount, _ = money.ParseNonNegative("0.5", 8) }},
		{"ParseMinor", 0, func() { sinkAmount, _ = money.ParseMinor("1234", 2) }},
		{"FromMinor", 0, func() { sinkAmount, _ = money.FromMinor(1234, 2) }},
		{"Append", 0, func() { buf = small.Append(buf[:0]) }},
		{"Append wide", 0, func() { buf = wide2.Append(buf[:0]) }},
		{"AppendText", 0, func() { buf, _ = wide.AppendText(buf[:0]) }},
		{"Add", 0, func() { sinkAmount, _ = small.Add(small2) }},
		{"Sub wide", 0, func() { sinkAmount, _ = wide.Sub(wide2) }},
		{"Cmp across scales", 0, func() { sinkInt = int64(small.Cmp(wide)) }},
		{"Equal", 0, func() { sinkBool = wide.Equal(wide2) }},
		{"Neg", 0, func() { sinkAmount = wide.Neg() }},
		{"Rescale", 0, func() { sinkAmount, _ = small.Rescale(18) }},
		{"MulRatio", 0, func() { sinkAmount, _ = small.MulRatio(25, 10000, money.RoundHalfEven) }},
		{"MulRatio wide", 0, func() { sinkAmount, _ = wide.MulRatio(-30, 10000, money.RoundFloor) }},
		{"String", 1, func() { sinkString = small.String() }},
		{"MarshalJSON", 1, func() { sinkBytes, _ = small.MarshalJSON() }},
	}
	for _, tt := range tests {
		if got := testing.AllocsPerRun(100, tt.fn); got > tt.max {
			t.Errorf("%s: %v allocations, want at most %v", tt.name, got, tt.max)
		}
	}
}
