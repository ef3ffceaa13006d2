package emvqr

import (
	"strings"
)

// AccountKind names what the identifier of an Account is.
type AccountKind string

// The kinds of account identifier the national templates carry.
const (
	// KindMobile is a mobile number used as a proxy (PromptPay 29.01,
	// PayNow proxy type 0, FPS 26.03, QR Ph 27.05).
	KindMobile AccountKind = "mobile"
	// KindNationalID is a national identity or tax number used as a proxy
	// (PromptPay 29.02).
	KindNationalID AccountKind = "national_id"
	// KindEWallet is an e-wallet id (PromptPay 29.03).
	KindEWallet AccountKind = "ewallet"
	// KindBankAccount is a bank account number (PromptPay 29.04, VietQR
	// service QRIBFTTA, QR Ph 27.04).
	KindBankAccount AccountKind = "bank_account"
	// KindCard is a card number (VietQR service QRIBFTTC); only its last
	// four digits are kept.
	KindCard AccountKind = "card"
	// KindMerchantID is a merchant identifier (QRIS national merchant id,
	// DuitNow merchant account, KHQR merchant id, QR Ph P2M merchant id).
	KindMerchantID AccountKind = "merchant_id"
	// KindBiller is a bill-payment biller id with its first reference
	// (PromptPay bill payment, domestic and cross-border).
	KindBiller AccountKind = "biller"
	// KindBusinessID is a business registration number (PayNow UEN).
	KindBusinessID AccountKind = "business_id"
	// KindFPSID is a Hong Kong FPS identifier.
	KindFPSID AccountKind = "fps_id"
	// KindEmail is an e-mail address used as a proxy (FPS 26.04).
	KindEmail AccountKind = "email"
	// KindBakong is a Bakong account id (name@bank), KHQR's account.
	KindBakong AccountKind = "bakong_account"
)

var kindLabels = map[AccountKind]string{
	KindMobile: "mobile", KindNationalID: "national ID", KindEWallet: "e-wallet",
	KindBankAccount: "account", KindCard: "card ending", KindMerchantID: "merchant",
	KindBiller: "biller", KindBusinessID: "UEN", KindFPSID: "FPS ID", KindEmail: "email",
	KindBakong: "Bakong account",
}

// Account is the payee account a code names in its scheme's merchant
// account template, read by the layout the scheme publishes.
type Account struct {
	// Kind says what ID is.
	Kind AccountKind
	// ID is the identifier as a person reads it: a mobile number in
	// international form ("+66812345678"), an account number without its
	// bank prefix, the last four digits of a card number.
	ID string
	// Reference is the first bill-payment reference (PromptPay bill
	// payment 02), or "".
	Reference string
	// Bank is the code of the bank, participant or acquirer the template
	// names (a VietQR bank BIN, a PromptPay bank code, an FPS clearing code,
	// a BIC, a QRIS acquirer domain), or "".
	Bank string
}

// String is the account as a payee line: "account 257678859, bank 970416",
// "mobile +66812345678", "biller 099400016550100 ref INV12345".
func (a Account) String() string {
	var b strings.Builder
	b.WriteString(kindLabels[a.Kind])
	b.WriteString(" ")
	b.WriteString(a.ID)
	if a.Reference != "" {
		b.WriteString(" ref ")
		b.WriteString(a.Reference)
	}
	if a.Bank != "" {
		b.WriteString(", bank ")
		b.WriteString(a.Bank)
	}
	return b.String()
}

// Account reads the payee account of the payload from the merchant account
// template of its scheme, following the layout that scheme publishes
// (nested templates included). The second result is false when the payload
// names no scheme or its template holds no account this package can read;
// a raw sub-object is never returned.
func (p *Payload) Account() (Account, bool) {
	sch, ok := p.Scheme()
	if !ok {
		return Account{}, false
	}
	read := accountReaders[sch.ID]
	if read == nil {
		return Account{}, false
	}
	a, ok := read(p)
	if !ok || a.ID == "" {
		return Account{}, false
	}
	return a, true
}

