package catalogue

import (
	"errors"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/money"
)

// TestParseAmount holds the one amount parser (Parse) to its contract
// in every form: the grammar, the scale (fewer decimals padded, extra zero
// decimals dropped, extra non-zero decimals refused, never rounded), signs,
// exponents and the sentinel of each refusal.
func TestParseAmount(t *testing.T) {
	t.Parallel()
	const (
		S = Signed
		N = NonNegative
		M = Minor
	)
	for _, tc := range []struct {
		in    string
		scale int
		form  Form
		want  string // the amount's text; "" when refused
		err   error  // the sentinel of a refusal
	}{
		// Scale: exact, fewer, extra zero, extra non-zero decimals.
		{"12.345678", 6, S, "12.345678", nil},
		{"12.5", 6, S, "12.500000", nil},
		{"12", 6, S, "12.000000", nil},
		{"12.34567800", 6, S, "12.345678", nil},
		{"12.3456789", 6, S, "", money.ErrPrecision},
		{"0.0000001", 6, N, "", money.ErrPrecision},
		{"1.50", 0, S, "", money.ErrPrecision},
		{"1.00", 0, S, "1", nil},
		{"0.000000000000000001", 18, S, "0.000000000000000001", nil},
		{"007.10", 2, N, "7.10", nil},
		// Signs.
		{"-12.5", 2, S, "-12.50", nil},
		{"-0", 2, S, "0.00", nil},
		{"-12.5", 2, N, "", money.ErrNegative},
		{"-0", 2, N, "", money.ErrNegative},
		{"-0.001", 2, N, "", money.ErrNegative}, // the sign before the precision
		{"+12.5", 2, S, "", money.ErrSyntax},
		{"+12.5", 2, N, "", money.ErrSyntax},
		// Grammar: no exponent, spaces, separators, bare points, empties.
		{"1e3", 2, S, "", money.ErrSyntax},
		{"1E3", 2, N, "", money.ErrSyntax},
		{"1.5e-2", 6, S, "", money.ErrSyntax},
		{" 12", 2, S, "", money.ErrSyntax},
		{"12 ", 2, S, "", money.ErrSyntax},
		{"1,000.00", 2, S, "", money.ErrSyntax},
		{"1_000", 2, S, "", money.ErrSyntax},
		{".5", 2, S, "", money.ErrSyntax},
		{"5.", 2, S, "", money.ErrSyntax},
		{"1.2.3", 2, S, "", money.ErrSyntax},
		{"", 2, S, "", money.ErrSyntax},
		{"-", 2, S, "", money.ErrSyntax},
		{"NaN", 2, S, "", money.ErrSyntax},
		{"Infinity", 2, N, "", money.ErrSyntax},
		{"0x10", 2, S, "", money.ErrSyntax},
		{"١٢", 2, S, "", money.ErrSyntax}, // non-ASCII digits
		// Range and scale.
		{strings.Repeat("9", 81), 0, S, "", money.ErrRange},
		{"1", money.MaxScale + 1, S, "", money.ErrScale},
		{"1", -1, N, "", money.ErrScale},
		// Minor units: an integer count of the smallest unit.
		{"1234", 2, M, "12.34", nil},
		{"-1234", 2, M, "-12.34", nil},
		{"0", 2, M, "0.00", nil},
		{"12.34", 2, M, "", money.ErrSyntax},
		{"1e3", 2, M, "", money.ErrSyntax},
		{"", 2, M, "", money.ErrSyntax},
	} {
		a, err := Parse(tc.in, tc.scale, tc.form)
		if tc.err != nil {
			var pe *money.ParseError
			if !errors.Is(err, tc.err) || !errors.As(err, &pe) || pe.Input != tc.in {
				t.Errorf("Parse(%q, %d, %d) = %v, %v; want a *money.ParseError of %v", tc.in, tc.scale, tc.form, a, err, tc.err)
			}
			continue
		}
		if err != nil || a.String() != tc.want || a.Scale() != tc.scale {
			t.Errorf("Parse(%q, %d, %d) = %v (scale %d), %v; want %s", tc.in, tc.scale, tc.form, a, a.Scale(), err, tc.want)
		}
	}
}

// TestCatalogueAmount: an amount of a catalogue asset is read at the
// asset's ledger scale; an asset outside the catalogue is its own error,
// whose text the control API answers inside invalid_request.
func TestCatalogueAmount(t *testing.T) {
	t.Parallel()
	c := testCatalogue()
	for _, tc := range []struct {
		asset, in string
		form      Form
		want      string
		errText   string
	}{
		{"USDT", "10", Signed, "10.000000", ""},
		{"BTC", "0.1", Signed, "0.10000000", ""},
		{"ETH", "1", NonNegative, "1.000000000000000000", ""},
		{"OFF", "1.5", Signed, "1.50", ""}, // a disabled asset still has a scale
		{"USDT", "1.0000001", Signed, "", `money: cannot parse "1.0000001" at scale 6: more decimals than the ledger scale`},
		{"USDT", "-1", NonNegative, "", `money: cannot parse "-1" at scale 6: negative amount`},
		{"XRP", "1", Signed, "", `unknown asset "XRP"`},
		{"usdt", "1", Signed, "", `unknown asset "usdt"`},
	} {
		a, err := c.Amount(tc.asset, tc.in, tc.form)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.errText || (err == nil && a.String() != tc.want) {
			t.Errorf("amount(%s, %q) = %v, %q; want %s, %q", tc.asset, tc.in, a, got, tc.want, tc.errText)
		}
	}
}

// TestCheckAmounts: an amount the asset can hold passes, whatever the case
// and spaces of its code; one it cannot hold, a negative one or one of an
// asset outside the catalogue is refused naming its field, the first in
// the codes' order.
func TestCheckAmounts(t *testing.T) {
	t.Parallel()
	c := testCatalogue()
	for _, tc := range []struct {
		name    string
		amounts map[string]string
		want    string // the error's text; "" when it passes
	}{
		{"none", nil, ""},
		{"held", map[string]string{"USDT": "1.5", " usdc ": "2"}, ""},
		{"too many decimals", map[string]string{"USDT": "1.1234567"}, "balances.USDT: "},
		{"negative", map[string]string{"USDT": "-1"}, "balances.USDT: "},
		{"unknown asset", map[string]string{"XYZ": "1"}, `balances.XYZ: unknown asset "XYZ"`},
		{"first in order", map[string]string{"ZZZ": "1", "AAA": "1"}, `balances.AAA: unknown asset "AAA"`},
	} {
		err := c.CheckAmounts("balances", tc.amounts)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want nil", tc.name, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q...", tc.name, err, tc.want)
		}
	}
	if err := c.CheckAmount("amount", "usdt", "0.1234567"); err == nil || !strings.HasPrefix(err.Error(), "amount: ") {
		t.Errorf("CheckAmount: %v", err)
	}
}
