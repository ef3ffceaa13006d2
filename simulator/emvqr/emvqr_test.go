package emvqr_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mwallet/mwallet-go/simulator/emvqr"
)

// crcBitwise is a deliberately plain CRC-16/CCITT-FALSE, independent of the
// table-driven one in the package, used to check every test vector.
func crcBitwise(s string) string {
	c := uint16(0xFFFF)
	for _, x := range []byte(s) {
		c ^= uint16(x) << 8
		for i := 0; i < 8; i++ {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
	}
	return fmt.Sprintf("%04X", c)
}

// The EMVCo specification's own example payload (Merchant-Presented Mode,
// appendix), with a Chinese language template whose lengths count characters.
const emvcoSample = "00020101021229300012D156000000000510A93FO3230Q31280012D15600000001030812345678520441115802CN5914BEST TRANSPORT6007BEIJING64200002ZH0104最佳运输0202北京540523.7253031565502016233030412340603***0708A60086670902ME91320016A0112233449988770708123456786304A13A"

// Published PromptPay reference payloads (mobile-number proxies, static).
const (
	promptPayRef1 = "00020101021129370016A000000677010111011300668012345675802TH530376463046197"
	promptPayRef2 = "00020101021129370016A000000677010111011300668399999995802TH5303764630478A3"
)

// Payloads written for this package, one per scheme, with their CRCs checked
// by crcBitwise.
var vectors = []struct {
	name    string
	payload string
	want    emvqr.Payload
	scheme  string // "" for no known scheme
	alpha   string
}{
	{
		name:    "emvco sample",
		payload: emvcoSample,
		scheme:  "",
		alpha:   "CNY",
		want: emvqr.Payload{
			FormatIndicator: "01", PointOfInitiation: "12",
			MerchantAccounts: []emvqr.MerchantAccount{
				{Tag: "29", GUI: "D15600000000", Fields: []emvqr.Field{{Tag: "05", Value: "A93FO3230Q"}}},
				{Tag: "31", GUI: "D15600000001", Fields: []emvqr.Field{{Tag: "03", Value: "12345678"}}},
			},
			MerchantCategoryCode: "4111", Currency: "156", Amount: "23.72", TipIndicator: "01", Country: "CN",
			MerchantName: "BEST TRANSPORT", MerchantCity: "BEIJING",
			AdditionalData: []emvqr.Field{{Tag: "03", Value: "1234"}, {Tag: "06", Value: "***"}, {Tag: "07", Value: "A6008667"}, {Tag: "09", Value: "ME"}},
			Language:       []emvqr.Field{{Tag: "00", Value: "ZH"}, {Tag: "01", Value: "最佳运输"}, {Tag: "02", Value: "北京"}},
			Extra:          []emvqr.Field{{Tag: "91", Value: "0016A011223344998877070812345678"}},
			CRC:            "A13A",
		},
	},
	{
		name: "promptpay reference 1", payload: promptPayRef1, scheme: "promptpay", alpha: "THB",
		want: emvqr.Payload{
			FormatIndicator: "01", PointOfInitiation: "11",
			MerchantAccounts: []emvqr.MerchantAccount{{Tag: "29", GUI: "A000000677010111", Fields: []emvqr.Field{{Tag: "01", Value: "0066801234567"}}}},
			Country:          "TH", Currency: "764", CRC: "6197",
		},
	},
	{
		name: "promptpay reference 2", payload: promptPayRef2, scheme: "promptpay", alpha: "THB",
		want: emvqr.Payload{
			FormatIndicator: "01", PointOfInitiation: "11",
			MerchantAccounts: []emvqr.MerchantAccount{{Tag: "29", GUI: "A000000677010111", Fields: []emvqr.Field{{Tag: "01", Value: "0066839999999"}}}},
			Country:          "TH", Currency: "764", CRC: "78A3",
		},
	},
	{
		name:    "promptpay merchant bill payment, Thai language template",
		payload: "00020101021230660016A00000067701011201150105544123456010213ORDER202601010306TABLE75204581253037645406250.005802TH5917BAAN THAI KITCHEN6007BANGKOK64320002TH0111ครัวบ้านไทย0207กรุงเทพ63044C68",
		scheme:  "promptpay", alpha: "THB",
		want: emvqr.Payload{
			FormatIndicator: "01", PointOfInitiation: "12",
			MerchantAccounts:     []emvqr.MerchantAccount{{Tag: "30", GUI: "A000000677010112", Fields: []emvqr.Field{{Tag: "01", Value: "010554412345601"}, {Tag: "02", Value: "ORDER20260101"}, {Tag: "03", Value: "TABLE7"}}}},
			MerchantCategoryCode: "5812", Currency: "764", Amount: "250.00", Country: "TH",
			MerchantName: "BAAN THAI KITCHEN", MerchantCity: "BANGKOK",
			Language: []emvqr.Field{{Tag: "00", Value: "TH"}, {Tag: "01", Value: "ครัวบ้านไทย"}, {Tag: "02", Value: "กรุงเทพ"}},
			CRC:      "4C68",
		},
	},
	{
		name:    "paynow UEN, dynamic",
		payload: "00020101021226490009SG.PAYNOW010120210201912345K03010040820261231520458125303702540512.505802SG5919KOPI CORNER PTE LTD6009SINGAPORE62180114INV-20260101-763047064",
		scheme:  "paynow", alpha: "SGD",
		want: emvqr.Payload{
			FormatIndicator: "01", PointOfInitiation: "12",
			MerchantAccounts:     []emvqr.MerchantAccount{{Tag: "26", GUI: "SG.PAYNOW", Fields: []emvqr.Field{{Tag: "01", Value: "2"}, {Tag: "02", Value: "201912345K"}, {Tag: "03", Value: "0"}, {Tag: "04", Value: "20261231"}}}},
			MerchantCategoryCode: "5812", Currency: "702", Amount: "12.50", Country: "SG",
			MerchantName: "KOPI CORNER PTE LTD", MerchantCity: "SINGAPORE",
			AdditionalData: []emvqr.Field{{Tag: "01", Value: "INV-20260101-7"}},
			CRC:            "7064",
		},
	},
	{
		name:    "qris static with issuer template",
		payload: "00020101021126670020ID.CO.EXAMPLEPAY.WWW01189360000000000000010210EXP00000010303UMI51440014ID.CO.QRIS.WWW0215ID10200000000010303UMI5204581453033605802ID5916WARUNG SARI RASA6007JAKARTA61051011062070703A016304AA0B",
		scheme:  "qris", alpha: "IDR",
		want: emvqr.Payload{
			FormatIndicator: "01", PointOfInitiation: "11",
			MerchantAccounts: []emvqr.MerchantAccount{
				{Tag: "26", GUI: "ID.CO.EXAMPLEPAY.WWW", Fields: []emvqr.Field{{Tag: "01", Value: "936000000000000001"}, {Tag: "02", Value: "EXP0000001"}, {Tag: "03", Value: "UMI"}}},
				{Tag: "51", GUI: "ID.CO.QRIS.WWW", Fields: []emvqr.Field{{Tag: "02", Value: "ID1020000000001"}, {Tag: "03", Value: "UMI"}}},
			},
			MerchantCategoryCode: "5814", Currency: "360", Country: "ID",
			MerchantName: "WARUNG SARI RASA", MerchantCity: "JAKARTA", PostalCode: "10110",
			AdditionalData: []emvqr.Field{{Tag: "07", Value: "A01"}},
			CRC:            "AA0B",
		},
	},
	{
		name:    "khqr individual with timestamp template",
		payload: "00020101021229470015sokha_cafe@abaa01128550123456780208ABA Bank5204599953031165405200005802KH5910Sokha Cafe6010Phnom Penh62110107TRX00019917001317672256000006304C8CC",
		scheme:  "khqr", alpha: "KHR",
		want: emvqr.Payload{
			FormatIndicator: "01", PointOfInitiation: "12",
			MerchantAccounts:     []emvqr.MerchantAccount{{Tag: "29", GUI: "sokha_cafe@abaa", Fields: []emvqr.Field{{Tag: "01", Value: "855012345678"}, {Tag: "02", Value: "ABA Bank"}}}},
			MerchantCategoryCode: "5999", Currency: "116", Amount: "20000", Country: "KH",
			MerchantName: "Sokha Cafe", MerchantCity: "Phnom Penh",
			AdditionalData: []emvqr.Field{{Tag: "01", Value: "TRX0001"}},
			Extra:          []emvqr.Field{{Tag: "99", Value: "00131767225600000"}},
			CRC:            "C8CC",
		},
	},
	{
		name:    "duitnow dynamic",
		payload: "00020101021226530014A000000615000101068900530213MBB000012345603040000520454115303458540515.905802MY5917KEDAI RUNCIT AMAN6012KUALA LUMPUR6304C3DA",
		scheme:  "duitnow", alpha: "MYR",
		want: emvqr.Payload{
			FormatIndicator: "01", PointOfInitiation: "12",
			MerchantAccounts:     []emvqr.MerchantAccount{{Tag: "26", GUI: "A0000006150001", Fields: []emvqr.Field{{Tag: "01", Value: "890053"}, {Tag: "02", Value: "MBB0000123456"}, {Tag: "03", Value: "0000"}}}},
			MerchantCategoryCode: "5411", Currency: "458", Amount: "15.90", Country: "MY",
			MerchantName: "KEDAI RUNCIT AMAN", MerchantCity: "KUALA LUMPUR",
			CRC: "C3DA",
		},
	},
}

func TestCRC16CheckValue(t *testing.T) {
	t.Parallel()
	// The catalogued check value of CRC-16/CCITT-FALSE.
	if got := emvqr.CRC16([]byte("123456789")); got != 0x29B1 {
		t.Fatalf("CRC16(123456789) = %04X, want 29B1", got)
	}
	if got := emvqr.CRC16(nil); got != 0xFFFF {
		t.Fatalf("CRC16(empty) = %04X, want FFFF", got)
	}
}

func TestDecodeVectors(t *testing.T) {
	t.Parallel()
	for _, tc := range vectors {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			body, crc := tc.payload[:len(tc.payload)-4], tc.payload[len(tc.payload)-4:]
			if got := crcBitwise(body); got != crc {
				t.Fatalf("independent CRC %s, vector says %s", got, crc)
			}
			got, err := emvqr.Decode(tc.payload)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if diff := cmp.Diff(tc.want, *got); diff != "" {
				t.Errorf("Decode mismatch (-want +got):\n%s", diff)
			}
			s, ok := got.Scheme()
			if tc.scheme == "" {
				if ok {
					t.Errorf("Scheme() = %q, want none", s.ID)
				}
			} else if !ok || s.ID != tc.scheme {
				t.Errorf("Scheme() = %q %v, want %q", s.ID, ok, tc.scheme)
			}
			if a, _ := got.CurrencyAlpha(); a != tc.alpha {
				t.Errorf("CurrencyAlpha() = %q, want %q", a, tc.alpha)
			}
			// Rebuilding gives a payload that decodes to the same content.
			rebuilt, err := emvqr.Build(*got)
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			again, err := emvqr.Decode(rebuilt)
			if err != nil {
				t.Fatalf("Decode(Build): %v", err)
			}
			if diff := cmp.Diff(got, again, cmpopts.IgnoreFields(emvqr.Payload{}, "CRC")); diff != "" {
				t.Errorf("round trip mismatch (-first +second):\n%s", diff)
			}
		})
	}
}

