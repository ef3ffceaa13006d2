// Package emvqr decodes and builds EMVCo merchant-presented QR payloads (EMV
// QR Code Specification for Payment Systems, Merchant-Presented Mode), the
// format behind PromptPay, PayNow, QRIS, KHQR, DuitNow, VietQR and most other
// national fiat QR schemes.
//
// A payload is a sequence of data objects, each written ID (two digits),
// length (two digits) and value. The length counts characters, not bytes: a
// value in the merchant-information language template may hold Thai or Chinese
// text. Templates (merchant account information 26-51, additional data 62,
// language 64, unreserved 80-99) nest the same encoding one level deep. The
// last object is the CRC (ID 63, length 04): CRC-16/CCITT-FALSE (polynomial
// 0x1021, initial value 0xFFFF, no reflection, no final XOR) over the UTF-8
// bytes of the payload up to and including "6304", written as four
// hexadecimal digits.
//
// Decode checks the structure, the CRC, the payload format indicator ("01"),
// the point of initiation ("11" static, "12" dynamic) and the presence of the
// objects every scheme carries: payload format indicator, at least one
// merchant account information object, transaction currency, country code and
// CRC. Merchant category code, merchant name and merchant city are mandatory in
// the EMVCo text but absent from real person-to-person codes of some national
// schemes (a PromptPay code for a mobile number carries none of them), so
// Decode accepts their absence; Payload.MissingEMVCoFields reports it. An
// empty optional object (a name field printed 5900, an amount 5400) is read
// as absent, and an amount of zero (ID 54 "0") as an open amount:
// Payload.AmountEditable.
//
// Payload.Account reads the payee account from the merchant account template
// of the payload's scheme, by the layout the scheme publishes.
//
// Build does the reverse and computes the CRC, which makes valid test payloads
// easy to write.
package emvqr

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxLength is the largest payload accepted, in characters (the EMVCo limit).
const MaxLength = 512

// Errors returned by Decode, wrapped in a *DecodeError so errors.Is works on
// the sentinel.
var (
	// ErrTruncated reports a data object whose ID, length or value runs past
	// the end of its payload or template.
	ErrTruncated = errors.New("emvqr: truncated data object")
	// ErrSyntax reports an ID or length that is not two decimal digits, bytes
	// that are not UTF-8, or a payload longer than MaxLength.
	ErrSyntax = errors.New("emvqr: malformed data object")
	// ErrChecksum reports a CRC that does not match the payload.
	ErrChecksum = errors.New("emvqr: CRC mismatch")
	// ErrMissing reports a mandatory data object that is absent.
	ErrMissing = errors.New("emvqr: mandatory data object missing")
	// ErrDuplicate reports a data object that appears twice.
	ErrDuplicate = errors.New("emvqr: duplicate data object")
	// ErrInvalid reports a data object whose value breaks its format.
	ErrInvalid = errors.New("emvqr: invalid data object value")
	// ErrUnsupported reports a payload that is not an EMVCo merchant-presented
	// payload of format version "01" (for example a consumer-presented code or
	// plain text).
	ErrUnsupported = errors.New("emvqr: unsupported payload format")
)

// DecodeError describes why a payload was rejected.
type DecodeError struct {
	// Tag is the data object involved ("63", "26.00"), or "" for the payload
	// as a whole.
	Tag string
	// Offset is the character offset where the problem was found.
	Offset int
	// Detail says what was wrong.
	Detail string
	// Err is one of the Err* sentinels of this package.
	Err error
}

// Error describes the problem, the tag and the character offset.
func (e *DecodeError) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	if e.Tag != "" {
		b.WriteString(" (tag " + e.Tag + ")")
	}
	fmt.Fprintf(&b, " at character %d", e.Offset)
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	return b.String()
}

// Unwrap returns the sentinel.
func (e *DecodeError) Unwrap() error { return e.Err }

// Field is one data object: a two-digit ID and its value.
type Field struct {
	Tag   string
	Value string
}

// MerchantAccount is a merchant account information object (IDs 02 to 51).
// IDs 02 to 25 are primitive values reserved for card networks; only Value
// is set. IDs 26 to 51 are templates: GUI is sub-object 00 (the globally
// unique identifier of the scheme, for example "A000000677010111" for
// PromptPay or "SG.PAYNOW"), Fields holds the other sub-objects in order.
type MerchantAccount struct {
	Tag    string
	GUI    string
	Fields []Field
	// Value is the raw value of a primitive object (IDs 02 to 25).
	Value string
}

// Field returns the value of sub-object tag, if present.
func (m MerchantAccount) Field(tag string) (string, bool) {
	if tag == "00" && m.GUI != "" {
		return m.GUI, true
	}
	return lookup(m.Fields, tag)
}