// accountReaders read each scheme's template; every scheme of Schemes has
// one (TestEverySchemeReadsItsAccount).
var accountReaders = map[string]func(*Payload) (Account, bool){
	"promptpay": promptPayAccount,
	"paynow":    payNowAccount,
	"qris":      qrisAccount,
	"khqr":      khqrAccount,
	"duitnow":   duitNowAccount,
	"vietqr":    vietQRAccount,
	"fps":       fpsAccount,
	"qrph":      qrPhAccount,
}

// template returns the first merchant account template whose GUI is one of
// guis (case-insensitive).
func (p *Payload) template(guis ...string) (MerchantAccount, bool) {
	for _, ma := range p.MerchantAccounts {
		for _, g := range guis {
			if ma.GUI != "" && strings.EqualFold(ma.GUI, g) {
				return ma, true
			}
		}
	}
	return MerchantAccount{}, false
}

func sub(ma MerchantAccount, tag string) string {
	v, _ := lookup(ma.Fields, tag)
	return v
}

// internationalMobile writes a mobile number printed with the "00"
// international prefix ("0066812345678") in "+" form ("+66812345678").
func internationalMobile(v string) string {
	if len(v) > 4 && strings.HasPrefix(v, "00") && digits(v) {
		return "+" + v[2:]
	}
	return v
}

// promptPayAccount reads the Thai QR Payment Standard templates: credit
// transfer (A000000677010111, and the 0113 and 0114 variants): 01 mobile
// number ("0066" + nine digits), 02 national or tax id, 03 e-wallet id, 04
// bank account (three-digit bank code + account number); bill payment
// (A000000677010112 domestic, A000000677012006 cross-border): 01 biller id,
// 02 reference 1, 03 reference 2.
func promptPayAccount(p *Payload) (Account, bool) {
	if ma, ok := p.template("A000000677010112", promptPayCrossBorderBill); ok {
		if id := sub(ma, "01"); id != "" {
			return Account{Kind: KindBiller, ID: id, Reference: sub(ma, "02")}, true
		}
	}
	ma, ok := p.template("A000000677010111", "A000000677010113", "A000000677010114")
	if !ok {
		return Account{}, false
	}
	if v := sub(ma, "01"); v != "" {
		return Account{Kind: KindMobile, ID: internationalMobile(v)}, true
	}
	if v := sub(ma, "02"); v != "" {
		return Account{Kind: KindNationalID, ID: v}, true
	}
	if v := sub(ma, "03"); v != "" {
		return Account{Kind: KindEWallet, ID: v}, true
	}
	if v := sub(ma, "04"); v != "" {
		if len(v) > 3 && digits(v[:3]) {
			return Account{Kind: KindBankAccount, ID: v[3:], Bank: v[:3]}, true
		}
		return Account{Kind: KindBankAccount, ID: v}, true
	}
	return Account{}, false
}

// payNowAccount reads the SGQR PayNow template: 01 proxy type (0 mobile,
// 2 UEN), 02 proxy value, 03 amount editable, 04 expiry date.
func payNowAccount(p *Payload) (Account, bool) {
	ma, ok := p.template("SG.PAYNOW")
	if !ok {
		return Account{}, false
	}
	v := sub(ma, "02")
	switch sub(ma, "01") {
	case "0":
		return Account{Kind: KindMobile, ID: v}, true
	case "2":
		return Account{Kind: KindBusinessID, ID: v}, true
	}
	return Account{}, false
}

// qrisAccount reads QRIS: the national merchant id (NMID) is 51.02 of the
// ID.CO.QRIS.WWW template; the acquirer is the GUI of the first other
// template (26 to 45, a reverse domain such as ID.CO.BANKMANDIRI.WWW),
// whose 02 is the acquirer's merchant id when there is no NMID.
func qrisAccount(p *Payload) (Account, bool) {
	var acq MerchantAccount
	for _, ma := range p.MerchantAccounts {
		if ma.GUI != "" && !strings.EqualFold(ma.GUI, "ID.CO.QRIS.WWW") {
			acq = ma
			break
		}
	}
	if ma, ok := p.template("ID.CO.QRIS.WWW"); ok {
		if v := sub(ma, "02"); v != "" {
			return Account{Kind: KindMerchantID, ID: v, Bank: acq.GUI}, true
		}
	}
	if v := sub(acq, "02"); v != "" {
		return Account{Kind: KindMerchantID, ID: v, Bank: acq.GUI}, true
	}
	return Account{}, false
}

