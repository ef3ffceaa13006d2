package emvqr

import "strings"

// Currency is an ISO 4217 currency.
type Currency struct {
	// Numeric is the three-digit code carried by ID 53 ("764").
	Numeric string
	// Alpha is the alphabetic code ("THB").
	Alpha string
	// MinorUnits is the number of decimals of the currency (2 for THB, 0 for JPY).
	MinorUnits int
}

// currencies are the currencies of the QR schemes of this package and the
// common settlement currencies.
var currencies = []Currency{
	{"036", "AUD", 2},
	{"104", "MMK", 2},
	{"116", "KHR", 2},
	{"156", "CNY", 2},
	{"344", "HKD", 2},
	{"356", "INR", 2},
	{"360", "IDR", 2},
	{"392", "JPY", 0},
	{"410", "KRW", 0},
	{"418", "LAK", 2},
	{"458", "MYR", 2},
	{"608", "PHP", 2},
	{"702", "SGD", 2},
	{"704", "VND", 0},
	{"764", "THB", 2},
	{"826", "GBP", 2},
	{"840", "USD", 2},
	{"901", "TWD", 2},
	{"978", "EUR", 2},
}

// CurrencyByNumeric looks up an ISO 4217 numeric code ("764").
func CurrencyByNumeric(numeric string) (Currency, bool) {
	for _, c := range currencies {
		if c.Numeric == numeric {
			return c, true
		}
	}
	return Currency{}, false
}

// CurrencyByAlpha looks up an ISO 4217 alphabetic code ("THB").
func CurrencyByAlpha(alpha string) (Currency, bool) {
	for _, c := range currencies {
		if c.Alpha == alpha {
			return c, true
		}
	}
	return Currency{}, false
}

// Currencies returns the currency table of this package, ordered by numeric
// code.
func Currencies() []Currency { return append([]Currency(nil), currencies...) }

// Scheme is a national QR payment scheme recognised by its merchant account
// information.
type Scheme struct {
	// ID is a stable lower-case name ("promptpay").
	ID string `json:"scheme"`
	// Name is the display name ("PromptPay").
	Name string `json:"name"`
	// Country is the ISO 3166-1 alpha-2 country of the scheme.
	Country string `json:"country"`
	// Currency is the ISO 4217 alphabetic code the scheme settles in.
	Currency string `json:"currency"`
	// GUIs are the globally unique identifiers (sub-object 00 of a merchant
	// account template) that name the scheme; compared case-insensitively.
	// KHQR has none: its sub-object 00 is a Bakong account id (name@bank).
	GUIs []string `json:"identifiers"`
}

// promptPayCrossBorderBill is the Thai QR standard's identifier of a
// cross-border merchant-presented bill payment (template 30), the code a
// Thai merchant shows to wallets of other countries.
const promptPayCrossBorderBill = "A000000677012006"

var schemes = []Scheme{
	{ID: "promptpay", Name: "PromptPay", Country: "TH", Currency: "THB", GUIs: []string{"A000000677010111", "A000000677010112", "A000000677010113", "A000000677010114", promptPayCrossBorderBill}},
	{ID: "paynow", Name: "PayNow", Country: "SG", Currency: "SGD", GUIs: []string{"SG.PAYNOW"}},
	{ID: "qris", Name: "QRIS", Country: "ID", Currency: "IDR", GUIs: []string{"ID.CO.QRIS.WWW"}},
	{ID: "khqr", Name: "KHQR (Bakong)", Country: "KH", Currency: "KHR"},
	{ID: "duitnow", Name: "DuitNow QR", Country: "MY", Currency: "MYR", GUIs: []string{"A0000006150001"}},
	{ID: "vietqr", Name: "VietQR (NAPAS)", Country: "VN", Currency: "VND", GUIs: []string{"A000000727"}},
	{ID: "fps", Name: "FPS (Hong Kong)", Country: "HK", Currency: "HKD", GUIs: []string{"hk.com.hkicl"}},
	{ID: "qrph", Name: "QR Ph", Country: "PH", Currency: "PHP", GUIs: []string{"com.p2pqrpay", "ph.ppmi.p2m"}},
}

// Schemes returns the schemes this package recognises.
func Schemes() []Scheme {
	out := make([]Scheme, len(schemes))
	for i, s := range schemes {
		out[i] = s
		out[i].GUIs = append([]string(nil), s.GUIs...)
	}
	return out
}

// Scheme returns the national scheme of the payload, found from its merchant
// account information: the first template whose globally unique identifier
// names a scheme wins, except that QRIS (ID.CO.QRIS.WWW in ID 51) wins over
// the issuer templates QRIS codes also carry. A KHQR code is recognised by a
// template 29 or 30 whose sub-object 00 is a Bakong account id (name@bank) in
// a code of country KH. The second result is false for codes of no known
// scheme (card-network or proprietary codes).
func (p *Payload) Scheme() (Scheme, bool) {
	for _, ma := range p.MerchantAccounts {
		if strings.EqualFold(ma.GUI, "ID.CO.QRIS.WWW") {
			return schemeByID("qris"), true
		}
	}
	for _, ma := range p.MerchantAccounts {
		if ma.GUI == "" {
			continue
		}
		for _, s := range schemes {
			for _, g := range s.GUIs {
				if strings.EqualFold(ma.GUI, g) {
					return schemeCopy(s), true
				}
			}
		}
		if p.Country == "KH" && (ma.Tag == "29" || ma.Tag == "30") && strings.Contains(ma.GUI, "@") {
			return schemeByID("khqr"), true
		}
	}
	return Scheme{}, false
}

func schemeByID(id string) Scheme {
	for _, s := range schemes {
		if s.ID == id {
			return schemeCopy(s)
		}
	}
	return Scheme{}
}

func schemeCopy(s Scheme) Scheme {
	s.GUIs = append([]string(nil), s.GUIs...)
	return s
}
