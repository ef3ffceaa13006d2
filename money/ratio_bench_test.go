package money_test

import (
	"testing"

	"github.com/mwallet/mwallet-go/money"
)

// amount18 has 18 significant digits, the most an int64 fixed-point parser
// holds: the upper end of the range where Parse is measured against
// parseStrconv (ratio and allocations in BENCHMARKS.md).
const amount18 = "-123456789012.345678"

func BenchmarkParse18Digits(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		a, err := money.Parse(amount18, 6)
		if err != nil {
			b.Fatal(err)
		}
		sinkAmount = a
	}
}

func BenchmarkParseStrconvBaseline18Digits(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		v, err := parseStrconv(amount18, 6)
		if err != nil {
			b.Fatal(err)
		}
		sinkInt = v
	}
}