// Payload is a decoded merchant-presented payload, and the input of Build.
// Every value is kept as printed; nothing is converted or rounded.
type Payload struct {
	// FormatIndicator is ID 00; Build writes "01" when it is empty.
	FormatIndicator string
	// PointOfInitiation is ID 01: "11" static (reusable), "12" dynamic (one
	// payment); empty when absent.
	PointOfInitiation string
	// MerchantAccounts are IDs 02 to 51, in payload order.
	MerchantAccounts []MerchantAccount
	// MerchantCategoryCode is ID 52 (ISO 18245, four digits).
	MerchantCategoryCode string
	// Currency is ID 53, the ISO 4217 numeric code ("764"); see CurrencyAlpha.
	Currency string
	// Amount is ID 54 as printed ("23.72"); empty when the payer keys in the
	// amount (a custom-amount code).
	Amount string
	// TipIndicator is ID 55 ("01" prompt, "02" fixed fee, "03" percentage).
	TipIndicator string
	// ConvenienceFeeFixed is ID 56 and ConvenienceFeePercent ID 57.
	ConvenienceFeeFixed   string
	ConvenienceFeePercent string
	// Country is ID 58 (ISO 3166-1 alpha-2).
	Country string
	// MerchantName is ID 59 and MerchantCity ID 60.
	MerchantName string
	MerchantCity string
	// PostalCode is ID 61.
	PostalCode string
	// AdditionalData holds the sub-objects of template 62 (01 bill number,
	// 02 mobile number, 03 store label, 04 loyalty number, 05 reference label,
	// 06 customer label, 07 terminal label, 08 purpose of transaction, 09
	// additional consumer data request, ...), in order.
	AdditionalData []Field
	// Language holds the sub-objects of template 64 (00 language preference,
	// 01 alternate merchant name, 02 alternate merchant city).
	Language []Field
	// Extra holds the remaining top-level objects (RFU 65-79, unreserved
	// templates 80-99) as printed, in order.
	Extra []Field
	// CRC is ID 63 as printed (Decode only; Build computes it).
	CRC string
}

// Dynamic reports a one-payment code (point of initiation "12").
func (p *Payload) Dynamic() bool { return p.PointOfInitiation == "12" }

// AmountEditable reports a custom-amount code, where the payer enters the
// amount: one without ID 54, or whose ID 54 is zero ("0", "0.00"), as some
// generators print an open amount.
func (p *Payload) AmountEditable() bool { return p.Amount == "" || zeroAmount(p.Amount) }

// FixedAmount returns ID 54 as printed for a fixed-amount code, or "" for a
// custom-amount code (AmountEditable).
func (p *Payload) FixedAmount() string {
	if p.AmountEditable() {
		return ""
	}
	return p.Amount
}

// CurrencyAlpha returns the ISO 4217 alphabetic code of the transaction
// currency ("THB" for "764"), or false when the numeric code is not in the
// table of this package.
func (p *Payload) CurrencyAlpha() (string, bool) {
	c, ok := CurrencyByNumeric(p.Currency)
	return c.Alpha, ok
}

// Additional returns the value of sub-object tag of template 62.
func (p *Payload) Additional(tag string) (string, bool) { return lookup(p.AdditionalData, tag) }

// MissingEMVCoFields lists the IDs the EMVCo text makes mandatory but Decode
// tolerates (52 merchant category code, 59 merchant name, 60 merchant city)
// that this payload lacks.
func (p *Payload) MissingEMVCoFields() []string {
	var out []string
	if p.MerchantCategoryCode == "" {
		out = append(out, "52")
	}
	if p.MerchantName == "" {
		out = append(out, "59")
	}
	if p.MerchantCity == "" {
		out = append(out, "60")
	}
	return out
}

// emptyIsAbsent are the optional primitive objects whose empty value Decode
// reads as absent: 52 merchant category code, 54 amount, 55 to 57 tip and
// convenience fee, 59 merchant name, 60 merchant city, 61 postal code.
var emptyIsAbsent = [100]bool{52: true, 54: true, 55: true, 56: true, 57: true, 59: true, 60: true, 61: true}