func TestBuildMatchesVectors(t *testing.T) {
	t.Parallel()
	// The vectors written for this package are exactly what Build writes
	// (the EMVCo sample and the PromptPay references use another object order).
	for _, tc := range vectors[3:] {
		p := tc.want
		p.CRC = ""
		got, err := emvqr.Build(p)
		if err != nil {
			t.Fatalf("%s: Build: %v", tc.name, err)
		}
		if got != tc.payload {
			t.Errorf("%s: Build =\n%s\nwant\n%s", tc.name, got, tc.payload)
		}
	}
}

func TestLengthCountsCharacters(t *testing.T) {
	t.Parallel()
	name := "ครัวบ้านไทย" // 11 characters, 33 bytes
	s := emvqr.MustBuild(emvqr.Payload{
		MerchantAccounts: []emvqr.MerchantAccount{{Tag: "29", GUI: "A000000677010111", Fields: []emvqr.Field{{Tag: "01", Value: "0066812345678"}}}},
		Currency:         "764", Country: "TH", MerchantName: name,
	})
	if want := fmt.Sprintf("59%02d%s", utf8.RuneCountInString(name), name); !strings.Contains(s, want) {
		t.Fatalf("payload %q does not contain %q", s, want)
	}
	p, err := emvqr.Decode(s)
	if err != nil {
		t.Fatal(err)
	}
	if p.MerchantName != name {
		t.Fatalf("MerchantName = %q, want %q", p.MerchantName, name)
	}
	// The same object with a byte length is rejected.
	byteLen := strings.Replace(s[:len(s)-4], fmt.Sprintf("59%02d", utf8.RuneCountInString(name)), fmt.Sprintf("59%02d", len(name)), 1)
	byteLen += crcBitwise(byteLen)
	if _, err := emvqr.Decode(byteLen); err == nil {
		t.Fatal("byte-counted length accepted")
	}
}

