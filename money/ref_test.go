package money_test

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/mwallet/mwallet-go/money"
)

// This file holds an independent reference model built on math/big, and a
// deterministic randomized comparison of the package against it. The fuzz
// tests reuse the model.

var (
	plainGrammar = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)
	minorGrammar = regexp.MustCompile(`^-?[0-9]+$`)
	digitLimit   = pow10(80)
)

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// refParse is Parse as specified: the grammar, then the exact value times
// 10^scale must be an integer below 10^80 in magnitude. It returns the
// signed coefficient or the sentinel error expected.
func refParse(s string, scale int) (*big.Int, error) {
	if scale < 0 || scale > money.MaxScale {
		return nil, money.ErrScale
	}
	if !plainGrammar.MatchString(s) {
		return nil, money.ErrSyntax
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("big.Rat refused a plain decimal: " + s)
	}
	r.Mul(r, new(big.Rat).SetInt(pow10(scale)))
	if !r.IsInt() {
		return nil, money.ErrPrecision
	}
	c := new(big.Int).Set(r.Num())
	if new(big.Int).Abs(c).Cmp(digitLimit) >= 0 {
		return nil, money.ErrRange
	}
	return c, nil
}

// coef returns the signed coefficient of a, read back through big.Rat from
// its String (so the two representations are checked against each other).
func coef(t testing.TB, a money.Amount) *big.Int {
	t.Helper()
	s := a.String()
	if !plainGrammar.MatchString(s) {
		t.Fatalf("String() = %q is not a plain decimal", s)
	}
	if i := strings.IndexByte(s, '.'); (i < 0 && a.Scale() != 0) || (i >= 0 && len(s)-i-1 != a.Scale()) {
		t.Fatalf("String() = %q does not have %d decimals", s, a.Scale())
	}
	r, _ := new(big.Rat).SetString(s)
	r.Mul(r, new(big.Rat).SetInt(pow10(a.Scale())))
	if !r.IsInt() {
		t.Fatalf("String() = %q is not a multiple of 10^-%d", s, a.Scale())
	}
	m, ok := new(big.Int).SetString(a.Minor(), 10)
	if !ok || m.Cmp(r.Num()) != 0 {
		t.Fatalf("Minor() = %q disagrees with String() = %q", a.Minor(), s)
	}
	if a.Sign() != m.Sign() || a.IsZero() != (m.Sign() == 0) || a.IsNegative() != (m.Sign() < 0) {
		t.Fatalf("Sign/IsZero/IsNegative of %s disagree with its value", s)
	}
	if m.Sign() == 0 && strings.HasPrefix(s, "-") {
		t.Fatalf("String() = %q is a negative zero", s)
	}
	return m
}

// fromCoef builds the Amount with coefficient c at scale through ParseMinor.
func fromCoef(t testing.TB, c *big.Int, scale int) money.Amount {
	t.Helper()
	a, err := money.ParseMinor(c.String(), scale)
	if err != nil {
		t.Fatalf("ParseMinor(%s, %d): %v", c, scale, err)
	}
	return a
}

// refMulRatio is a×num/den rounded with mode, on the coefficient c.
func refMulRatio(c *big.Int, num, den int64, mode money.Rounding) (*big.Int, error) {
	p := new(big.Int).Mul(c, big.NewInt(num))
	neg := p.Sign() < 0
	p.Abs(p)
	d := big.NewInt(den)
	q, r := new(big.Int).QuoRem(p, d, new(big.Int))
	if r.Sign() != 0 {
		twice := new(big.Int).Lsh(r, 1)
		half := twice.Cmp(d)
		var up bool
		switch mode {
		case money.RoundExact:
			return nil, money.ErrPrecision
		case money.RoundDown:
		case money.RoundUp:
			up = true
		case money.RoundHalfUp:
			up = half >= 0
		case money.RoundHalfEven:
			up = half > 0 || half == 0 && q.Bit(0) == 1
		case money.RoundFloor:
			up = neg
		case money.RoundCeiling:
			up = !neg
		}
		if up {
			q.Add(q, big.NewInt(1))
		}
	}
	if neg {
		q.Neg(q)
	}
	if new(big.Int).Abs(q).Cmp(digitLimit) >= 0 {
		return nil, money.ErrRange
	}
	return q, nil
}

