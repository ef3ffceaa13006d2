package simulator

import (
	"encoding/json"
	"fmt"

	"github.com/cockroachdb/apd/v3"
)

// qrRequest is the body of quotes and payments. Pointers tell "absent" from
// "empty".
type qrRequest struct {
	FundingSource  *string         `json:"funding_source"`
	CodeValue      *string         `json:"code_value"`
	Currency       *string         `json:"currency"`
	Amount         *string         `json:"amount"`
	PreferredAsset *string         `json:"preferred_asset"`
	Payer          json.RawMessage `json:"payer"`
}

// qrInput is a validated quote or payment request.
type qrInput struct {
	code           *qrCode
	merchantFunded bool
	sentCurrency   string // as sent ("" when absent), for the memo key
	sentAmount     string // normalized amount as sent ("" when absent)
	currency       string // acquirer currency (alphabetic)
	amount         string // acquirer amount printed with the currency's minor units
	amountValue    *apd.Decimal
	preferred      string // "" when absent
	payer          map[string]string
}

// qrValidate checks a quote or payment body: everything that needs no
// upstream and changes nothing. The errors are the 400s of the contract.
func (s *Simulator) qrValidate(c *rc) (*qrInput, error) {
	var req qrRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	if req.CodeValue == nil || *req.CodeValue == "" {
		return nil, errInvalidRequest("code_value is required")
	}
	in := &qrInput{}
	// funding_source: merchant_hosted accounts must send merchant; member (or
	// nothing) only on platform_hosted accounts, as on the other lines.
	fs := ""
	if req.FundingSource != nil {
		fs = *req.FundingSource
	}
	switch {
	case s.merchant.Model == MerchantHosted && fs != "merchant":
		return nil, errInvalidFields("merchant_hosted accounts must send funding_source merchant", "funding_source")
	case s.merchant.Model == MerchantHosted:
		in.merchantFunded = true
	case fs != "" && fs != "member":
		return nil, errInvalidFields("funding_source must be member (or omitted) on platform_hosted accounts", "funding_source")
	}
	if req.PreferredAsset != nil {
		if *req.PreferredAsset == "" {
			return nil, errInvalidRequest("preferred_asset is empty")
		}
		in.preferred = *req.PreferredAsset
	}
	payer, err := qrPayer(req.Payer)
	if err != nil {
		return nil, err
	}
	in.payer = payer
	if s.qr.disabled {
		return nil, newErr("service_unavailable", "the QR payment line is temporarily unavailable")
	}
	q, err := s.parseCode(*req.CodeValue)
	if err != nil {
		return nil, err
	}
	in.code = q
	minor := q.currency.MinorUnits
	if !q.payload.AmountEditable() {
		var keys []string
		if req.Currency != nil {
			keys = append(keys, "currency")
		}
		if req.Amount != nil {
			keys = append(keys, "amount")
		}
		if len(keys) > 0 {
			return nil, errInvalidFields("currency and amount are only for custom-amount codes; this code carries its amount", keys...)
		}
		v, text, ok := fiatAmount(q.payload.Amount, minor)
		if !ok {
			return nil, newErr("qr_code_invalid", "the QR code cannot be used")
		}
		in.currency, in.amount, in.amountValue = q.currency.Alpha, text, v
		return in, nil
	}
	if req.Amount == nil || *req.Amount == "" {
		return nil, errInvalidRequest("amount is required for custom-amount codes (amount_editable true)")
	}
	v, text, ok := fiatAmount(*req.Amount, minor)
	if !ok {
		return nil, errInvalidRequest(fmt.Sprintf("amount %q: want a positive decimal string with at most %d decimals", *req.Amount, minor))
	}
	if req.Currency != nil {
		if *req.Currency == "" {
			return nil, errInvalidRequest("currency is empty")
		}
		if *req.Currency != q.currency.Alpha {
			return nil, errInvalidFields(fmt.Sprintf("currency %q does not match the code's currency", *req.Currency), "currency")
		}
		in.sentCurrency = *req.Currency
	}
	in.sentAmount = text
	in.currency, in.amount, in.amountValue = q.currency.Alpha, text, v
	return in, nil
}

// qrPayer reads the payer object: string values only; unknown keys are
// dropped, never forwarded.
func qrPayer(raw json.RawMessage) (map[string]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, errInvalidRequest("payer must be an object of strings")
	}
	out := map[string]string{}
	for k, v := range m {
		sv, ok := v.(string)
		if !ok {
			return nil, errInvalidRequest(fmt.Sprintf("payer.%s must be a string", k))
		}
		if qrPayerKeys[k] {
			out[k] = sv
		}
	}
	return out, nil
}

// fiatAmount parses a QR payment amount in a currency with minor decimals:
// at most 16 characters, a plain non-negative decimal at scale minor
// (amounts.go, decimalNonNegative), above zero. It returns the value and
// its text with exactly minor decimals.
func fiatAmount(s string, minor int) (*apd.Decimal, string, bool) {
	if len(s) == 0 || len(s) > 16 {
		return nil, "", false
	}
	a, err := parseAmount(s, minor, decimalNonNegative)
	if err != nil || a.Sign() <= 0 {
		return nil, "", false
	}
	return a.Decimal(), a.String(), true
}