// withCRC appends a valid CRC to body (which must end in "6304").
func withCRC(body string) string { return body + crcBitwise(body) }

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	valid := promptPayRef1
	body := valid[:len(valid)-8] // without "6304" and the CRC
	cases := []struct {
		name    string
		payload string
		want    error
		tag     string
	}{
		{"empty", "", emvqr.ErrUnsupported, ""},
		{"plain text", "hello world", emvqr.ErrUnsupported, ""},
		{"consumer-presented base64", "hQVDUFYwMWFaTwegAAAAVVVVVw==", emvqr.ErrUnsupported, ""},
		{"payload format 02", withCRC("000202" + body[6:] + "6304"), emvqr.ErrUnsupported, "00"},
		{"bad CRC", valid[:len(valid)-1] + "8", emvqr.ErrChecksum, "63"},
		{"CRC over a changed amount", strings.Replace(promptPayRef1, "5802TH", "5802TI", 1), emvqr.ErrChecksum, "63"},
		{"CRC not hex", body + "6304ZZZZ", emvqr.ErrInvalid, "63"},
		{"CRC missing", withCRC(body + "6304")[:len(body)], emvqr.ErrMissing, "63"},
		{"CRC not last", withCRC(body + "6304")[:len(body)+8] + "5802TH", emvqr.ErrMissing, "63"},
		{"truncated value", "000201010211293700", emvqr.ErrTruncated, "29"},
		{"truncated header", "00020101021", emvqr.ErrTruncated, "01"},
		{"non-digit length", withCRC("0002010102112937" + "0016A00000067701011101XX0066801234567" + "5802TH53037646304"), emvqr.ErrSyntax, "29.01"},
		{"truncated template", withCRC("00020101021129140016A0000006775802TH53037646304"), emvqr.ErrTruncated, "29.00"},
		{"missing currency", withCRC("00020101021129370016A000000677010111011300668012345675802TH6304"), emvqr.ErrMissing, "53"},
		{"missing country", withCRC("00020101021129370016A00000067701011101130066801234567530376463" + "04"), emvqr.ErrMissing, "58"},
		{"missing merchant account", withCRC("0002010102115802TH53037646304"), emvqr.ErrMissing, "26"},
		{"template without GUI", withCRC("000201010211291701130066801234567" + "5802TH53037646304"), emvqr.ErrMissing, "29.00"},
		{"bad point of initiation", withCRC("000201010213" + body[12:] + "6304"), emvqr.ErrInvalid, "01"},
		{"duplicate currency", withCRC(body + "53037646304"), emvqr.ErrDuplicate, "53"},
		{"bad amount", withCRC(body + "54041.2.6304"), emvqr.ErrInvalid, "54"},
		{"negative amount", withCRC(body + "5404-1.06304"), emvqr.ErrInvalid, "54"},
		{"bad currency", withCRC(strings.Replace(body, "5303764", "53037X4", 1) + "6304"), emvqr.ErrInvalid, "53"},
		{"lower-case country", withCRC(strings.Replace(body, "5802TH", "5802th", 1) + "6304"), emvqr.ErrInvalid, "58"},
		{"not UTF-8", "0002\xff\xfe", emvqr.ErrSyntax, ""},
		{"too long", withCRC(body + "6299" + strings.Repeat("0", 450) + "6304"), emvqr.ErrSyntax, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := emvqr.Decode(tc.payload)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Decode(%q) = %+v, %v; want %v", tc.payload, p, err, tc.want)
			}
			var de *emvqr.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %T is not a *DecodeError", err)
			}
			if de.Tag != tc.tag {
				t.Errorf("Tag = %q, want %q (%v)", de.Tag, tc.tag, err)
			}
		})
	}
}

