package money_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/money"
)

func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		scale int
		json  string
	}{
		{"12.34", 2, `"12.34"`},
		{"-12.34", 2, `"-12.34"`},
		{"0", 6, `"0.000000"`},
		{"-0", 6, `"0.000000"`},
		{"7", 0, `"7"`},
		{"0.00000001", 8, `"0.00000001"`},
		{"123456789012.345678901234567890", 18, `"123456789012.345678901234567890"`},
		{"-" + u128 + ".5", 36, `"-` + u128 + `.5` + strings.Repeat("0", 35) + `"`},
	}
	for _, tt := range tests {
		a := money.MustParse(tt.in, tt.scale)
		b, err := json.Marshal(a)
		if err != nil || string(b) != tt.json {
			t.Errorf("Marshal(%s) = %s, %v; want %s", a, b, err, tt.json)
			continue
		}
		var back money.Amount
		if err := json.Unmarshal(b, &back); err != nil {
			t.Errorf("Unmarshal(%s): %v", b, err)
			continue
		}
		if !back.Equal(a) {
			t.Errorf("Unmarshal(%s) = %s at scale %d, want %s at scale %d", b, back, back.Scale(), a, a.Scale())
		}
	}
}

// wire is a response struct holding amounts every way a caller might.
type wire struct {
	Value     money.Amount             `json:"value"`
	Pointer   *money.Amount            `json:"pointer"`
	OmitEmpty money.Amount             `json:"omit_empty,omitempty"`
	OmitZero  money.Amount             `json:"omit_zero,omitzero"`
	NilPtr    *money.Amount            `json:"nil_ptr,omitempty"`
	List      []money.Amount           `json:"list"`
	ByAsset   map[string]money.Amount  `json:"by_asset"`
	Any       any                      `json:"any"`
	Nested    struct{ A money.Amount } `json:"nested"`
}

func TestJSONInStructs(t *testing.T) {
	t.Parallel()
	p := money.MustParse("1.5", 6)
	w := wire{
		Value:     money.MustParse("12.34", 2),
		Pointer:   &p,
		OmitEmpty: money.Zero(2), // omitempty never omits a struct
		OmitZero:  money.Zero(2), // omitzero omits a zero amount
		List:      []money.Amount{money.MustParse("1", 0), money.MustParse("-2.5", 1)},
		ByAsset:   map[string]money.Amount{"BTC": money.MustParse("0.1", 8)},
		Any:       money.MustParse("3", 1),
	}
	w.Nested.A = money.MustParse("9.99", 2)
	want := `{"value":"12.34","pointer":"1.500000","omit_empty":"0.00","list":["1","-2.5"],` +
		`"by_asset":{"BTC":"0.10000000"},"any":"3.0","nested":{"A":"9.99"}}`
	for name, v := range map[string]any{"value": w, "pointer": &w} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("Marshal(%s): %v", name, err)
		}
		if string(b) != want {
			t.Errorf("Marshal(%s) =\n%s\nwant\n%s", name, b, want)
		}
	}

	// A non-zero amount under omitzero is written.
	w.OmitZero = money.MustParse("0.01", 2)
	b, err := json.Marshal(w)
	if err != nil || !strings.Contains(string(b), `"omit_zero":"0.01"`) {
		t.Errorf("Marshal with non-zero omitzero field = %s, %v", b, err)
	}

	var back wire
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	back.Any = w.Any // decodes as a string into an interface
	if diff := cmp.Diff(w, back); diff != "" {
		t.Errorf("JSON round trip (-sent +decoded):\n%s", diff)
	}
}

func TestUnmarshalJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		json      string
		want      string
		wantScale int
		wantErr   error
	}{
		{`"12.340"`, "12.340", 3, nil},
		{`"-0.00"`, "0.00", 2, nil},
		{`"5"`, "5", 0, nil},
		{`"\u0031.5"`, "1.5", 1, nil}, // escapes are decoded first
		{`"1.` + strings.Repeat("0", 36) + `"`, "1." + strings.Repeat("0", 36), 36, nil},
		// Numbers are refused even when exact.
		{`12.34`, "", 0, money.ErrSyntax},
		{`12`, "", 0, money.ErrSyntax},
		{`-0`, "", 0, money.ErrSyntax},
		{`1e3`, "", 0, money.ErrSyntax},
		{`true`, "", 0, money.ErrSyntax},
		{`{}`, "", 0, money.ErrSyntax},
		{`[]`, "", 0, money.ErrSyntax},
		// Strings outside the grammar.
		{`""`, "", 0, money.ErrSyntax},
		{`"1e3"`, "", 0, money.ErrSyntax},
		{`"+1"`, "", 0, money.ErrSyntax},
		{`" 1"`, "", 0, money.ErrSyntax},
		{`"NaN"`, "", 0, money.ErrSyntax},
		{`"Infinity"`, "", 0, money.ErrSyntax},
		{`".5"`, "", 0, money.ErrSyntax},
		{`"5."`, "", 0, money.ErrSyntax},
		{`"1\n"`, "", 0, money.ErrSyntax},
		{`"1.` + strings.Repeat("0", 37) + `"`, "", 0, money.ErrScale},
	}
	for _, tt := range tests {
		var got struct {
			A money.Amount `json:"a"`
		}
		err := json.Unmarshal([]byte(`{"a":`+tt.json+`}`), &got)
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("Unmarshal(%s) error = %v, want %v", tt.json, err, tt.wantErr)
			continue
		}
		if err != nil {
			var pe *money.ParseError
			if !errors.As(err, &pe) {
				t.Errorf("Unmarshal(%s) error %v is not a *ParseError", tt.json, err)
			}
			continue
		}
		if got.A.String() != tt.want || got.A.Scale() != tt.wantScale {
			t.Errorf("Unmarshal(%s) = %s at scale %d, want %s at scale %d", tt.json, got.A, got.A.Scale(), tt.want, tt.wantScale)
		}
	}

	// null leaves the value alone and sets pointers to nil.
	var v struct {
		A money.Amount  `json:"a"`
		P *money.Amount `json:"p"`
	}
	v.A = money.MustParse("1.25", 2)
	p := money.MustParse("1", 0)
	v.P = &p
	if err := json.Unmarshal([]byte(`{"a":null,"p":null}`), &v); err != nil {
		t.Fatalf("Unmarshal(null): %v", err)
	}
	if !v.A.Equal(money.MustParse("1.25", 2)) || v.P != nil {
		t.Errorf("after null: A = %s, P = %v", v.A, v.P)
	}
	// A failed decode leaves the previous value.
	if err := json.Unmarshal([]byte(`{"a":"1.5e1"}`), &v); err == nil || !v.A.Equal(money.MustParse("1.25", 2)) {
		t.Errorf("failed decode: err = %v, A = %s", err, v.A)
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	a := money.MustParse("-0.5", 8)
	b, err := a.MarshalText()
	if err != nil || string(b) != "-0.50000000" {
		t.Errorf("MarshalText = %s, %v", b, err)
	}
	b, err = a.AppendText([]byte("x="))
	if err != nil || string(b) != "x=-0.50000000" {
		t.Errorf("AppendText = %s, %v", b, err)
	}
	var back money.Amount
	if err := back.UnmarshalText([]byte("-0.50000000")); err != nil || !back.Equal(a) {
		t.Errorf("UnmarshalText = %s, %v", back, err)
	}
	if err := back.UnmarshalText([]byte(`"1"`)); !errors.Is(err, money.ErrSyntax) {
		t.Errorf("UnmarshalText of a quoted string error = %v, want ErrSyntax", err)
	}
}

// order is a caller's struct holding amounts, compared with go-cmp.
type order struct {
	ID    string
	Total money.Amount
	Fee   *money.Amount
	Lines []money.Amount
}

func TestGoCmp(t *testing.T) {
	t.Parallel()
	fee := money.MustParse("0.25", 2)
	fee2 := money.MustParse("0.25", 2)
	big1 := money.MustParse(u128+".01", 2)
	big2, err := money.MustParse(u128, 2).Add(money.MustParse("0.01", 2))
	if err != nil {
		t.Fatal(err)
	}
	a := order{ID: "o1", Total: money.MustParse("10", 2), Fee: &fee, Lines: []money.Amount{big1}}
	b := order{ID: "o1", Total: money.MustParse("10.00", 2), Fee: &fee2, Lines: []money.Amount{big2}}

	// Amount has an Equal method, so go-cmp uses it without options and
	// never looks at the unexported fields.
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("cmp.Diff of equal orders:\n%s", diff)
	}
	if diff := cmp.Diff(a, b, cmp.Comparer(money.Amount.Equal)); diff != "" {
		t.Errorf("cmp.Diff with Comparer of equal orders:\n%s", diff)
	}

	b.Total = money.MustParse("10.01", 2)
	diff := cmp.Diff(a, b)
	if !strings.Contains(diff, "Total") {
		t.Errorf("cmp.Diff does not report the changed Total:\n%s", diff)
	}
	// Same value at another scale is a difference too.
	b.Total = money.MustParse("10", 6)
	if cmp.Equal(a, b) {
		t.Errorf("cmp.Equal ignores the scale")
	}
}
