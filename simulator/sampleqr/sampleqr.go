// Package sampleqr holds real-format sample QR codes: for every national
// scheme the simulator decodes (see emvqr.Schemes), one code with a fixed
// amount and one whose amount the payer enters (a custom-amount code), as
// the scheme prints them (EMVCo merchant-presented mode, character-counted
// TLV, CRC-16/CCITT-FALSE). Pass them unmodified as the scanned text:
//
//	order, err := client.QRPay.Pay(ctx, member, qrpay.PayParams{CodeValue: sampleqr.PromptPay})
//
// The simulator decodes, quotes and pays every one of them; a custom-amount
// code needs Amount and Currency in qrpay.QuoteParams and qrpay.PayParams.
// The merchants and accounts are invented: never show these codes to a
// real payer. To build other codes (another amount, a scenario in template
// 62), use emvqr.Build.
//
//	scheme      fixed amount               custom amount
//	promptpay   PromptPay (250.00 THB)     PromptPayCustom
//	paynow      PayNow (12.50 SGD)         PayNowCustom
//	qris        QRIS (25000.00 IDR)        QRISCustom
//	khqr        KHQR (40000.00 KHR)        KHQRCustom
//	duitnow     DuitNow (15.90 MYR)        DuitNowCustom
//	vietqr      VietQR (120000 VND)        VietQRCustom
//	fps         FPS (88.00 HKD)            FPSCustom
//	qrph        QRPh (150.00 PHP)          QRPhCustom
//
// Codes of no national scheme (card-network or proprietary EMVCo codes) are
// qr_code_invalid in the simulator, so none is given here.
package sampleqr

// Sample QR codes, as a phone camera reads them.
const (
	// PromptPay is a PromptPay code of Thailand: a dynamic bill-payment code (template 30) of 250.00 THB; merchant BAAN THAI KITCHEN.
	PromptPay = "00020101021230500016A00000067701011201150105544123456010207INV00015204581253037645406250.005802TH5917BAAN THAI KITCHEN6007BANGKOK6304319C"
	// PromptPayCustom is a PromptPay code of Thailand: a static code for a mobile number (template 29), THB, amount entered by the payer; merchant BAAN THAI KITCHEN.
	PromptPayCustom = "00020101021129370016A000000677010111011300668123456785204581253037645802TH5917BAAN THAI KITCHEN6007BANGKOK6304CCDB"
	// PayNow is a PayNow code of Singapore: a dynamic UEN code of 12.50 SGD, amount not editable; merchant KOPI CORNER PTE LTD.
	PayNow = "00020101021226490009SG.PAYNOW010120210201912345K03010040820261231520458125303702540512.505802SG5919KOPI CORNER PTE LTD6009SINGAPORE63048AD5"
	// PayNowCustom is a PayNow code of Singapore: a static UEN code, SGD, amount entered by the payer; merchant KOPI CORNER PTE LTD.
	PayNowCustom = "00020101021126370009SG.PAYNOW010120210201912345K030115204581253037025802SG5919KOPI CORNER PTE LTD6009SINGAPORE63041201"
	// QRIS is a QRIS code of Indonesia: a dynamic code (template 51) of 25000.00 IDR; merchant WARUNG SARI RASA.
	QRIS = "00020101021251440014ID.CO.QRIS.WWW0215ID10200000000010303UMI520458145303360540825000.005802ID5916WARUNG SARI RASA6007JAKARTA61051011063047EEC"
	// QRISCustom is a QRIS code of Indonesia: a static code, IDR, amount entered by the payer; merchant WARUNG SARI RASA.
	QRISCustom = "00020101021151440014ID.CO.QRIS.WWW0215ID10200000000010303UMI5204581453033605802ID5916WARUNG SARI RASA6007JAKARTA6105101106304EAEF"
	// KHQR is a KHQR (Bakong) code of Cambodia: a dynamic Bakong code (account sokha_cafe@aclb in template 29) of 40000.00 KHR; merchant SOKHA CAFE.
	KHQR = "00020101021229340015sokha_cafe@aclb011185512345678520458125303116540840000.005802KH5910SOKHA CAFE6010PHNOM PENH6304D134"
	// KHQRCustom is a KHQR (Bakong) code of Cambodia: a static Bakong code, KHR, amount entered by the payer; merchant SOKHA CAFE.
	KHQRCustom = "00020101021129340015sokha_cafe@aclb0111855123456785204581253031165802KH5910SOKHA CAFE6010PHNOM PENH6304D979"
	// DuitNow is a DuitNow QR code of Malaysia: a dynamic code of 15.90 MYR; merchant KEDAI RUNCIT AMAN.
	DuitNow = "00020101021226530014A000000615000101068900530213MBB000012345603040000520454115303458540515.905802MY5917KEDAI RUNCIT AMAN6012KUALA LUMPUR6304C3DA"
	// DuitNowCustom is a DuitNow QR code of Malaysia: a static code, MYR, amount entered by the payer; merchant KEDAI RUNCIT AMAN.
	DuitNowCustom = "00020101021126530014A000000615000101068900530213MBB0000123456030400005204541153034585802MY5917KEDAI RUNCIT AMAN6012KUALA LUMPUR63045370"
	// VietQR is a VietQR (NAPAS) code of Vietnam: a dynamic NAPAS code (template 38) of 120000 VND (no minor unit); merchant PHO HA NOI.
	VietQR = "00020101021238520010A000000727012200069704360115012345670208QRIBFTTA52045812530370454061200005802VN5910PHO HA NOI6006HA NOI630484DF"
	// VietQRCustom is a VietQR (NAPAS) code of Vietnam: a static NAPAS code, VND, amount entered by the payer; merchant PHO HA NOI.
	VietQRCustom = "00020101021138520010A000000727012200069704360115012345670208QRIBFTTA5204581253037045802VN5910PHO HA NOI6006HA NOI6304EA6B"
	// FPS is a FPS (Hong Kong) code of Hong Kong: a dynamic FPS code of 88.00 HKD; merchant CHA CHAAN TENG.
	FPS = "00020101021226400012hk.com.hkicl02091234567890407FPS0001520458125303344540588.005802HK5914CHA CHAAN TENG6009HONG KONG630486BD"
	// FPSCustom is a FPS (Hong Kong) code of Hong Kong: a static FPS code, HKD, amount entered by the payer; merchant CHA CHAAN TENG.
	FPSCustom = "00020101021126290012hk.com.hkicl02091234567895204581253033445802HK5914CHA CHAAN TENG6009HONG KONG63048236"
	// QRPh is a QR Ph code of the Philippines: a dynamic P2M code of 150.00 PHP; merchant SARI SARI STORE.
	QRPh = "00020101021227440011ph.ppmi.p2m0111BNORPHMMXXX031012345678905204581253036085406150.005802PH5915SARI SARI STORE6006MANILA6304E422"
	// QRPhCustom is a QR Ph code of the Philippines: a static P2M code, PHP, amount entered by the payer; merchant SARI SARI STORE.
	QRPhCustom = "00020101021127440011ph.ppmi.p2m0111BNORPHMMXXX031012345678905204581253036085802PH5915SARI SARI STORE6006MANILA6304C047"
)

