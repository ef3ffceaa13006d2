package qrpay_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator/emvqr"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// tl writes one data object by hand, as the EMVCo text defines it: two-digit
// ID, two-digit length counted in characters, value. The payloads of the
// template tests are written with it, not with the simulator's own builder.
func tl(tag string, parts ...string) string {
	v := strings.Join(parts, "")
	return fmt.Sprintf("%s%02d%s", tag, utf8.RuneCountInString(v), v)
}

// sealed appends the CRC object: CRC-16/CCITT-FALSE over the payload up to
// and including "6304", computed bit by bit here.
func sealed(objects ...string) string {
	body := strings.Join(objects, "") + "6304"
	crc := uint16(0xFFFF)
	for _, b := range []byte(body) {
		crc ^= uint16(b) << 8
		for i := 0; i < 8; i++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return fmt.Sprintf("%s%04X", body, crc)
}

// nameless is a dynamic code of the given country, currency and amount
// whose only merchant data is the account template: no name (59), so the
// payee comes from the template.
func nameless(template, country, currency, amount string) string {
	return sealed(tl("00", "01"), tl("01", "12"), template, tl("53", currency), tl("54", amount), tl("58", country))
}

// templateRow is one template variant a national standard defines.
type templateRow struct {
	scheme, variant string
	code            string
	payee           string
	acquirer        qrpay.Fiat
}

// templateRows are the merchant account template variants of every scheme
// the simulator accepts, each with the payee a member should read.
func templateRows() []templateRow {
	th := func(t string) string { return nameless(t, "TH", "764", "350.00") }
	thb := qrpay.Fiat{Amount: "350.00", Currency: "THB"}
	sg := func(t string) string { return nameless(t, "SG", "702", "13.50") }
	sgd := qrpay.Fiat{Amount: "13.50", Currency: "SGD"}
	id := func(ts ...string) string { return nameless(strings.Join(ts, ""), "ID", "360", "150000") }
	idr := qrpay.Fiat{Amount: "150000.00", Currency: "IDR"}
	kh := func(t string) string { return nameless(t, "KH", "116", "40000") }
	khr := qrpay.Fiat{Amount: "40000.00", Currency: "KHR"}
	vn := func(t string) string { return nameless(t, "VN", "704", "250000") }
	vnd := qrpay.Fiat{Amount: "250000", Currency: "VND"}
	hk := func(t string) string { return nameless(t, "HK", "344", "80.00") }
	hkd := qrpay.Fiat{Amount: "80.00", Currency: "HKD"}
	ph := func(t string) string { return nameless(t, "PH", "608", "500.00") }
	php := qrpay.Fiat{Amount: "500.00", Currency: "PHP"}
	const (
		pp     = "A000000677010111"
		ppBill = "A000000677010112"
		ppXB   = "A000000677012006"
	)
	return []templateRow{
		// Thai QR Payment Standard: credit transfer (tag 29) by proxy type,
		// bill payment (tag 30) domestic and cross-border.
		{"promptpay", "mobile", th(tl("29", tl("00", pp), tl("01", "0066812345678"))), "mobile +66812345678", thb},
		{"promptpay", "national or tax id", th(tl("29", tl("00", pp), tl("02", "3101234567891"))), "national ID 3101234567891", thb},
		{"promptpay", "e-wallet", th(tl("29", tl("00", pp), tl("03", "140000812345678"))), "e-wallet 140000812345678", thb},
		{"promptpay", "bank account", th(tl("29", tl("00", pp), tl("04", "0041234567890"))), "account 1234567890, bank 004", thb},
		{"promptpay", "bill payment", th(tl("30", tl("00", ppBill), tl("01", "099400016550100"), tl("02", "INV12345"), tl("03", "BRANCH7"))), "biller 099400016550100 ref INV12345", thb},
		{"promptpay", "cross-border bill payment", th(tl("30", tl("00", ppXB), tl("01", "010753600031501"), tl("02", "TRIP0042"))), "biller 010753600031501 ref TRIP0042", thb},
		// SGQR PayNow: 01 proxy type, 02 proxy value, 03 editable, 04 expiry.
		{"paynow", "mobile", sg(tl("26", tl("00", "SG.PAYNOW"), tl("01", "0"), tl("02", "+6591234567"), tl("03", "0"), tl("04", "20301231"))), "mobile +6591234567", sgd},
		{"paynow", "UEN", sg(tl("26", tl("00", "SG.PAYNOW"), tl("01", "2"), tl("02", "201403121W"), tl("03", "0"))), "UEN 201403121W", sgd},
		// QRIS: acquirer template (26) and national template 51 with the NMID.
		{"qris", "national merchant id", id(tl("26", tl("00", "ID.CO.BANKMANDIRI.WWW"), tl("01", "936000080000000012"), tl("02", "000195112345"), tl("03", "UMI")),
			tl("51", tl("00", "ID.CO.QRIS.WWW"), tl("02", "ID1020021181745"), tl("03", "UMI"))), "merchant ID1020021181745, bank ID.CO.BANKMANDIRI.WWW", idr},
		{"qris", "acquirer merchant id", id(tl("26", tl("00", "COM.GO-JEK.WWW"), tl("01", "936009140000000042"), tl("02", "G012345678"), tl("03", "UKE")),
			tl("51", tl("00", "ID.CO.QRIS.WWW"), tl("03", "UKE"))), "merchant G012345678, bank COM.GO-JEK.WWW", idr},
		// KHQR: 29 individual (Bakong account id, account information,
		// acquiring bank), 30 merchant (Bakong account id, merchant id, bank).
		{"khqr", "individual", kh(tl("29", tl("00", "john_smith@devb"), tl("01", "85512233455"), tl("02", "Dev Bank"))), "Bakong account john_smith@devb, bank Dev Bank", khr},
		{"khqr", "individual, account only", kh(tl("29", tl("00", "sokha@abaa"))), "Bakong account sokha@abaa", khr},
		{"khqr", "merchant", kh(tl("30", tl("00", "coffee_klang@aclb"), tl("01", "1234567"), tl("02", "ACLEDA Bank"))), "merchant 1234567, bank ACLEDA Bank", khr},
		// DuitNow QR: 01 participant code, 02 merchant account, 03 category.
		{"duitnow", "merchant", nameless(tl("26", tl("00", "A0000006150001"), tl("01", "890053"), tl("02", "MBB0000123456"), tl("03", "0000")), "MY", "458", "45.00"),
			"merchant MBB0000123456, bank 890053", qrpay.Fiat{Amount: "45.00", Currency: "MYR"}},
		// VietQR (NAPAS): 01 is a template of bank BIN (00) and number (01);
		// 02 the service: QRIBFTTA to an account, QRIBFTTC to a card.
		{"vietqr", "bank account", vn(tl("38", tl("00", "A000000727"), tl("01", tl("00", "970416"), tl("01", "257678859")), tl("02", "QRIBFTTA"))), "account 257678859, bank 970416", vnd},
		{"vietqr", "card", vn(tl("38", tl("00", "A000000727"), tl("01", tl("00", "970436"), tl("01", "9704366600001234")), tl("02", "QRIBFTTC"))), "card ending 1234, bank 970436", vnd},
		// HKMA common QR, FPS: 01 clearing code, 02 FPS id, 03 mobile, 04 e-mail.
		{"fps", "FPS id", hk(tl("26", tl("00", "hk.com.hkicl"), tl("01", "004"), tl("02", "1234567"))), "FPS ID 1234567, bank 004", hkd},
		{"fps", "mobile", hk(tl("26", tl("00", "hk.com.hkicl"), tl("03", "+852-91234567"))), "mobile +852-91234567", hkd},
		{"fps", "e-mail", hk(tl("26", tl("00", "hk.com.hkicl"), tl("04", "pay@example.hk"))), "email pay@example.hk", hkd},
		// QR Ph: P2P (01 BIC, 04 account, 05 mobile) and P2M (01 BIC, 03 merchant id).
		{"qrph", "P2P bank account", ph(tl("27", tl("00", "com.p2pqrpay"), tl("01", "BOPIPHMMXXX"), tl("02", "99964403"), tl("04", "109876543210"))), "account 109876543210, bank BOPIPHMMXXX", php},
		{"qrph", "P2P mobile", ph(tl("27", tl("00", "com.p2pqrpay"), tl("01", "GXCHPHM2XXX"), tl("02", "99964403"), tl("05", "+63-9171234567"))), "mobile +63-9171234567, bank GXCHPHM2XXX", php},
		{"qrph", "P2M merchant", ph(tl("28", tl("00", "ph.ppmi.p2m"), tl("01", "BOPIPHMMXXX"), tl("03", "MID0000012345"))), "merchant MID0000012345, bank BOPIPHMMXXX", php},
	}
}

// TestPayeeFollowsSchemeTemplates decodes, quotes and pays, through the SDK,
// a code of every merchant account template variant of every scheme the
// simulator accepts, none carrying a merchant name: the payee of all three
// is the account the scheme's layout names, with its bank where the code has
// one. The table covers every scheme of emvqr.Schemes.
func TestPayeeFollowsSchemeTemplates(t *testing.T) {
	t.Parallel()
	rows := templateRows()
	covered := map[string]bool{}
	for _, r := range rows {
		covered[r.scheme] = true
	}
	var missing []string
	for _, s := range emvqr.Schemes() {
		if !covered[s.ID] {
			missing = append(missing, s.ID)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("schemes without template rows: %v", missing)
	}
	for _, r := range rows {
		t.Run(r.scheme+"/"+r.variant, func(t *testing.T) {
			t.Parallel()
			sim, c := simtest.New(t)
			ctx := context.Background()
			p, err := emvqr.Decode(r.code)
			if err != nil {
				t.Fatalf("hand-written payload does not decode: %v", err)
			}
			if s, _ := p.Scheme(); s.ID != r.scheme {
				t.Fatalf("scheme %q, want %q", s.ID, r.scheme)
			}
			dec, err := c.QRPay.Decode(ctx, member1, qrpay.DecodeParams{CodeValue: r.code})
			if err != nil {
				t.Fatal(err)
			}
			q, err := c.QRPay.Quote(ctx, member1, qrpay.QuoteParams{CodeValue: r.code})
			if err != nil {
				t.Fatal(err)
			}
			o := payWithStepUp(t, sim, c, member1, qrpay.PayParams{CodeValue: r.code})
			got := []string{dec.Payee, q.Payee, o.Payee}
			want := []string{r.payee, r.payee, r.payee}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("payee of decode, quote, payment (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]qrpay.Fiat{r.acquirer, r.acquirer}, []qrpay.Fiat{q.Acquirer, o.Acquirer}); diff != "" {
				t.Errorf("acquirer of quote, payment (-want +got):\n%s", diff)
			}
		})
	}
}

// TestIssuePayloadsReadTheirAccount decodes the two payloads of the report
// the template reading fixed, as printed: the VietQR bank-app transfer code
// (nested account template) and a PromptPay transfer to a bank account.
func TestIssuePayloadsReadTheirAccount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, code, payee string
	}{
		{"VietQR bank transfer", "00020101021138530010A0000007270123000697041601092576788590208QRIBFTTA53037045802VN6304AE9F", "account 257678859, bank 970416"},
		{"PromptPay bank account", sealed(tl("00", "01"), tl("01", "11"), tl("29", tl("00", "A000000677010111"), tl("04", "0142223334445")), tl("53", "764"), tl("58", "TH")), "account 2223334445, bank 014"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, c := simtest.New(t)
			dec, err := c.QRPay.Decode(context.Background(), member1, qrpay.DecodeParams{CodeValue: tt.code})
			if err != nil {
				t.Fatal(err)
			}
			if dec.Payee != tt.payee || !dec.AmountEditable {
				t.Errorf("payee %q editable %v, want %q editable", dec.Payee, dec.AmountEditable, tt.payee)
			}
		})
	}
}