func TestDecodeAcceptsLowerCaseCRC(t *testing.T) {
	t.Parallel()
	lower := promptPayRef2[:len(promptPayRef2)-4] + strings.ToLower(promptPayRef2[len(promptPayRef2)-4:])
	if _, err := emvqr.Decode(lower); err != nil {
		t.Fatalf("Decode: %v", err)
	}
}

func TestPayloadAccessors(t *testing.T) {
	t.Parallel()
	p, err := emvqr.Decode(promptPayRef1)
	if err != nil {
		t.Fatal(err)
	}
	got := struct {
		Dynamic, Editable bool
		Missing           []string
	}{p.Dynamic(), p.AmountEditable(), p.MissingEMVCoFields()}
	want := struct {
		Dynamic, Editable bool
		Missing           []string
	}{false, true, []string{"52", "59", "60"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("accessors (-want +got):\n%s", diff)
	}
	if v, ok := p.MerchantAccounts[0].Field("01"); !ok || v != "0066801234567" {
		t.Errorf("Field(01) = %q %v", v, ok)
	}
	if v, ok := p.MerchantAccounts[0].Field("00"); !ok || v != "A000000677010111" {
		t.Errorf("Field(00) = %q %v", v, ok)
	}
	s, err := emvqr.Decode(emvcoSample)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := s.Additional("07"); !ok || v != "A6008667" {
		t.Errorf("Additional(07) = %q %v", v, ok)
	}
}

func TestCurrencyTable(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		"764": "THB", "702": "SGD", "360": "IDR", "116": "KHR", "840": "USD", "458": "MYR", "156": "CNY",
		"704": "VND", "608": "PHP", "344": "HKD", "356": "INR", "978": "EUR", "826": "GBP", "392": "JPY",
	}
	for num, alpha := range want {
		c, ok := emvqr.CurrencyByNumeric(num)
		if !ok || c.Alpha != alpha {
			t.Errorf("CurrencyByNumeric(%s) = %+v %v, want %s", num, c, ok, alpha)
		}
		back, ok := emvqr.CurrencyByAlpha(alpha)
		if !ok || back.Numeric != num {
			t.Errorf("CurrencyByAlpha(%s) = %+v %v", alpha, back, ok)
		}
	}
	if c, _ := emvqr.CurrencyByAlpha("JPY"); c.MinorUnits != 0 {
		t.Errorf("JPY minor units %d", c.MinorUnits)
	}
	if _, ok := emvqr.CurrencyByNumeric("999"); ok {
		t.Error("999 found")
	}
}