// Sample describes one sample code. The simulator serves every one at
// GET /_sim/qr-samples, for clients in other languages.
type Sample struct {
	// Name is the constant's name, for example "PromptPay".
	Name string `json:"name"`
	// Scheme is the scheme id of emvqr.Schemes and GET /v1/qrpay/schemes,
	// for example "promptpay".
	Scheme string `json:"scheme"`
	// Currency is the ISO 4217 alphabetic code the code is in.
	Currency string `json:"currency"`
	// Amount is the amount printed in the code (tag 54); empty for a
	// custom-amount code.
	Amount string `json:"amount"`
	// Payee is the merchant name the code carries (tag 59).
	Payee string `json:"payee"`
	// Value is the code itself: the constant.
	Value string `json:"value"`
}

// All returns every sample, fixed amount before custom amount, schemes in
// the order of the table above.
func All() []Sample {
	return []Sample{
		{Name: "PromptPay", Scheme: "promptpay", Currency: "THB", Amount: "250.00", Payee: "BAAN THAI KITCHEN", Value: PromptPay},
		{Name: "PromptPayCustom", Scheme: "promptpay", Currency: "THB", Amount: "", Payee: "BAAN THAI KITCHEN", Value: PromptPayCustom},
		{Name: "PayNow", Scheme: "paynow", Currency: "SGD", Amount: "12.50", Payee: "KOPI CORNER PTE LTD", Value: PayNow},
		{Name: "PayNowCustom", Scheme: "paynow", Currency: "SGD", Amount: "", Payee: "KOPI CORNER PTE LTD", Value: PayNowCustom},
		{Name: "QRIS", Scheme: "qris", Currency: "IDR", Amount: "25000.00", Payee: "WARUNG SARI RASA", Value: QRIS},
		{Name: "QRISCustom", Scheme: "qris", Currency: "IDR", Amount: "", Payee: "WARUNG SARI RASA", Value: QRISCustom},
		{Name: "KHQR", Scheme: "khqr", Currency: "KHR", Amount: "40000.00", Payee: "SOKHA CAFE", Value: KHQR},
		{Name: "KHQRCustom", Scheme: "khqr", Currency: "KHR", Amount: "", Payee: "SOKHA CAFE", Value: KHQRCustom},
		{Name: "DuitNow", Scheme: "duitnow", Currency: "MYR", Amount: "15.90", Payee: "KEDAI RUNCIT AMAN", Value: DuitNow},
		{Name: "DuitNowCustom", Scheme: "duitnow", Currency: "MYR", Amount: "", Payee: "KEDAI RUNCIT AMAN", Value: DuitNowCustom},
		{Name: "VietQR", Scheme: "vietqr", Currency: "VND", Amount: "120000", Payee: "PHO HA NOI", Value: VietQR},
		{Name: "VietQRCustom", Scheme: "vietqr", Currency: "VND", Amount: "", Payee: "PHO HA NOI", Value: VietQRCustom},
		{Name: "FPS", Scheme: "fps", Currency: "HKD", Amount: "88.00", Payee: "CHA CHAAN TENG", Value: FPS},
		{Name: "FPSCustom", Scheme: "fps", Currency: "HKD", Amount: "", Payee: "CHA CHAAN TENG", Value: FPSCustom},
		{Name: "QRPh", Scheme: "qrph", Currency: "PHP", Amount: "150.00", Payee: "SARI SARI STORE", Value: QRPh},
		{Name: "QRPhCustom", Scheme: "qrph", Currency: "PHP", Amount: "", Payee: "SARI SARI STORE", Value: QRPhCustom},
	}
}