// Decode parses and checks a merchant-presented payload, exactly as scanned
// (no trimming). The error is a *DecodeError wrapping one of the Err*
// sentinels.
func Decode(s string) (*Payload, error) {
	if !utf8.ValidString(s) {
		return nil, &DecodeError{Err: ErrSyntax, Detail: "payload is not UTF-8 text"}
	}
	if n := utf8.RuneCountInString(s); n > MaxLength {
		return nil, &DecodeError{Err: ErrSyntax, Detail: fmt.Sprintf("payload has %d characters, more than %d", n, MaxLength)}
	}
	if !strings.HasPrefix(s, "0002") {
		return nil, &DecodeError{Err: ErrUnsupported, Detail: "a merchant-presented payload starts with the payload format indicator 0002"}
	}
	objs, err := splitTLV(s, 0, "")
	if err != nil {
		return nil, err
	}
	// The CRC object is last; it covers everything before its value.
	last := objs[len(objs)-1]
	if last.tag != "63" {
		return nil, &DecodeError{Tag: "63", Offset: last.offset, Err: ErrMissing, Detail: "the last data object must be the CRC (63)"}
	}
	if len(last.value) != 4 || !isHex(last.value) {
		return nil, &DecodeError{Tag: "63", Offset: last.offset, Err: ErrInvalid, Detail: "the CRC is four hexadecimal digits"}
	}
	covered := s[:len(s)-4]
	want := crcText(CRC16([]byte(covered)))
	if !strings.EqualFold(want, last.value) {
		return nil, &DecodeError{Tag: "63", Offset: last.offset, Err: ErrChecksum, Detail: fmt.Sprintf("payload says %s, content gives %s", last.value, want)}
	}
	p := &Payload{CRC: last.value}
	var seen [100]bool
	for idx, o := range objs {
		n := tagNumber(o.tag)
		if seen[n] {
			return nil, &DecodeError{Tag: o.tag, Offset: o.offset, Err: ErrDuplicate}
		}
		seen[n] = true
		if idx == 0 && o.tag != "00" {
			return nil, &DecodeError{Tag: "00", Offset: 0, Err: ErrUnsupported, Detail: "the payload format indicator must come first"}
		}
		bad := func(detail string) error {
			return &DecodeError{Tag: o.tag, Offset: o.offset, Err: ErrInvalid, Detail: detail}
		}
		switch t := o.tag; {
		case t == "00":
			if o.value != "01" {
				return nil, &DecodeError{Tag: "00", Offset: o.offset, Err: ErrUnsupported, Detail: fmt.Sprintf("payload format indicator %q, only \"01\" is defined", o.value)}
			}
			p.FormatIndicator = o.value
		case t == "01":
			if o.value != "11" && o.value != "12" {
				return nil, bad(fmt.Sprintf("point of initiation %q is neither 11 (static) nor 12 (dynamic)", o.value))
			}
			p.PointOfInitiation = o.value
		case t >= "02" && t <= "25":
			if o.value == "" {
				return nil, bad("empty merchant account information")
			}
			p.MerchantAccounts = append(p.MerchantAccounts, MerchantAccount{Tag: t, Value: o.value})
		case t >= "26" && t <= "51":
			ma, err := decodeAccount(o)
			if err != nil {
				return nil, err
			}
			p.MerchantAccounts = append(p.MerchantAccounts, ma)
		case o.value == "" && emptyIsAbsent[tagNumber(t)]:
			// An empty optional object (5900, as some generators print a
			// code without a name; 5400 for an open amount) is read as
			// absent.
		case t == "52":
			if len(o.value) != 4 || !digits(o.value) {
				return nil, bad("merchant category code is four digits")
			}
			p.MerchantCategoryCode = o.value
		case t == "53":
			if len(o.value) != 3 || !digits(o.value) {
				return nil, bad("transaction currency is a three-digit ISO 4217 numeric code")
			}
			p.Currency = o.value
		case t == "54":
			if !isAmount(o.value) {
				return nil, bad(fmt.Sprintf("transaction amount %q is not a plain decimal of at most 13 characters", o.value))
			}
			p.Amount = o.value
		case t == "55":
			if o.value != "01" && o.value != "02" && o.value != "03" {
				return nil, bad("tip or convenience indicator is 01, 02 or 03")
			}
			p.TipIndicator = o.value
		case t == "56":
			if !isAmount(o.value) {
				return nil, bad("convenience fee is not a plain decimal")
			}
			p.ConvenienceFeeFixed = o.value
		case t == "57":
			if !isAmount(o.value) {
				return nil, bad("convenience fee percentage is not a plain decimal")
			}
			p.ConvenienceFeePercent = o.value
		case t == "58":
			if len(o.value) != 2 || strings.ToUpper(o.value) != o.value || !letters(o.value) {
				return nil, bad("country code is two uppercase letters")
			}
			p.Country = o.value
		case t == "59":
			p.MerchantName = o.value
		case t == "60":
			p.MerchantCity = o.value
		case t == "61":
			p.PostalCode = o.value
		case t == "62":
			subs, err := decodeTemplate(o)
			if err != nil {
				return nil, err
			}
			p.AdditionalData = subs
		case t == "63":
			// Checked above; it is the last object.
		case t == "64":
			subs, err := decodeTemplate(o)
			if err != nil {
				return nil, err
			}
			p.Language = subs
		default:
			p.Extra = append(p.Extra, Field{Tag: o.tag, Value: o.value})
		}
	}
	switch {
	case len(p.MerchantAccounts) == 0:
		return nil, &DecodeError{Tag: "26", Err: ErrMissing, Detail: "no merchant account information (IDs 02 to 51)"}
	case p.Currency == "":
		return nil, &DecodeError{Tag: "53", Err: ErrMissing, Detail: "transaction currency"}
	case p.Country == "":
		return nil, &DecodeError{Tag: "58", Err: ErrMissing, Detail: "country code"}
	}
	return p, nil
}
