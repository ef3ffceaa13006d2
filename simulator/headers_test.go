package simulator_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator"
)

// headerCase is one request of the header table: a change to a request
// that passes every rule, and the answer it must get.
type headerCase struct {
	name   string
	mod    func(h http.Header)
	status int
	code   string
	// issues marks the answers that create something by the contract (a
	// missing x-step-up issues a new challenge), so the state may move.
	issues bool
}

// headerRow is one header of the contract with its three cases.
type headerRow struct {
	header string
	// token: the row runs on the token exchange instead of a QR payment.
	token       bool
	other       string // a second, different value
	missing     string // the contract's code when the header is missing
	missingHTTP int
	base        func(h http.Header) // how the row's passing request differs from the default
}

// TestContractHeaderTable sends every header of the contract twice with
// the same value, twice with different values, and not at all, on a request
// that passes every rule with it (a signed, keyed, member-scoped QR payment
// after its step-up, on a Key that requires signatures; the token exchange
// for x-client-id and x-api-key). A header sent twice is refused with 400
// invalid_request naming it, whatever the values; a missing header keeps
// the contract's answer. Every refusal changes nothing, and the passing
// request still executes after all of them (no nonce, idempotency key or
// challenge was used up).
func TestContractHeaderTable(t *testing.T) {
	t.Parallel()
	auth := func(h http.Header) {
		tok := h.Get("X-Auth-Token")
		h.Del("X-Auth-Token")
		h.Set("Authorization", tok)
	}
	rows := []headerRow{
		{header: "X-Auth-Token", other: "Bearer tok_other", missing: "invalid_token", missingHTTP: 401},
		{header: "Authorization", other: "Bearer tok_other", missing: "invalid_token", missingHTTP: 401, base: auth},
		{header: "X-On-Behalf-Of", other: "member-2", missing: "member_context_required", missingHTTP: 400},
		{header: "X-Idempotency-Key", other: uuidN(999_999), missing: "idempotency_key_required", missingHTTP: 400},
		{header: "X-Step-Up", other: "00000000-0000-4000-8000-000000000001", missing: "step_up_required", missingHTTP: 400},
		{header: "X-Timestamp", other: "1700000000", missing: "invalid_signature", missingHTTP: 401},
		{header: "X-Nonce", other: "nonce-other", missing: "invalid_signature", missingHTTP: 401},
		{header: "X-Signature", other: "c2lnbmF0dXJl", missing: "invalid_signature", missingHTTP: 401},
		{header: "Content-Type", other: "text/plain", missing: "invalid_request", missingHTTP: 400},
		{header: "X-Client-Id", token: true, other: "sim_client_other", missing: "invalid_credentials", missingHTTP: 401},
		{header: "X-Api-Key", token: true, other: "other_api_key", missing: "invalid_credentials", missingHTTP: 401},
	}
	// The table covers the contract's list.
	var names []string
	for _, r := range rows {
		names = append(names, r.header)
	}
	if diff := cmp.Diff(simulator.ContractHeaders(), names); diff != "" {
		t.Fatalf("the table does not list every contract header (-ContractHeaders +table):\n%s", diff)
	}
	cases := 0
	for _, row := range rows {
		rowCases := []headerCase{
			{name: "duplicate", mod: func(h http.Header) { h.Add(row.header, h.Get(row.header)) }, status: 400, code: "invalid_request"},
			{name: "conflicting", mod: func(h http.Header) { h.Add(row.header, row.other) }, status: 400, code: "invalid_request"},
			{name: "missing", mod: func(h http.Header) {
				h.Del(row.header)
				h[row.header] = []string{} // named and empty: raw.send adds nothing
			}, status: row.missingHTTP, code: row.missing, issues: row.header == "X-Step-Up"},
		}
		switch row.header {
		case "Content-Type":
			rowCases = append(rowCases,
				headerCase{name: "text/plain", mod: func(h http.Header) { h.Set("Content-Type", "text/plain") }, status: 400, code: "invalid_request"},
				headerCase{name: "charset latin1", mod: func(h http.Header) { h.Set("Content-Type", "application/json; charset=iso-8859-1") }, status: 400, code: "invalid_request"})
		case "Authorization":
			rowCases = append(rowCases,
				headerCase{name: "disagrees with x-auth-token", mod: func(h http.Header) { h.Set("X-Auth-Token", "Bearer tok_other") }, status: 400, code: "invalid_request"})
		}
		cases += len(rowCases)
		t.Run(row.header, func(t *testing.T) {
			t.Parallel()
			if row.token {
				tokenHeaderRow(t, row, rowCases)
				return
			}
			paymentHeaderRow(t, row, rowCases)
		})
	}
	if cases != 36 {
		t.Errorf("%d cases, want 36 (11 headers x duplicate, conflicting, missing, plus 3)", cases)
	}
}

// paymentHeaderRow runs a row on a QR payment after its step-up.
func paymentHeaderRow(t *testing.T, row headerRow, cases []headerCase) {
	w := newWorld(t)
	w.c.mustControl("POST", "/_sim/keys/"+w.c.creds.ClientID, map[string]any{"signature_required": true})
	key, body := w.key(), `{"code_value":"`+w.qr+`"}`
	ch := w.stepUp(w.postKey("/v1/qrpay/payments", member1, key, body))
	send := func(mod func(http.Header)) result {
		return w.keyedSend("/v1/qrpay/payments", member1, key, body, func(h http.Header) {
			h.Set("X-Step-Up", ch)
			if row.base != nil {
				row.base(h)
			}
			if mod != nil {
				mod(h)
			}
		})
	}
	before := fingerprint(t, w.sim)
	for _, c := range cases {
		r := send(c.mod)
		wantCode(t, r, c.status, c.code)
		if c.code == "invalid_request" && c.name != "missing" && !strings.Contains(strings.ToLower(r.code()+" "+stringOf(r.body["message"])), strings.ToLower(firstHeader(row, c))) {
			t.Errorf("%s %s: the message does not name the header: %s", row.header, c.name, r.raw)
		}
		if !c.issues {
			unchanged(t, w.sim, before)
		}
	}
	wantStatus(t, send(nil), http.StatusCreated)
}

// firstHeader is the header a refusal's message names.
func firstHeader(row headerRow, c headerCase) string {
	switch {
	case c.name == "disagrees with x-auth-token":
		return "x-auth-token and authorization"
	case row.header == "Content-Type" && c.name != "duplicate" && c.name != "conflicting":
		return "content-type"
	}
	return row.header
}

func stringOf(v any) string { s, _ := v.(string); return s }

// tokenHeaderRow runs a row on the token exchange.
func tokenHeaderRow(t *testing.T, row headerRow, cases []headerCase) {
	sim, c := newRaw(t)
	send := func(mod func(http.Header)) result {
		h := http.Header{}
		h.Set("X-Client-Id", c.creds.ClientID)
		h.Set("X-Api-Key", c.creds.APIKey)
		if mod != nil {
			mod(h)
		}
		return c.send(http.MethodPost, "/v1/connect/token", nil, h)
	}
	before := sim.Stats()
	for _, cs := range cases {
		wantCode(t, send(cs.mod), cs.status, cs.code)
	}
	after := sim.Stats()
	if after.Tokens != before.Tokens {
		t.Errorf("refused exchanges issued tokens: %d before, %d after", before.Tokens, after.Tokens)
	}
	wantStatus(t, send(nil), http.StatusOK)
}