// checkAgainstModel compares every operation on a and b (same scale) with
// the reference model. It is shared by the randomized test and the fuzzers.
func checkAgainstModel(t testing.TB, a, b money.Amount, num, den int64, mode money.Rounding, to, display int) {
	t.Helper()
	ca, cb := coef(t, a), coef(t, b)
	scale := a.Scale()

	// String and Parse round trip.
	if back, err := money.Parse(a.String(), scale); err != nil || !back.Equal(a) {
		t.Fatalf("Parse(String(%s)) = %v, %v", a, back, err)
	}

	// Add and Sub.
	for _, op := range []struct {
		name string
		got  func() (money.Amount, error)
		want *big.Int
	}{
		{"+", func() (money.Amount, error) { return a.Add(b) }, new(big.Int).Add(ca, cb)},
		{"-", func() (money.Amount, error) { return a.Sub(b) }, new(big.Int).Sub(ca, cb)},
	} {
		got, err := op.got()
		if new(big.Int).Abs(op.want).Cmp(digitLimit) >= 0 {
			if !errors.Is(err, money.ErrRange) {
				t.Fatalf("%s %s %s = %v, %v; want ErrRange", a, op.name, b, got, err)
			}
			continue
		}
		if err != nil || got.Scale() != scale || coef(t, got).Cmp(op.want) != 0 {
			t.Fatalf("%s %s %s = %v, %v; want coefficient %s", a, op.name, b, got, err, op.want)
		}
	}

	// Neg.
	if n := a.Neg(); coef(t, n).Cmp(new(big.Int).Neg(ca)) != 0 || n.Scale() != scale {
		t.Fatalf("(%s).Neg() = %s", a, n)
	}

	// Cmp and Equal at the same scale.
	if got, want := a.Cmp(b), ca.Cmp(cb); got != want {
		t.Fatalf("Cmp(%s, %s) = %d, want %d", a, b, got, want)
	}
	if got, want := a.Equal(b), ca.Cmp(cb) == 0; got != want {
		t.Fatalf("Equal(%s, %s) = %v, want %v", a, b, got, want)
	}

	// Rescale, and Cmp across scales.
	r, err := a.Rescale(to)
	switch {
	case to < 0 || to > money.MaxScale:
		if !errors.Is(err, money.ErrScale) {
			t.Fatalf("%s.Rescale(%d) error = %v, want ErrScale", a, to, err)
		}
	case to >= scale:
		want := new(big.Int).Mul(ca, pow10(to-scale))
		if new(big.Int).Abs(want).Cmp(digitLimit) >= 0 {
			if !errors.Is(err, money.ErrRange) {
				t.Fatalf("%s.Rescale(%d) = %v, %v; want ErrRange", a, to, r, err)
			}
			break
		}
		if err != nil || r.Scale() != to || coef(t, r).Cmp(want) != 0 {
			t.Fatalf("%s.Rescale(%d) = %v, %v; want coefficient %s", a, to, r, err, want)
		}
	default:
		q, rem := new(big.Int).QuoRem(ca, pow10(scale-to), new(big.Int))
		if rem.Sign() != 0 {
			if !errors.Is(err, money.ErrPrecision) {
				t.Fatalf("%s.Rescale(%d) = %v, %v; want ErrPrecision", a, to, r, err)
			}
			break
		}
		if err != nil || r.Scale() != to || coef(t, r).Cmp(q) != 0 {
			t.Fatalf("%s.Rescale(%d) = %v, %v; want coefficient %s", a, to, r, err, q)
		}
	}
	if err == nil && to >= 0 && to <= money.MaxScale {
		if r.Cmp(a) != 0 || a.Cmp(r) != 0 {
			t.Fatalf("Cmp(%s, its rescale %s) != 0", a, r)
		}
		if r.Cmp(b) != a.Cmp(b) || b.Cmp(r) != b.Cmp(a) {
			t.Fatalf("Cmp across scales: %s vs %s gave %d, %s vs %s gave %d", r, b, r.Cmp(b), a, b, a.Cmp(b))
		}
		if to != scale && r.Equal(a) {
			t.Fatalf("Equal(%s, %s) across scales", r, a)
		}
	}

	// MulRatio.
	got, err := a.MulRatio(num, den, mode)
	switch {
	case den <= 0 || mode < money.RoundDown || mode > money.RoundCeiling:
		if !errors.Is(err, money.ErrArgument) {
			t.Fatalf("%s.MulRatio(%d, %d, %v) error = %v, want ErrArgument", a, num, den, mode, err)
		}
	default:
		want, wantErr := refMulRatio(ca, num, den, mode)
		if wantErr != nil {
			if !errors.Is(err, wantErr) {
				t.Fatalf("%s.MulRatio(%d, %d, %v) = %v, %v; want %v", a, num, den, mode, got, err, wantErr)
			}
			break
		}
		if err != nil || got.Scale() != scale || coef(t, got).Cmp(want) != 0 {
			t.Fatalf("%s.MulRatio(%d, %d, %v) = %v, %v; want coefficient %s", a, num, den, mode, got, err, want)
		}
	}

	// Display truncates toward zero.
	shown := a.Display(display)
	if display < 0 || display >= scale {
		if shown != a.String() {
			t.Fatalf("%s.Display(%d) = %q, want String", a, display, shown)
		}
	} else {
		d, err := money.Parse(shown, display)
		if err != nil {
			t.Fatalf("%s.Display(%d) = %q does not parse: %v", a, display, shown, err)
		}
		want := new(big.Int).Quo(ca, pow10(scale-display)) // truncates toward zero
		if coef(t, d).Cmp(want) != 0 || d.String() != shown {
			t.Fatalf("%s.Display(%d) = %q, want coefficient %s", a, display, shown, want)
		}
	}
}

