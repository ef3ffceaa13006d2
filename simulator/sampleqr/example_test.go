package sampleqr_test

import (
	"context"
	"fmt"
	"log"

	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
)

// Decode a sample code through the SDK against the embedded simulator, as
// if a phone camera had read it.
func Example() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client()

	dec, err := client.QRPay.Decode(context.Background(), "member-1", qrpay.DecodeParams{CodeValue: sampleqr.PromptPay})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(dec.Payee, dec.Amount.Amount, dec.Amount.Currency, "editable:", dec.AmountEditable)
	// Output:
	// BAAN THAI KITCHEN 250.00 THB editable: false
}

// Every sample, one fixed-amount and one custom-amount code per scheme.
func ExampleAll() {
	for _, s := range sampleqr.All() {
		amount := s.Amount
		if amount == "" {
			amount = "(payer enters)"
		}
		fmt.Printf("%-16s %-9s %s %s\n", s.Name, s.Scheme, s.Currency, amount)
	}
	// Output:
	// PromptPay        promptpay THB 250.00
	// PromptPayCustom  promptpay THB (payer enters)
	// PayNow           paynow    SGD 12.50
	// PayNowCustom     paynow    SGD (payer enters)
	// QRIS             qris      IDR 25000.00
	// QRISCustom       qris      IDR (payer enters)
	// KHQR             khqr      KHR 40000.00
	// KHQRCustom       khqr      KHR (payer enters)
	// DuitNow          duitnow   MYR 15.90
	// DuitNowCustom    duitnow   MYR (payer enters)
	// VietQR           vietqr    VND 120000
	// VietQRCustom     vietqr    VND (payer enters)
	// FPS              fps       HKD 88.00
	// FPSCustom        fps       HKD (payer enters)
	// QRPh             qrph      PHP 150.00
	// QRPhCustom       qrph      PHP (payer enters)
}
