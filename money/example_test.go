package money_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/money"
)

func ExampleParse() {
	// Parse with the asset's ledger_scale (6 for USDT).
	a, err := money.Parse("12.5", 6)
	fmt.Println(a, err)

	// Extra decimals are fine when they are zeros, and nothing is rounded.
	b, _ := money.Parse("12.5000000", 6)
	fmt.Println(b)
	_, err = money.Parse("12.5000001", 6)
	fmt.Println(errors.Is(err, money.ErrPrecision))

	// Anything but a plain decimal is refused.
	for _, s := range []string{"1e3", "+5", ".5", "NaN"} {
		_, err := money.Parse(s, 6)
		fmt.Println(s, errors.Is(err, money.ErrSyntax))
	}
	// Output:
	// 12.500000 <nil>
	// 12.500000
	// true
	// 1e3 true
	// +5 true
	// .5 true
	// NaN true
}

func ExampleAmount_MulRatio() {
	amount := money.MustParse("1234.56", 2)

	// A fee of 25 basis points, rounded half-even.
	fee, _ := amount.MulRatio(25, 10000, money.RoundHalfEven)
	fmt.Println(fee)

	// The same fee truncated, never above the exact 3.0864.
	feeDown, _ := amount.MulRatio(25, 10000, money.RoundDown)
	fmt.Println(feeDown)

	// RoundExact refuses to round.
	_, err := amount.MulRatio(1, 7, money.RoundExact)
	fmt.Println(errors.Is(err, money.ErrPrecision))
	// Output:
	// 3.09
	// 3.08
	// true
}

func ExampleAmount_Display() {
	// ledger_scale 8, display_scale 2: truncated, never rounded.
	a := money.MustParse("0.12999999", 8)
	fmt.Println(a.Display(2))
	fmt.Println(a.Neg().Display(2))
	fmt.Println(a.Display(0))
	// Output:
	// 0.12
	// -0.12
	// 0
}

func ExampleAmount_Add() {
	balance := money.MustParse("1000", 6)
	debit := money.MustParse("12.345678", 6)
	left, err := balance.Sub(debit)
	fmt.Println(left, err)

	// Amounts of different assets (scales) do not mix.
	_, err = balance.Add(money.MustParse("1", 8))
	fmt.Println(errors.Is(err, money.ErrScale))
	// Output:
	// 987.654322 <nil>
	// true
}

func ExampleAmount_MarshalJSON() {
	type transfer struct {
		Asset  string       `json:"asset"`
		Amount money.Amount `json:"amount"`
		Fee    money.Amount `json:"fee,omitzero"`
	}
	b, _ := json.Marshal(transfer{Asset: "USDT", Amount: money.MustParse("12.5", 6), Fee: money.Zero(6)})
	fmt.Println(string(b))

	var t transfer
	err := json.Unmarshal([]byte(`{"asset":"USDT","amount":12.5}`), &t)
	fmt.Println(errors.Is(err, money.ErrSyntax))
	// Output:
	// {"asset":"USDT","amount":"12.500000"}
	// true
}

func ExampleAmount_Equal() {
	type payment struct {
		ID     string
		Amount money.Amount
	}
	want := payment{ID: "p1", Amount: money.MustParse("10", 2)}
	got := payment{ID: "p1", Amount: money.MustParse("10.00", 2)}
	fmt.Println(cmp.Equal(want, got, cmp.Comparer(money.Amount.Equal)))
	// Output:
	// true
}

func ExampleParseMinor() {
	// Card transactions count in the smallest unit of the currency.
	a, _ := money.ParseMinor("1234", 2)
	fmt.Println(a, a.Minor())
	// Output:
	// 12.34 1234
}