// randCoef returns a signed coefficient whose bit length clusters around
// the 64- and 128-bit boundaries of the implementation, below 10^80.
func randCoef(rng *rand.Rand) *big.Int {
	sizes := []int{0, 1, 7, 62, 63, 64, 65, 100, 126, 127, 128, 129, 130, 200, 264}
	n := sizes[rng.IntN(len(sizes))] + rng.IntN(3)
	c := new(big.Int)
	for i := 0; i < n; i += 32 {
		c.Lsh(c, 32).Or(c, big.NewInt(int64(rng.Uint32())))
	}
	if n > 0 {
		c.Rsh(c, uint(c.BitLen()-min(n, c.BitLen())))
	}
	switch rng.IntN(4) {
	case 0: // exactly a power of two, or one below
		c.Lsh(big.NewInt(1), uint(n))
		if rng.IntN(2) == 0 {
			c.Sub(c, big.NewInt(1))
		}
	}
	if c.Cmp(digitLimit) >= 0 {
		c.Mod(c, digitLimit)
	}
	if rng.IntN(2) == 0 {
		c.Neg(c)
	}
	return c
}

func randInt64(rng *rand.Rand) int64 {
	switch rng.IntN(5) {
	case 0:
		return int64(rng.IntN(20)) - 5
	case 1:
		return []int64{1, 2, 3, 7, 8, 10000, 9999, 1 << 32, 1<<63 - 1, -1 << 63}[rng.IntN(10)]
	default:
		return int64(rng.Uint64()) >> rng.IntN(63)
	}
}

// iterations keeps the randomized tests quick under -short and -race.
func iterations() int {
	if testing.Short() || raceEnabled {
		return 3000
	}
	return 20000
}

// TestAgainstModel runs the model comparison on seeded random operands.
func TestAgainstModel(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(20240601, 7))
	for i := 0; i < iterations(); i++ {
		scale := rng.IntN(money.MaxScale + 1)
		a := fromCoef(t, randCoef(rng), scale)
		b := fromCoef(t, randCoef(rng), scale)
		if rng.IntN(4) == 0 {
			b = a // equal operands
		}
		mode := money.Rounding(rng.IntN(9)) // includes invalid 0 and 8
		den := randInt64(rng)
		if rng.IntN(3) > 0 && den <= 0 {
			den = -den + 1
		}
		checkAgainstModel(t, a, b, randInt64(rng), den, mode, rng.IntN(money.MaxScale+3)-1, rng.IntN(money.MaxScale+2)-1)
	}
}

