package simulator_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// TestFundsProtection: a member in funds-protection mode cannot top up a
// card (product_not_available, a top-up prerequisite) or pay a QR code
// (quote blocked_reason funds_protected, payment 500 api_error "card funds
// protected"); nothing is held, and leaving the mode restores both.
func TestFundsProtection(t *testing.T) {
	t.Parallel()
	sim, cl := newSDK(t)
	ctx := context.Background()
	card := eaIssue(t, sim, cl, "cpd_virtual_std")
	if err := sim.Members.SetFundsProtection(member1, true); err != nil {
		t.Fatal(err)
	}
	entries := len(sim.LedgerEntries())
	_, err := cl.Cards.TopUp(ctx, member1, card, cards.TopUpParams{Amount: money.MustParse("20", 6)})
	simtest.WantCode(t, err, mwallet.CodeProductNotAvailable)

	q, err := cl.QRPay.Quote(ctx, member1, qrpay.QuoteParams{CodeValue: thbCode()})
	if err != nil {
		t.Fatal(err)
	}
	if q.BlockedReason != "funds_protected" {
		t.Errorf("quote blocked_reason = %q, want funds_protected", q.BlockedReason)
	}
	key := uuid.NewString()
	_, err = cl.QRPay.Pay(ctx, member1, qrpay.PayParams{CodeValue: thbCode()}, mwallet.WithIdempotencyKey(key))
	apiErr := simtest.WantCode(t, err, mwallet.CodeStepUpRequired)
	if err := sim.StepUp.Complete(apiErr.ChallengeID); err != nil {
		t.Fatal(err)
	}
	_, err = cl.QRPay.Pay(ctx, member1, qrpay.PayParams{CodeValue: thbCode()}, mwallet.WithIdempotencyKey(key), mwallet.WithStepUp(apiErr.ChallengeID))
	if e := simtest.WantCode(t, err, mwallet.CodeAPIError); e.Message != "card funds protected" {
		t.Errorf("payment refusal message = %q", e.Message)
	}
	if n := len(sim.LedgerEntries()) - entries; n != 0 {
		t.Errorf("%d ledger entries while protected, want none", n)
	}
	if _, locked, _ := sim.Cards.Funds(member1, "USDT"); !locked.IsZero() {
		t.Errorf("locked = %s while protected, want 0", locked)
	}

	if err := sim.Members.SetFundsProtection(member1, false); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Cards.TopUp(ctx, member1, card, cards.TopUpParams{Amount: money.MustParse("20", 6)}); err != nil {
		t.Errorf("top-up after leaving funds protection: %v", err)
	}
	if err := sim.Members.SetFundsProtection("nobody", true); err == nil {
		t.Errorf("funds protection of an unknown member: no error")
	}
}

// TestCloseRefusedByIssuer: a close that passes every check is refused by
// the issuer with 400 state_invalid; the card keeps its status and its
// balance, the request reached the issuer once, and once the issuer accepts
// again the close goes through.
func TestCloseRefusedByIssuer(t *testing.T) {
	t.Parallel()
	sim, cl := newSDK(t)
	ctx := context.Background()
	card := eaIssue(t, sim, cl, "cpd_virtual_std")
	if err := sim.Cards.SetCloseRefused(card, true); err != nil {
		t.Fatal(err)
	}
	_, err := cl.Cards.Close(ctx, member1, card, cards.CloseParams{})
	simtest.WantCode(t, err, mwallet.CodeStateInvalid)
	if c, _ := cl.Cards.Get(ctx, member1, card); c.Status != cards.CardActive {
		t.Errorf("card after the refusal is %s, want active", c.Status)
	}
	if n, _ := sim.Cards.UpstreamCloseRequests(card); n != 1 {
		t.Errorf("upstream close requests = %d, want 1 (the refused one)", n)
	}
	if err := sim.Cards.SetCloseRefused(card, false); err != nil {
		t.Fatal(err)
	}
	r, err := cl.Cards.Close(ctx, member1, card, cards.CloseParams{})
	if err != nil || r.Status != cards.CardClosing {
		t.Errorf("close once accepted = %+v, %v", r, err)
	}
	if err := sim.Cards.SetCloseRefused("crd_nothing", true); err == nil {
		t.Errorf("refusal on an unknown card: no error")
	}
}

