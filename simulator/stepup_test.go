package simulator_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/mwallet/mwallet-go/simulator/emvqr"
)

// TestStepUpAnswerIsNotStored checks that step_up_required is not kept as the
// idempotent result: the resend with the same key and x-step-up executes, and
// only its answer is replayed afterwards.
func TestStepUpAnswerIsNotStored(t *testing.T) {
	t.Parallel()
	_, c := newRaw(t)
	tok := c.token()
	code := emvqr.MustBuild(emvqr.Payload{
		PointOfInitiation: "12",
		MerchantAccounts: []emvqr.MerchantAccount{{Tag: "30", GUI: "A000000677010112", Fields: []emvqr.Field{
			{Tag: "01", Value: "010554412345601"}, {Tag: "02", Value: "ORDER1"},
		}}},
		MerchantCategoryCode: "5812", Currency: "764", Amount: "100.00", Country: "TH",
		MerchantName: "BAAN THAI KITCHEN", MerchantCity: "BANGKOK",
	})
	body, _ := json.Marshal(map[string]string{"code_value": code})
	key := uuidN(42)

	first := c.write(tok, "POST", "/v1/qrpay/payments", member1, key, body)
	wantCode(t, first, 400, "step_up_required")
	challenge, _ := first.body["challenge_id"].(string)
	if challenge == "" || first.body["hosted_url"] == "" || first.body["expires_at"] == nil {
		t.Fatalf("step-up extras missing: %s", first.raw)
	}
	// Until the hosted screen is done, the same key still asks for step-up.
	again := c.write(tok, "POST", "/v1/qrpay/payments", member1, key, body)
	wantCode(t, again, 400, "step_up_required")
	if again.header.Get("X-Idempotent-Replay") != "" {
		t.Error("step_up_required was replayed")
	}
	c.mustControl("POST", "/_sim/step-up/"+challenge+"/complete", nil)

	send := func() result {
		h := authed(tok)
		h.Set("X-On-Behalf-Of", member1)
		h.Set("X-Idempotency-Key", key)
		h.Set("X-Step-Up", challenge)
		return c.send("POST", "/v1/qrpay/payments", body, c.signed(h, "POST", "/v1/qrpay/payments", body))
	}
	paid := send()
	wantStatus(t, paid, http.StatusCreated)
	if paid.header.Get("X-Idempotent-Replay") != "" {
		t.Errorf("the resend after step-up was a replay: %v", paid)
	}
	replay := send()
	if replay.status != http.StatusCreated || replay.header.Get("X-Idempotent-Replay") != "true" || string(replay.raw) != string(paid.raw) {
		t.Errorf("second resend: %v", replay)
	}
}