func TestBuildErrors(t *testing.T) {
	t.Parallel()
	cases := []emvqr.Payload{
		{MerchantName: strings.Repeat("x", 100)},
		{MerchantAccounts: []emvqr.MerchantAccount{{Tag: "2", GUI: "SG.PAYNOW"}}},
		{AdditionalData: []emvqr.Field{{Tag: "5", Value: "x"}}},
		{Extra: []emvqr.Field{{Tag: "9a", Value: "x"}}},
	}
	for i, p := range cases {
		if s, err := emvqr.Build(p); err == nil {
			t.Errorf("case %d: Build = %q, want error", i, s)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(emvcoSample)
	f.Add(promptPayRef1)
	for _, v := range vectors {
		f.Add(v.payload)
	}
	f.Add("000201010211")
	f.Add(vietQRTransfer)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := emvqr.Decode(s)
		if err != nil {
			var de *emvqr.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %T is not a *DecodeError", err)
			}
			return
		}
		// The payee account of whatever decodes is read without a panic and
		// is never empty when found.
		if a, ok := p.Account(); ok && (a.ID == "" || a.String() == "") {
			t.Fatalf("Account of %q = %+v", s, a)
		}
		// Whatever decodes re-encodes to a payload with the same content.
		out, err := emvqr.Build(*p)
		if err != nil {
			t.Fatalf("Build(Decode(%q)): %v", s, err)
		}
		again, err := emvqr.Decode(out)
		if err != nil {
			t.Fatalf("Decode(Build(Decode(%q))) = %v (built %q)", s, err, out)
		}
		if diff := cmp.Diff(p, again, cmpopts.IgnoreFields(emvqr.Payload{}, "CRC"), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip of %q (-first +second):\n%s", s, diff)
		}
	})
}

