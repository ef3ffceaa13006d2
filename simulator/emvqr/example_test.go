package emvqr_test

import (
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/emvqr"
)

// Build writes a valid payload (lengths, CRC) for tests; Decode reads it
// back. This is a static PayNow code: the payer types the amount.
func ExampleBuild() {
	code, err := emvqr.Build(emvqr.Payload{
		PointOfInitiation: "11",
		MerchantAccounts: []emvqr.MerchantAccount{{Tag: "26", GUI: "SG.PAYNOW",
			Fields: []emvqr.Field{{Tag: "01", Value: "2"}, {Tag: "02", Value: "201403121W"}}}},
		MerchantCategoryCode: "5499", Currency: "702", Country: "SG",
		MerchantName: "KOPI CORNER", MerchantCity: "SINGAPORE",
	})
	if err != nil {
		log.Fatal(err)
	}
	p, err := emvqr.Decode(code)
	if err != nil {
		log.Fatal(err)
	}
	cur, _ := p.CurrencyAlpha()
	fmt.Println(p.MerchantName, cur, "amount editable:", p.AmountEditable(), "dynamic:", p.Dynamic())
	// Output:
	// KOPI CORNER SGD amount editable: true dynamic: false
}

// A payload altered after it was printed fails its CRC; the error wraps a
// sentinel usable with errors.Is.
func ExampleDecode() {
	code := emvqr.MustBuild(emvqr.Payload{
		PointOfInitiation: "12",
		MerchantAccounts: []emvqr.MerchantAccount{{Tag: "30", GUI: "A000000677010112",
			Fields: []emvqr.Field{{Tag: "01", Value: "010554412345601"}}}},
		MerchantCategoryCode: "5812", Currency: "764", Amount: "250.00", Country: "TH",
		MerchantName: "BAAN THAI KITCHEN", MerchantCity: "BANGKOK",
	})
	p, err := emvqr.Decode(code)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Amount, p.Currency, p.MerchantName)

	tampered := strings.Replace(code, "BAAN THAI", "BAAN THAT", 1) // same length, wrong CRC
	_, err = emvqr.Decode(tampered)
	fmt.Println(errors.Is(err, emvqr.ErrChecksum))
	// Output:
	// 250.00 764 BAAN THAI KITCHEN
	// true
}