// TestParseAgainstModel parses generated strings, valid and not, with both
// the package and the reference model.
func TestParseAgainstModel(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := "0123456789000000.-+eE nN"
	for i := 0; i < iterations(); i++ {
		var sb strings.Builder
		if rng.IntN(4) == 0 {
			sb.WriteByte('-')
		}
		for n := rng.IntN(45); n > 0; n-- {
			if rng.IntN(8) == 0 {
				sb.WriteByte(alphabet[rng.IntN(len(alphabet))])
			} else {
				sb.WriteByte(byte('0' + rng.IntN(10)))
			}
		}
		if rng.IntN(2) == 0 {
			sb.WriteByte('.')
			for n := rng.IntN(40); n > 0; n-- {
				if rng.IntN(3) == 0 {
					sb.WriteByte('0')
				} else {
					sb.WriteByte(byte('0' + rng.IntN(10)))
				}
			}
		}
		checkParse(t, sb.String(), rng.IntN(money.MaxScale+3)-1)
	}
}

// checkParse compares Parse, ParseNonNegative and ParseMinor on s with the
// reference model.
func checkParse(t testing.TB, s string, scale int) {
	t.Helper()
	a, err := money.Parse(s, scale)
	want, wantErr := refParse(s, scale)
	if wantErr != nil {
		if !errors.Is(err, wantErr) {
			t.Fatalf("Parse(%q, %d) = %v, %v; want %v", s, scale, a, err, wantErr)
		}
		var pe *money.ParseError
		if !errors.As(err, &pe) || pe.Input != s || pe.Scale != scale {
			t.Fatalf("Parse(%q, %d) error %v is not a *ParseError with the input", s, scale, err)
		}
	} else {
		if err != nil {
			t.Fatalf("Parse(%q, %d): %v; want coefficient %s", s, scale, err, want)
		}
		if a.Scale() != scale || coef(t, a).Cmp(want) != 0 {
			t.Fatalf("Parse(%q, %d) = %s, want coefficient %s", s, scale, a, want)
		}
		if back, err := money.Parse(a.String(), scale); err != nil || !back.Equal(a) {
			t.Fatalf("Parse(String(Parse(%q, %d))) = %v, %v", s, scale, back, err)
		}
		if d := a.Decimal(); d.Form != apd.Finite || d.Exponent != -int32(scale) {
			t.Fatalf("Parse(%q, %d).Decimal() = %s has form %v, exponent %d", s, scale, d.Text('f'), d.Form, d.Exponent)
		}
	}

	nn, err := money.ParseNonNegative(s, scale)
	switch {
	case errors.Is(wantErr, money.ErrSyntax) || errors.Is(wantErr, money.ErrScale):
		if !errors.Is(err, wantErr) {
			t.Fatalf("ParseNonNegative(%q, %d) = %v, want %v", s, scale, err, wantErr)
		}
	case strings.HasPrefix(s, "-"):
		if !errors.Is(err, money.ErrNegative) {
			t.Fatalf("ParseNonNegative(%q, %d) = %v, %v; want ErrNegative", s, scale, nn, err)
		}
	case wantErr != nil:
		if !errors.Is(err, wantErr) {
			t.Fatalf("ParseNonNegative(%q, %d) = %v, want %v", s, scale, err, wantErr)
		}
	default:
		if err != nil || !nn.Equal(a) {
			t.Fatalf("ParseNonNegative(%q, %d) = %v, %v; want %s", s, scale, nn, err, a)
		}
	}

	m, err := money.ParseMinor(s, scale)
	switch {
	case scale < 0 || scale > money.MaxScale:
		if !errors.Is(err, money.ErrScale) {
			t.Fatalf("ParseMinor(%q, %d) error = %v, want ErrScale", s, scale, err)
		}
	case !minorGrammar.MatchString(s):
		if !errors.Is(err, money.ErrSyntax) {
			t.Fatalf("ParseMinor(%q, %d) error = %v, want ErrSyntax", s, scale, err)
		}
	default:
		c, _ := new(big.Int).SetString(s, 10)
		if new(big.Int).Abs(c).Cmp(digitLimit) >= 0 {
			if !errors.Is(err, money.ErrRange) {
				t.Fatalf("ParseMinor(%q, %d) error = %v, want ErrRange", s, scale, err)
			}
			break
		}
		if err != nil || m.Scale() != scale || coef(t, m).Cmp(c) != 0 {
			t.Fatalf("ParseMinor(%q, %d) = %v, %v", s, scale, m, err)
		}
	}
}