// FuzzDecodeStructure appends a valid CRC to arbitrary text, so the fuzzer
// reaches the structure checks behind the checksum.
func FuzzDecodeStructure(f *testing.F) {
	for _, v := range vectors {
		f.Add(v.payload[:len(v.payload)-8])
	}
	f.Add("00020101021129140016A000000677")
	f.Add(vietQRTransfer[:len(vietQRTransfer)-8])
	f.Fuzz(func(t *testing.T, body string) {
		s := body + "6304"
		s += fmt.Sprintf("%04X", emvqr.CRC16([]byte(s)))
		p, err := emvqr.Decode(s)
		if err != nil {
			return
		}
		if a, ok := p.Account(); ok && (a.ID == "" || a.String() == "") {
			t.Fatalf("Account of %q = %+v", s, a)
		}
		out, err := emvqr.Build(*p)
		if err != nil {
			t.Fatalf("Build(Decode(%q)): %v", s, err)
		}
		again, err := emvqr.Decode(out)
		if err != nil {
			t.Fatalf("Decode(Build(Decode(%q))) = %v (built %q)", s, err, out)
		}
		if diff := cmp.Diff(p, again, cmpopts.IgnoreFields(emvqr.Payload{}, "CRC"), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip of %q (-first +second):\n%s", s, diff)
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	for _, v := range []struct{ name, payload string }{{"emvco-sample", emvcoSample}, {"promptpay", promptPayRef1}} {
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(v.payload)))
			for i := 0; i < b.N; i++ {
				if _, err := emvqr.Decode(v.payload); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCRC16(b *testing.B) {
	data := []byte(emvcoSample)
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		emvqr.CRC16(data)
	}
}