// khqrAccount reads KHQR: template 29 (individual) or 30 (merchant) whose
// 00 is the Bakong account id (name@bank); 30.01 is the merchant id, 02 the
// acquiring bank.
func khqrAccount(p *Payload) (Account, bool) {
	for _, ma := range p.MerchantAccounts {
		if (ma.Tag != "29" && ma.Tag != "30") || !strings.Contains(ma.GUI, "@") {
			continue
		}
		if ma.Tag == "30" {
			if v := sub(ma, "01"); v != "" {
				return Account{Kind: KindMerchantID, ID: v, Bank: sub(ma, "02")}, true
			}
		}
		return Account{Kind: KindBakong, ID: ma.GUI, Bank: sub(ma, "02")}, true
	}
	return Account{}, false
}

// duitNowAccount reads the DuitNow QR template: 01 participant (acquirer)
// code, 02 merchant account id, 03 merchant category.
func duitNowAccount(p *Payload) (Account, bool) {
	ma, ok := p.template("A0000006150001")
	if !ok {
		return Account{}, false
	}
	return Account{Kind: KindMerchantID, ID: sub(ma, "02"), Bank: sub(ma, "01")}, true
}

// vietQRAccount reads the NAPAS VietQR template 38: 01 is itself a
// template (00 bank BIN, 01 account or card number), 02 the service code
// (QRIBFTTA transfer to an account, QRIBFTTC transfer to a card).
func vietQRAccount(p *Payload) (Account, bool) {
	ma, ok := p.template("A000000727")
	if !ok {
		return Account{}, false
	}
	raw := sub(ma, "01")
	objs, err := splitTLV(raw, 0, "")
	if err != nil {
		return Account{}, false
	}
	var bin, number string
	for _, o := range objs {
		switch o.tag {
		case "00":
			bin = o.value
		case "01":
			number = o.value
		}
	}
	if number == "" {
		return Account{}, false
	}
	if strings.EqualFold(sub(ma, "02"), "QRIBFTTC") {
		return Account{Kind: KindCard, ID: lastFour(number), Bank: bin}, true
	}
	return Account{Kind: KindBankAccount, ID: number, Bank: bin}, true
}

func lastFour(s string) string {
	if len(s) <= 4 {
		return s
	}
	return s[len(s)-4:]
}

// fpsAccount reads the HKMA common QR template for FPS (hk.com.hkicl): 01
// clearing code of the bank, 02 FPS id, 03 mobile number, 04 e-mail.
func fpsAccount(p *Payload) (Account, bool) {
	ma, ok := p.template("hk.com.hkicl")
	if !ok {
		return Account{}, false
	}
	bank := sub(ma, "01")
	for _, k := range []struct {
		tag  string
		kind AccountKind
	}{{"02", KindFPSID}, {"03", KindMobile}, {"04", KindEmail}} {
		if v := sub(ma, k.tag); v != "" {
			return Account{Kind: k.kind, ID: v, Bank: bank}, true
		}
	}
	return Account{}, false
}

// qrPhAccount reads QR Ph: the P2P template com.p2pqrpay (01 BIC of the
// receiving institution, 04 account number, 05 mobile number) and the P2M
// template ph.ppmi.p2m (01 BIC of the acquirer, 03 merchant id).
func qrPhAccount(p *Payload) (Account, bool) {
	if ma, ok := p.template("com.p2pqrpay"); ok {
		bic := sub(ma, "01")
		if v := sub(ma, "04"); v != "" {
			return Account{Kind: KindBankAccount, ID: v, Bank: bic}, true
		}
		if v := sub(ma, "05"); v != "" {
			return Account{Kind: KindMobile, ID: v, Bank: bic}, true
		}
	}
	if ma, ok := p.template("ph.ppmi.p2m"); ok {
		if v := sub(ma, "03"); v != "" {
			return Account{Kind: KindMerchantID, ID: v, Bank: sub(ma, "01")}, true
		}
	}
	return Account{}, false
}
