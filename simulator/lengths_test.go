package simulator_test

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/uuid"
)

// lengthField is one length limit the contract gives for a field, checked
// over HTTP at the limit and one past it, in multi-byte characters.
type lengthField struct {
	name string
	max  int
	// send sends v in the field and returns the answer.
	send func(e *scopeEnv, v string) result
	// okStatus answers max characters; badStatus/badCode answer max+1.
	okStatus, badStatus int
	badCode             string
}

func depositLength(field string, max int, code string) lengthField {
	return lengthField{name: "POST /v1/deposits " + field, max: max, okStatus: 201, badStatus: 400, badCode: code,
		send: func(e *scopeEnv, v string) result {
			in := map[string]any{"asset": "USDT", "amount": "1", "reference": "len-" + uuid.NewString(), "network": "TRON"}
			in[field] = v
			return send(e.c, e.tok, scopeReq{method: "POST", target: "/v1/deposits", member: member1, body: jsonBody(in), idem: true})
		}}
}

func filterLength(field string) lengthField {
	return lengthField{name: "GET /v1/cards/{id}/transactions " + field, max: 64, okStatus: 200, badStatus: 400, badCode: "invalid_fields",
		send: func(e *scopeEnv, v string) result {
			card := e.card("cpd_virtual_std")
			return send(e.c, e.tok, scopeReq{method: "GET", target: "/v1/cards/" + card + "/transactions?" + url.Values{field: {v}}.Encode(), member: member1})
		}}
}

func payeeLength(field string, max int) lengthField {
	return lengthField{name: "POST /v1/remit/payees " + field, max: max, okStatus: 201, badStatus: 400, badCode: "invalid_fields",
		send: func(e *scopeEnv, v string) result {
			in := map[string]any{"country": "DE", "currency": "EUR", "holder_name": "Erika Muster", "account_number": "DE02120300000000202051"}
			in[field] = v
			return send(e.c, e.tok, scopeReq{method: "POST", target: "/v1/remit/payees", member: member1, body: jsonBody(in), idem: true})
		}}
}

// lengthFields are the limits the contract gives (deposit fields, card
// transaction filters) and the simulator's own payee limits, all counted in
// characters.
var lengthFields = []lengthField{
	depositLength("reference", 120, "invalid_request"),
	depositLength("network", 32, "invalid_fields"),
	depositLength("txid", 128, "invalid_fields"),
	depositLength("from_address", 200, "invalid_fields"),
	depositLength("to_address", 200, "invalid_fields"),
	filterLength("auth_code"),
	filterLength("kind"),
	filterLength("status"),
	payeeLength("holder_name", 140),
	payeeLength("bank_code", 20),
}

// TestLengthsCountCharacters sends every length-limited field at its limit
// and one character past it, written in two-, three- and four-byte
// characters: the limit counts characters, whatever their bytes.
func TestLengthsCountCharacters(t *testing.T) {
	t.Parallel()
	for _, f := range lengthFields {
		for _, ch := range []string{"É", "€", "𝄞"} {
			t.Run(f.name+" "+ch, func(t *testing.T) {
				t.Parallel()
				e := newScopeEnv(t)
				at := strings.Repeat(ch, f.max)
				if r := f.send(e, at); r.err != nil || r.status != f.okStatus {
					t.Fatalf("%d characters (%d bytes): want %d, got %v", f.max, len(at), f.okStatus, r)
				}
				over := strings.Repeat(ch, f.max+1)
				if r := f.send(e, over); r.code() != f.badCode || r.status != f.badStatus {
					t.Fatalf("%d characters: want %d %s, got %v", f.max+1, f.badStatus, f.badCode, r)
				}
			})
		}
	}
}

// TestPayoutAmountLengthCountsCharacters: payout_amount is "at most 32
// chars". 33 characters are refused for their length; multi-byte text of 11
// characters (33 bytes) is refused as not an amount, not for its length.
func TestPayoutAmountLengthCountsCharacters(t *testing.T) {
	t.Parallel()
	e := newScopeEnv(t)
	payee := e.payeeOf("GBP")
	quote := func(v string) result {
		return send(e.c, e.tok, scopeReq{method: "GET", target: "/v1/remit/quotes?" + url.Values{"payee_id": {payee}, "payout_amount": {v}}.Encode(), member: member1})
	}
	tests := []struct {
		amount    string
		lengthMsg bool
	}{
		{strings.Repeat("1", 30) + ".00", true},
		{strings.Repeat("€", 11), false},
		{strings.Repeat("١", 29) + ".00", false},
	}
	for _, tt := range tests {
		r := quote(tt.amount)
		msg, _ := r.body["message"].(string)
		if r.code() != "invalid_request" || strings.Contains(msg, "longer than 32") != tt.lengthMsg {
			t.Errorf("%d characters, %d bytes: %v (length message want %v)", utf8.RuneCountInString(tt.amount), len(tt.amount), r, tt.lengthMsg)
		}
	}
}

// TestTruncationKeepsCharacters: the remittance reference is truncated
// beyond 200 characters, never inside a multi-byte one.
func TestTruncationKeepsCharacters(t *testing.T) {
	t.Parallel()
	e := newScopeEnv(t)
	ref := strings.Repeat("€", 201)
	body := jsonBody(map[string]any{"payee_id": e.payeeOf("GBP"), "payout_amount": "10.00", "slippage_bps": 100, "purpose_code": "FAMILY_SUPPORT", "reference": ref})
	id := str(e.must(scopeReq{method: "POST", target: "/v1/remittances", member: member1, body: body, idem: true}), "id")
	got := str(e.must(scopeReq{method: "GET", target: "/v1/remittances/" + id, member: member1}), "reference")
	if !utf8.ValidString(got) || got != strings.Repeat("€", 200) {
		t.Errorf("reference stored as %d characters (%d bytes), valid UTF-8 %v; want the first 200 characters",
			utf8.RuneCountInString(got), len(got), utf8.ValidString(got))
	}
}
