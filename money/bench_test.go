package money_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/money"
)

// parseStrconv is the baseline Parse is measured against: a plain
// fixed-point parser into an int64 built on strconv, with no grammar checks
// beyond what strconv does.
func parseStrconv(s string, scale int) (int64, error) {
	intPart, frac, hasDot := strings.Cut(s, ".")
	i, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil {
		return 0, err
	}
	if len(frac) > scale {
		return 0, errors.New("too many decimals")
	}
	var f int64
	if hasDot {
		if f, err = strconv.ParseInt(frac, 10, 64); err != nil {
			return 0, err
		}
	}
	for k := len(frac); k < scale; k++ {
		f *= 10
	}
	p := int64(1)
	for k := 0; k < scale; k++ {
		p *= 10
	}
	if strings.HasPrefix(intPart, "-") {
		return i*p - f, nil
	}
	return i*p + f, nil
}

var (
	sinkAmount money.Amount
	sinkInt    int64
	sinkString string
	sinkBytes  []byte
	sinkBool   bool
)

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		a, err := money.Parse("12345.678901", 6)
		if err != nil {
			b.Fatal(err)
		}
		sinkAmount = a
	}
}

func BenchmarkParseStrconvBaseline(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		v, err := parseStrconv("12345.678901", 6)
		if err != nil {
			b.Fatal(err)
		}
		sinkInt = v
	}
}

func BenchmarkParseBig(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		a, err := money.Parse("123456789012.345678901234567890", 18)
		if err != nil {
			b.Fatal(err)
		}
		sinkAmount = a
	}
}

func BenchmarkParseHuge(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		a, err := money.Parse("1234567890123456789012345678901234567890.123456", 18)
		if err != nil {
			b.Fatal(err)
		}
		sinkAmount = a
	}
}

func BenchmarkAppend(b *testing.B) {
	a := money.MustParse("12345.678901", 6)
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		buf = a.Append(buf[:0])
	}
	sinkBytes = buf
}

func BenchmarkAppendBig(b *testing.B) {
	a := money.MustParse("123456789012.345678901234567890", 18)
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		buf = a.Append(buf[:0])
	}
	sinkBytes = buf
}

func BenchmarkString(b *testing.B) {
	a := money.MustParse("12345.678901", 6)
	b.ReportAllocs()
	for b.Loop() {
		sinkString = a.String()
	}
}

func BenchmarkMulRatio(b *testing.B) {
	a := money.MustParse("12345.678901", 6)
	b.ReportAllocs()
	for b.Loop() {
		r, err := a.MulRatio(25, 10000, money.RoundHalfEven)
		if err != nil {
			b.Fatal(err)
		}
		sinkAmount = r
	}
}

func BenchmarkAdd(b *testing.B) {
	x := money.MustParse("12345.678901", 6)
	y := money.MustParse("-0.000123", 6)
	b.ReportAllocs()
	for b.Loop() {
		r, err := x.Add(y)
		if err != nil {
			b.Fatal(err)
		}
		sinkAmount = r
	}
}

func BenchmarkAddBig(b *testing.B) {
	x := money.MustParse("123456789012.345678901234567890", 18)
	y := money.MustParse("-0.000000000000000001", 18)
	b.ReportAllocs()
	for b.Loop() {
		r, err := x.Add(y)
		if err != nil {
			b.Fatal(err)
		}
		sinkAmount = r
	}
}

func BenchmarkCmp(b *testing.B) {
	x := money.MustParse("12345.678901", 6)
	y := money.MustParse("12345.6789", 4)
	b.ReportAllocs()
	for b.Loop() {
		sinkInt = int64(x.Cmp(y))
	}
}
