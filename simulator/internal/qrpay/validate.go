package qrpay

import (
	"encoding/json"
	"fmt"

	"github.com/cockroachdb/apd/v3"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// request is the body of quotes and payments. Pointers tell "absent" from
// "empty".
type request struct {
	FundingSource  *string         `json:"funding_source"`
	CodeValue      *string         `json:"code_value"`
	Currency       *string         `json:"currency"`
	Amount         *string         `json:"amount"`
	PreferredAsset *string         `json:"preferred_asset"`
	Payer          json.RawMessage `json:"payer"`
}

// input is a validated quote or payment request.
type input struct {
	code           *code
	merchantFunded bool
	sentCurrency   string // as sent ("" when absent), for the memo key
	sentAmount     string // normalized amount as sent ("" when absent)
	currency       string // acquirer currency (alphabetic)
	amount         string // acquirer amount printed with the currency's minor units
	amountValue    *apd.Decimal
	preferred      string // "" when absent
	payer          map[string]string
}

// validate checks a quote or payment body: everything that needs no
// upstream and changes nothing. The errors are the 400s of the contract.
func (l *Line) validate(c *api.Request) (*input, error) {
	var req request
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	if req.CodeValue == nil || *req.CodeValue == "" {
		return nil, api.InvalidRequest("code_value is required")
	}
	in := &input{}
	// funding_source: merchant_hosted accounts must send merchant; member (or
	// nothing) only on platform_hosted accounts, as on the other lines.
	fs := ""
	if req.FundingSource != nil {
		fs = *req.FundingSource
	}
	switch {
	case c.Tx.MerchantHosted() && fs != "merchant":
		return nil, api.InvalidFields("merchant_hosted accounts must send funding_source merchant", "funding_source")
	case c.Tx.MerchantHosted():
		in.merchantFunded = true
	case fs != "" && fs != "member":
		return nil, api.InvalidFields("funding_source must be member (or omitted) on platform_hosted accounts", "funding_source")
	}
	if req.PreferredAsset != nil {
		if *req.PreferredAsset == "" {
			return nil, api.InvalidRequest("preferred_asset is empty")
		}
		in.preferred = *req.PreferredAsset
	}
	payer, err := payerOf(req.Payer)
	if err != nil {
		return nil, err
	}
	in.payer = payer
	if l.st.disabled.Get(c.Tx) {
		return nil, api.NewErr("service_unavailable", "the QR payment line is temporarily unavailable")
	}
	q, err := l.parseCode(c.Tx, *req.CodeValue)
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
			return nil, api.InvalidFields("currency and amount are only for custom-amount codes; this code carries its amount", keys...)
		}
		v, text, ok := api.FiatAmount(q.payload.Amount, minor)
		if !ok {
			return nil, api.NewErr("qr_code_invalid", "the QR code cannot be used")
		}
		in.currency, in.amount, in.amountValue = q.currency.Alpha, text, v
		return in, nil
	}
	if req.Amount == nil || *req.Amount == "" {
		return nil, api.InvalidRequest("amount is required for custom-amount codes (amount_editable true)")
	}
	v, text, ok := api.FiatAmount(*req.Amount, minor)
	if !ok {
		return nil, api.InvalidRequest(fmt.Sprintf("amount %q: want a positive decimal string with at most %d decimals", *req.Amount, minor))
	}
	if req.Currency != nil {
		if *req.Currency == "" {
			return nil, api.InvalidRequest("currency is empty")
		}
		if *req.Currency != q.currency.Alpha {
			return nil, api.InvalidFields(fmt.Sprintf("currency %q does not match the code's currency", *req.Currency), "currency")
		}
		in.sentCurrency = *req.Currency
	}
	in.sentAmount = text
	in.currency, in.amount, in.amountValue = q.currency.Alpha, text, v
	return in, nil
}

// payerOf reads the payer object: string values only; unknown keys are
// dropped, never forwarded.
func payerOf(raw json.RawMessage) (map[string]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, api.InvalidRequest("payer must be an object of strings")
	}
	out := map[string]string{}
	for k, v := range m {
		sv, ok := v.(string)
		if !ok {
			return nil, api.InvalidRequest(fmt.Sprintf("payer.%s must be a string", k))
		}
		if qrPayerKeys[k] {
			out[k] = sv
		}
	}
	return out, nil
}
