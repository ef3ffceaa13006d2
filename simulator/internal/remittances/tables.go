package remittances

import "strings"

// corridor is a payout destination. Rate is the exact number of payout
// currency units per unit of the source asset (USDT and USDC are priced
// alike). Units is the ISO 4217 minor units of the currency. The fixture
// gives every member one payee per corridor, with Holder and Account.
type corridor struct {
	Country   string
	Currency  string
	Rate      string
	Units     int
	Supported bool
	Holder    string
	Account   string
}

// remitCorridors are the simulator's corridors. NGN is a corridor with saved
// payees that the service cannot serve (corridor_not_supported).
var remitCorridors = []corridor{
	{Country: "GB", Currency: "GBP", Rate: "0.7850", Units: 2, Supported: true, Holder: "Alice Smith", Account: "GB29NWBK60161331926819"},
	{Country: "JP", Currency: "JPY", Rate: "148.20", Units: 0, Supported: true, Holder: "Taro Yamada", Account: "0012345678"},
	{Country: "DE", Currency: "EUR", Rate: "0.9150", Units: 2, Supported: true, Holder: "Hans Weber", Account: "DE89370400440532013000"},
	{Country: "US", Currency: "USD", Rate: "0.9980", Units: 2, Supported: true, Holder: "John Doe", Account: "000123456789"},
	{Country: "PH", Currency: "PHP", Rate: "56.40", Units: 2, Supported: true, Holder: "Maria Santos", Account: "001234567890"},
	{Country: "BH", Currency: "BHD", Rate: "0.3760", Units: 3, Supported: true, Holder: "Ali Hassan", Account: "BH67BMAG00001299123456"},
	{Country: "NG", Currency: "NGN", Rate: "1520.00", Units: 2, Supported: false, Holder: "Chinedu Okafor", Account: "0123456789"},
}

func corridorOf(country, currency string) (corridor, bool) {
	for _, c := range remitCorridors {
		if c.Country == country && c.Currency == currency {
			return c, true
		}
	}
	return corridor{}, false
}

// isoMinorUnits is the ISO 4217 minor units of the currencies a payee may be
// saved in.
var isoMinorUnits = map[string]int{
	"AED": 2, "AUD": 2, "BHD": 3, "BRL": 2, "CAD": 2, "CHF": 2, "CLP": 0, "CNY": 2, "CZK": 2, "DKK": 2,
	"EUR": 2, "GBP": 2, "HKD": 2, "HUF": 2, "IDR": 2, "ILS": 2, "INR": 2, "ISK": 0, "JOD": 3, "JPY": 0,
	"KES": 2, "KRW": 0, "KWD": 3, "MXN": 2, "MYR": 2, "NGN": 2, "NOK": 2, "NZD": 2, "OMR": 3, "PHP": 2,
	"PKR": 2, "PLN": 2, "SAR": 2, "SEK": 2, "SGD": 2, "THB": 2, "TND": 3, "TRY": 2, "TWD": 2, "UGX": 0,
	"USD": 2, "VND": 0, "ZAR": 2,
}

// lineSpec is the configuration of a remittance line. Amount limits bound
// customer_total in the source asset: Min per order (amount_out_of_range),
// Max per order (limit_exceeded single/member) and Daily per member per UTC
// day (limit_exceeded daily/member). The contract does not show the values.
type lineSpec struct {
	Name     string
	KYC      int
	Fee      string
	Min      string
	Max      string
	Daily    string
	Queues   bool // merchant_hosted prepaid short: queue (pending) instead of service_unavailable
	Purposes []string
}

// remitPurposeCodes are the 23 purpose codes of the simulator. The contract
// names FAMILY_SUPPORT, GOODS_PURCHASED and EDUCATION_TRAINING; the others are
// the simulator's (and the SDK's) own list.
var remitPurposeCodes = []string{
	"FAMILY_SUPPORT", "EDUCATION_TRAINING", "GOODS_PURCHASED", "SERVICES_PURCHASED",
	"SALARY_PAYMENT", "PERSONAL_SAVINGS", "GIFT", "CHARITABLE_DONATION",
	"MEDICAL_TREATMENT", "TRAVEL_EXPENSES", "RENT_PAYMENT", "UTILITY_BILLS",
	"LOAN_REPAYMENT", "INVESTMENT", "REAL_ESTATE_PURCHASE", "TAX_PAYMENT",
	"INSURANCE_PREMIUM", "BUSINESS_EXPENSES", "PROFESSIONAL_FEES", "ROYALTIES_LICENSE_FEES",
	"TRANSPORT_FREIGHT", "CONSTRUCTION_SERVICES", "PENSION_PAYMENT",
}

func without(all []string, drop ...string) []string {
	var out []string
	for _, c := range all {
		keep := true
		for _, d := range drop {
			if c == d {
				keep = false
			}
		}
		if keep {
			out = append(out, c)
		}
	}
	return out
}

// lineSpecs: express is the personal line (KYC 1, queues), pobo the business
// line (KYC 2, an upstream subaccount, does not queue).
var lineSpecs = map[string]lineSpec{
	"express": {
		Name: "express", KYC: 1, Fee: "2", Min: "10", Max: "5000", Daily: "10000", Queues: true,
		Purposes: without(remitPurposeCodes, "SALARY_PAYMENT", "ROYALTIES_LICENSE_FEES", "TRANSPORT_FREIGHT", "CONSTRUCTION_SERVICES"),
	},
	"pobo": {
		Name: "pobo", KYC: 2, Fee: "5", Min: "50", Max: "20000", Daily: "50000", Queues: false,
		Purposes: []string{
			"EDUCATION_TRAINING", "GOODS_PURCHASED", "SERVICES_PURCHASED", "SALARY_PAYMENT", "RENT_PAYMENT",
			"UTILITY_BILLS", "LOAN_REPAYMENT", "INVESTMENT", "TAX_PAYMENT", "INSURANCE_PREMIUM",
			"BUSINESS_EXPENSES", "PROFESSIONAL_FEES", "ROYALTIES_LICENSE_FEES", "TRANSPORT_FREIGHT", "CONSTRUCTION_SERVICES",
		},
	},
}

func (l lineSpec) permits(code string) bool {
	for _, c := range l.Purposes {
		if c == code {
			return true
		}
	}
	return false
}

func knownPurpose(code string) bool {
	for _, c := range remitPurposeCodes {
		if c == code {
			return true
		}
	}
	return false
}

// remitSourceAssets are the debit assets of remittances.
var remitSourceAssets = []string{"USDT", "USDC"}

// remitReviewThreshold: member-funded orders whose customer_total reaches it
// go to compliance review (reviewing) before dispatch.
const remitReviewThreshold = "1000"

// riskListed reports whether a payee holder is on the simulator's risk list:
// any holder name containing "blocked" (case-insensitive). Remittances to
// such payees are refused with request_rejected.
func riskListed(holder string) bool { return strings.Contains(strings.ToLower(holder), "blocked") }
