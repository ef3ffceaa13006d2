package qrpay_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator/emvqr"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// TestDecodeNationalSchemes decodes, through the SDK, payloads as the
// national schemes print them: the currency comes out alphabetic from tag 53,
// the amount from tag 54 (none means a custom-amount code), the payee from
// tag 59 whose length counts characters, not bytes. A truncated payload, and
// one whose lengths count bytes, are qr_code_invalid. Decoding moves nothing.
func TestDecodeNationalSchemes(t *testing.T) {
	t.Parallel()
	thaiName := "ครัวบ้านไทย" // 11 characters, 33 bytes
	thai := emvqr.MustBuild(emvqr.Payload{
		PointOfInitiation:    "12",
		MerchantAccounts:     []emvqr.MerchantAccount{{Tag: "29", GUI: "A000000677010111", Fields: []emvqr.Field{{Tag: "01", Value: "0066812345678"}}}},
		MerchantCategoryCode: "5812", Currency: "764", Amount: "120.00", Country: "TH", MerchantName: thaiName, MerchantCity: "BANGKOK",
	})
	tests := []struct {
		name string
		code string
		want qrpay.Decoded
		err  mwallet.Code
	}{
		{name: "PayNow UEN, fixed amount",
			code: "00020101021226490009SG.PAYNOW010120210201912345K03010040820261231520458125303702540512.505802SG5919KOPI CORNER PTE LTD6009SINGAPORE62180114INV-20260101-763047064",
			want: qrpay.Decoded{Payee: "KOPI CORNER PTE LTD", Amount: qrpay.Fiat{Amount: "12.50", Currency: "SGD"}, RequiredPayerFields: []string{}}},
		{name: "QRIS static, custom amount",
			code: "00020101021126670020ID.CO.EXAMPLEPAY.WWW01189360000000000000010210EXP00000010303UMI51440014ID.CO.QRIS.WWW0215ID10200000000010303UMI5204581453033605802ID5916WARUNG SARI RASA6007JAKARTA61051011062070703A016304AA0B",
			want: qrpay.Decoded{Payee: "WARUNG SARI RASA", Amount: qrpay.Fiat{Currency: "IDR"}, AmountEditable: true, RequiredPayerFields: []string{}}},
		{name: "DuitNow dynamic",
			code: "00020101021226530014A000000615000101068900530213MBB000012345603040000520454115303458540515.905802MY5917KEDAI RUNCIT AMAN6012KUALA LUMPUR6304C3DA",
			want: qrpay.Decoded{Payee: "KEDAI RUNCIT AMAN", Amount: qrpay.Fiat{Amount: "15.90", Currency: "MYR"}, RequiredPayerFields: []string{}}},
		{name: "payee name in Thai script", code: thai,
			want: qrpay.Decoded{Payee: thaiName, Amount: qrpay.Fiat{Amount: "120.00", Currency: "THB"}, RequiredPayerFields: []string{}}},
		{name: "truncated payload", code: thai[:len(thai)-20], err: mwallet.CodeQRCodeInvalid},
		{name: "lengths counted in bytes", code: byteCounted(t, thai, thaiName), err: mwallet.CodeQRCodeInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, c := simtest.New(t)
			entries := len(sim.LedgerEntries())
			got, err := c.QRPay.Decode(context.Background(), member1, qrpay.DecodeParams{CodeValue: tt.code})
			if tt.err != "" {
				simtest.WantCode(t, err, tt.err)
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, *got, cmpopts.IgnoreFields(qrpay.Decoded{}, "Response")); diff != "" {
					t.Errorf("decoded (-want +got):\n%s", diff)
				}
			}
			if n := len(sim.LedgerEntries()); n != entries {
				t.Fatalf("decode posted %d ledger entries", n-entries)
			}
		})
	}
}

// byteCounted rewrites the length of tag 59 in code to count name's bytes
// instead of its characters, and recomputes the CRC so that only the length
// is wrong.
func byteCounted(t *testing.T, code, name string) string {
	t.Helper()
	body := code[:len(code)-4]
	from := fmt.Sprintf("59%02d%s", utf8.RuneCountInString(name), name)
	if !strings.Contains(body, from) {
		t.Fatalf("%q does not contain %q", code, from)
	}
	out := strings.Replace(body, from, fmt.Sprintf("59%02d%s", len(name), name), 1)
	return out + fmt.Sprintf("%04X", emvqr.CRC16([]byte(out)))
}