// TestMerchantWriteQuota: with a quota of n writes per minute, the n+1th
// write within the minute answers 429 rate_limited with retry_after and
// Retry-After (over every member and Key), reads are never counted, writes
// refused before the quota (a bad signature) do not count, the refusal is
// not stored under the idempotency key, and the window moves with the
// simulator clock.
func TestMerchantWriteQuota(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	tok := c.token()
	if err := sim.Merchant.SetWriteQuota(2); err != nil {
		t.Fatal(err)
	}
	decode := []byte(`{"code_value":"` + thbCode() + `"}`)
	wantStatus(t, c.write(tok, "POST", "/v1/qrpay/decode", member1, "", decode), 200)
	sim.Clock.Advance(20 * time.Second)
	// A refused write is not counted.
	bad := c.signed(authed(tok), "POST", "/v1/qrpay/decode", decode)
	bad.Set("X-Signature", "AAAA")
	bad.Set("X-On-Behalf-Of", member1)
	wantCode(t, c.send("POST", "/v1/qrpay/decode", decode, bad), 401, "invalid_signature")
	for i := 0; i < 3; i++ {
		wantStatus(t, c.get(tok, "/v1/assets", ""), 200) // reads never count
	}
	key := uuidN(7)
	dep := depositBody("quota", "5")
	wantStatus(t, c.write(tok, "POST", "/v1/deposits", member1, key, dep), 201)
	r := c.write(tok, "POST", "/v1/deposits", member1, uuidN(8), depositBody("quota-2", "5"))
	wantCode(t, r, 429, "rate_limited")
	if r.header.Get("Retry-After") != "40" || r.body["retry_after"] != float64(40) {
		t.Errorf("Retry-After %q, retry_after %v, want 40 (the first write leaves the window in 40 s)", r.header.Get("Retry-After"), r.body["retry_after"])
	}
	sim.Clock.Advance(40 * time.Second)
	// The refused key was not stored: it executes now.
	again := c.write(tok, "POST", "/v1/deposits", member1, uuidN(8), depositBody("quota-2", "5"))
	wantStatus(t, again, 201)
	if again.header.Get("X-Idempotent-Replay") != "" {
		t.Errorf("the write refused by the quota was stored and replayed")
	}
	if got := balance(sim, member1, "USDT"); got != "1010.000000" {
		t.Errorf("balance = %s, want two deposits of 5", got)
	}
	if err := sim.Merchant.SetWriteQuota(-1); err == nil || !strings.Contains(err.Error(), "write quota per minute") {
		t.Errorf("a negative quota: %v, want the refusal of its domain", err)
	}
	if err := sim.Merchant.SetWriteQuota(0); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		wantStatus(t, c.write(tok, "POST", "/v1/qrpay/decode", member1, "", decode), 200)
	}
}

// TestStartInProgress: a first request still running with a key makes the
// same request answer 409 idempotency_in_progress (another body
// idempotency_key_reused) until its time has passed; then nothing was
// stored and the request executes.
func TestStartInProgress(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	tok := c.token()
	key := uuidN(1)
	body := depositBody("in-progress", "3")
	if err := sim.Requests.StartInProgress("POST", "/v1/deposits", key, body, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	wantCode(t, c.write(tok, "POST", "/v1/deposits", member1, key, body), 409, "idempotency_in_progress")
	wantCode(t, c.write(tok, "POST", "/v1/deposits", member1, key, depositBody("in-progress", "4")), 409, "idempotency_key_reused")
	if err := sim.Requests.StartInProgress("POST", "/v1/deposits", key, body, time.Second); err == nil {
		t.Errorf("a key already in use was taken again")
	}
	sim.Clock.Advance(30 * time.Second)
	r := c.write(tok, "POST", "/v1/deposits", member1, key, body)
	wantStatus(t, r, 201)
	if r.header.Get("X-Idempotent-Replay") != "" {
		t.Errorf("the staged request stored a result")
	}
	for _, bad := range []struct{ method, path, key string }{
		{"GET", "/v1/deposits", uuidN(2)}, {"POST", "/_sim/clock", uuidN(2)}, {"POST", "/v1/deposits", "not-a-uuid"},
	} {
		if err := sim.Requests.StartInProgress(bad.method, bad.path, bad.key, nil, time.Second); err == nil {
			t.Errorf("StartInProgress(%s %s %s) accepted", bad.method, bad.path, bad.key)
		}
	}
}

// TestKeysSign: the headers Keys.Sign computes are those a client holding
// the Key sends: the request is accepted once, and the same signed request
// again (under another idempotency key) is nonce_reused.
func TestKeysSign(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	tok := c.token()
	sig, err := sim.Keys.Sign(c.creds.ClientID, "post", "/v1/kyc/profile-sessions", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ts, _ := strconv.ParseInt(sig.Timestamp, 10, 64); ts != sim.Clock.Now().Unix() || sig.Nonce == "" || len(sig.Signature) != 44 {
		t.Fatalf("signed headers = %+v", sig)
	}
	send := func(key string) result {
		h := authed(tok)
		h.Set("X-On-Behalf-Of", member1)
		h.Set("X-Idempotency-Key", key)
		h.Set("X-Timestamp", sig.Timestamp)
		h.Set("X-Nonce", sig.Nonce)
		h.Set("X-Signature", sig.Signature)
		return c.send("POST", "/v1/kyc/profile-sessions", nil, h)
	}
	wantStatus(t, send(uuidN(1)), 201)
	wantCode(t, send(uuidN(2)), 401, "nonce_reused")
	for _, bad := range [][2]string{{"no-such-client", "/v1/deposits"}, {c.creds.ClientID, "v1/deposits"}} {
		if _, err := sim.Keys.Sign(bad[0], "POST", bad[1], "", nil); err == nil {
			t.Errorf("Sign(%s, %s): no error", bad[0], bad[1])
		}
	}
}
