package emvqr_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/emvqr"
)

// vietQRTransfer is a VietQR bank-app transfer code as printed: account
// 257678859 at bank BIN 970416, in the nested template 38.01.
const vietQRTransfer = "00020101021138530010A0000007270123000697041601092576788590208QRIBFTTA53037045802VN6304AE9F"

// TestDecodeDeviations: how Decode reads what real generators print off
// the EMVCo text. An empty optional object (52, 54 to 57, 59 to 61) is
// absent; an amount of zero is an open amount; other amounts stay as printed.
func TestDecodeDeviations(t *testing.T) {
	t.Parallel()
	type read struct {
		Name, City, MCC string
		Missing         []string
		Amount          string
		Editable        bool
		Fixed           string
	}
	mobile := "29370016A000000677010111011300668123456785303764" + "5802TH"
	tests := []struct {
		name string
		body string
		want read
	}{
		{"empty name", "000201010212" + mobile + "540512.505900", read{Missing: []string{"52", "59", "60"}, Amount: "12.50", Fixed: "12.50"}},
		{"empty category, name, city", "000201010212" + mobile + "540512.50520059006000", read{Missing: []string{"52", "59", "60"}, Amount: "12.50", Fixed: "12.50"}},
		{"named", "000201010212" + mobile + "540512.50520458125904BAAN6007BANGKOK", read{Name: "BAAN", City: "BANGKOK", MCC: "5812", Amount: "12.50", Fixed: "12.50"}},
		{"amount 0", "000201010211" + mobile + "54010", read{Missing: []string{"52", "59", "60"}, Amount: "0", Editable: true}},
		{"amount 0.00", "000201010211" + mobile + "54040.00", read{Missing: []string{"52", "59", "60"}, Amount: "0.00", Editable: true}},
		{"amount 010", "000201010212" + mobile + "5403010", read{Missing: []string{"52", "59", "60"}, Amount: "010", Fixed: "010"}},
		{"no amount", "000201010211" + mobile, read{Missing: []string{"52", "59", "60"}, Editable: true}},
		{"empty amount 5400", "000201010211" + mobile + "5400", read{Missing: []string{"52", "59", "60"}, Editable: true}},
		{"empty tip, fees, postal code", "000201010212" + mobile + "540512.50550056005700" + "6100", read{Missing: []string{"52", "59", "60"}, Amount: "12.50", Fixed: "12.50"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := emvqr.Decode(withCRC(tt.body + "6304"))
			if err != nil {
				t.Fatal(err)
			}
			got := read{p.MerchantName, p.MerchantCity, p.MerchantCategoryCode, p.MissingEMVCoFields(), p.Amount, p.AmountEditable(), p.FixedAmount()}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestAccountNeverRaw: a template whose account sub-object breaks the
// scheme's layout gives no account (the simulator then shows the scheme's
// name), never the raw sub-object; the printed VietQR code reads its nested
// account.
func TestAccountNeverRaw(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want emvqr.Account
		ok   bool
	}{
		{"VietQR nested account", vietQRTransfer[:len(vietQRTransfer)-8], emvqr.Account{Kind: emvqr.KindBankAccount, ID: "257678859", Bank: "970416"}, true},
		{"VietQR 01 not a template", "00020101021138350010A0000007270105ABCDE0208QRIBFTTA53037045802VN", emvqr.Account{}, false},
		{"VietQR template without number", "00020101021138400010A000000727011000069704160208QRIBFTTA53037045802VN", emvqr.Account{}, false},
		{"PromptPay template without proxy", "00020101021129200016A00000067701011153037645802TH", emvqr.Account{}, false},
		{"no scheme", "00020101021126150011com.example53037645802TH", emvqr.Account{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := emvqr.Decode(withCRC(tt.body + "6304"))
			if err != nil {
				t.Fatal(err)
			}
			got, ok := p.Account()
			if ok != tt.ok || got != tt.want {
				t.Errorf("Account() = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
