package simulator_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator"
)

func TestControlCredentialsAndClock(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	r := c.mustControl("GET", "/_sim/credentials", nil)
	want := map[string]any{
		"client_id": simulator.DefaultClientID, "api_key": simulator.DefaultAPIKey, "signing_key": simulator.DefaultSigningKey,
		"webhook_secret": simulator.DefaultWebhookSecret, "merchant_id": simulator.DefaultMerchantID,
		"model": "platform_hosted", "environment": "sandbox",
	}
	if diff := cmp.Diff(want, r.body); diff != "" {
		t.Errorf("credentials (-want +got):\n%s", diff)
	}

	r = c.mustControl("GET", "/_sim/clock", nil)
	if r.body["now"] != "2026-01-01T00:00:00Z" || r.body["unix"] != float64(simulator.DefaultStart.Unix()) {
		t.Errorf("clock = %s", r.raw)
	}
	r = c.mustControl("POST", "/_sim/clock", map[string]any{"advance_seconds": 90})
	if r.body["now"] != "2026-01-01T00:01:30Z" {
		t.Errorf("after 90 s: %s", r.raw)
	}
	c.mustControl("POST", "/_sim/clock", map[string]any{"advance": "1h"})
	if got := sim.Clock.Now(); !got.Equal(simulator.DefaultStart.Add(time.Hour + 90*time.Second)) {
		t.Errorf("Now = %s", got)
	}
	wantCode(t, c.control("POST", "/_sim/clock", map[string]any{"advance_seconds": -1}), 400, "invalid_request")
	wantCode(t, c.control("POST", "/_sim/clock", map[string]any{"advance": "soon"}), 400, "invalid_request")
	wantCode(t, c.send("POST", "/_sim/clock", []byte(`{"advance_seconds":`), nil), 400, "invalid_request")
}

func TestControlMembers(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	r := c.control("POST", "/_sim/members", map[string]any{
		"external_member_id": "alice", "kyc_level": 2, "balances": map[string]string{"USDT": "12.5", "btc": "0.00000001"},
	})
	wantStatus(t, r, 201)
	id, _ := r.body["id"].(string)
	if len(id) != len("mem_")+36 || id[:4] != "mem_" {
		t.Fatalf("id = %q", id)
	}
	for _, ref := range []string{id, id[4:], "alice"} {
		got := c.mustControl("GET", "/_sim/members/"+ref, nil)
		bal := got.body["balances"].(map[string]any)
		if diff := cmp.Diff(map[string]any{"available": "12.500000", "locked": "0.000000"}, bal["USDT"]); diff != "" {
			t.Errorf("USDT via %s (-want +got):\n%s", ref, diff)
		}
		if diff := cmp.Diff(map[string]any{"available": "0.00000001", "locked": "0.00000000"}, bal["BTC"]); diff != "" {
			t.Errorf("BTC via %s (-want +got):\n%s", ref, diff)
		}
		if got.body["kyc_level"] != float64(2) || got.body["external_member_id"] != "alice" {
			t.Errorf("member via %s: %s", ref, got.raw)
		}
	}
	avail, locked, err := sim.Members.Balance("alice", "usdt")
	if err != nil || !avail.Equal(money.MustParse("12.5", 6)) || !locked.IsZero() {
		t.Errorf("Balance = %s/%s, %v", avail, locked, err)
	}
	wantCode(t, c.control("GET", "/_sim/members/nobody", nil), 404, "not_found")

	for _, tt := range []struct {
		name string
		body map[string]any
		code string
	}{
		{"duplicate", map[string]any{"external_member_id": "alice"}, "duplicate_resource"},
		{"blank id", map[string]any{"external_member_id": " "}, "invalid_request"},
		{"mem_ prefix", map[string]any{"external_member_id": "mem_x"}, "invalid_request"},
		{"too many decimals", map[string]any{"external_member_id": "bob", "balances": map[string]string{"USDT": "1.0000001"}}, "invalid_request"},
		{"negative", map[string]any{"external_member_id": "bob", "balances": map[string]string{"USDT": "-1"}}, "invalid_request"},
		{"unknown asset", map[string]any{"external_member_id": "bob", "balances": map[string]string{"DOGE": "1"}}, "invalid_request"},
		{"kyc level", map[string]any{"external_member_id": "bob", "kyc_level": 7}, "invalid_request"},
		{"status", map[string]any{"external_member_id": "bob", "status": "sleepy"}, "invalid_request"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := c.control("POST", "/_sim/members", tt.body)
			if r.status == 201 {
				t.Fatalf("accepted: %s", r.raw)
			}
			if r.code() != tt.code {
				t.Errorf("code = %s, want %s", r.code(), tt.code)
			}
		})
	}
	if _, ok := sim.Members.Get("bob"); ok {
		t.Error("a refused member was created")
	}

	goID, err := sim.Members.Create(simulator.MemberSeed{ExternalID: "carol", Balances: map[string]string{"USDC": "3"}})
	if err != nil {
		t.Fatal(err)
	}
	if info, ok := sim.Members.Get(goID); !ok || info.ExternalID != "carol" {
		t.Errorf("Member(%s) = %+v", goID, info)
	}
	list := c.mustControl("GET", "/_sim/members", nil)
	if n := len(list.body["data"].([]any)); n != 3 {
		t.Errorf("%d members listed, want 3", n)
	}
}

func TestControlMerchant(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	tok := c.token()
	r := c.mustControl("POST", "/_sim/merchant", map[string]any{
		"model": "merchant_hosted", "fee_rate_bps": 25, "asset_allowlist": []string{"usdt", "BTC"},
		"prepaid": map[string]string{"USDT": "250", "USDC": "0"},
	})
	if r.body["model"] != "merchant_hosted" || r.body["fee_rate_bps"] != float64(25) {
		t.Errorf("merchant = %s", r.raw)
	}
	if diff := cmp.Diff([]any{"BTC", "USDT"}, r.body["asset_allowlist"]); diff != "" {
		t.Errorf("allowlist (-want +got):\n%s", diff)
	}
	avail, _ := sim.Merchant.PrepaidBalance("USDT")
	if avail.String() != "250.000000" {
		t.Errorf("prepaid USDT = %s", avail)
	}
	if avail, _ := sim.Merchant.PrepaidBalance("USDC"); !avail.IsZero() {
		t.Errorf("prepaid USDC = %s", avail)
	}
	if sim.Credentials().Model != simulator.MerchantHosted {
		t.Errorf("credentials model = %s", sim.Credentials().Model)
	}
	// The allowlist narrows the catalogue.
	assets := c.get(tok, "/v1/assets", "")
	var codes []string
	for _, a := range assets.body["assets"].([]any) {
		codes = append(codes, a.(map[string]any)["code"].(string))
	}
	if diff := cmp.Diff([]string{"USDT", "BTC"}, codes); diff != "" {
		t.Errorf("assets (-want +got):\n%s", diff)
	}
	c.mustControl("POST", "/_sim/merchant", map[string]any{"asset_allowlist": []string{}})
	if n := len(c.get(tok, "/v1/assets", "").body["assets"].([]any)); n != 4 {
		t.Errorf("%d assets after clearing the allowlist", n)
	}

	for _, bad := range []map[string]any{
		{"model": "self_hosted"},
		{"status": "asleep"},
		{"environment": "staging"},
		{"fee_rate_bps": -1},
		{"asset_allowlist": []string{"DOGE"}},
		{"prepaid": map[string]string{"USDT": "-5"}},
		{"prepaid": map[string]string{"USDT": "1.1234567"}},
		{"model": "platform_hosted", "prepaid": map[string]string{"NOPE": "1"}},
	} {
		wantCode(t, c.control("POST", "/_sim/merchant", bad), 400, "invalid_request")
	}
	if sim.Credentials().Model != simulator.MerchantHosted {
		t.Error("a refused change was partly applied")
	}
}

func TestControlKeys(t *testing.T) {
	t.Parallel()
	_, c := newRaw(t)
	r := c.control("POST", "/_sim/keys", map[string]any{
		"client_id": "second", "scopes": []string{"merchant:read", "made:up"}, "ip_allowlist": []string{"127.0.0.1"},
	})
	wantStatus(t, r, 201)
	apiKey, _ := r.body["api_key"].(string)
	if apiKey == "" || r.body["signing_key"] == "" {
		t.Fatalf("new key without secrets: %s", r.raw)
	}
	tr := c.exchangeToken("second", apiKey)
	wantStatus(t, tr, 200)
	wantStatus(t, c.get(tr.body["auth_token"].(string), "/v1/assets", ""), 200)

	listed := c.mustControl("GET", "/_sim/keys", nil)
	for _, k := range listed.body["data"].([]any) {
		if _, has := k.(map[string]any)["api_key"]; has {
			t.Errorf("key listing shows secrets")
		}
	}
	wantCode(t, c.control("POST", "/_sim/keys", map[string]any{"client_id": "second"}), 409, "duplicate_resource")
	wantCode(t, c.control("POST", "/_sim/keys/nobody", map[string]any{"disabled": true}), 404, "not_found")
	wantCode(t, c.control("GET", "/_sim/keys/nobody", nil), 404, "not_found")
	wantCode(t, c.control("POST", "/_sim/keys/second", map[string]any{"environment": "moon"}), 400, "invalid_request")
}

func TestControlActionsRouting(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	actions := sim.Actions()
	if len(actions) == 0 {
		t.Fatal("no actions registered")
	}
	// Unknown actions, unknown control paths.
	wantCode(t, c.control("POST", "/_sim/qrpay/orders/qrp_x/explode", nil), 404, "not_found")
	wantCode(t, c.control("POST", "/_sim/nothing", nil), 404, "not_found")
	wantCode(t, c.control("PUT", "/_sim/clock", nil), 404, "not_found")
	// A registered member action reached through the router, id in either form.
	info, _ := sim.Members.Get(member1)
	var routeAnswer map[string]any
	for _, id := range []string{info.ID, info.ID[4:]} {
		r := c.control("POST", "/_sim/members/"+id+"/status", map[string]any{"status": "active"})
		wantStatus(t, r, http.StatusOK)
		routeAnswer = r.body
	}
	// The Go method answers what the route answers.
	out, err := sim.Action("members/status", member1, []byte(`{"status":"frozen"}`))
	if err != nil {
		t.Errorf("Action: %v", err)
	}
	var goAnswer map[string]any
	if err := json.Unmarshal(out, &goAnswer); err != nil {
		t.Fatalf("Action answered %q: %v", out, err)
	}
	routeAnswer["status"] = "frozen"
	if diff := cmp.Diff(routeAnswer, goAnswer); diff != "" {
		t.Errorf("Action's answer differs from the route's, but for the status (-route +Action):\n%s", diff)
	}
	if info, _ := sim.Members.Get(member1); info.Status != "frozen" {
		t.Errorf("status = %s", info.Status)
	}
	if _, err := sim.Action("no/such", "x", nil); err == nil {
		t.Error("unknown action accepted")
	}
}

func TestControlStepUpAndOutcomes(t *testing.T) {
	t.Parallel()
	_, c := newRaw(t)
	wantCode(t, c.control("POST", "/_sim/step-up/nope/complete", nil), 404, "not_found")
	wantCode(t, c.control("GET", "/_sim/step-up/nope", nil), 404, "not_found")

	r := c.mustControl("POST", "/_sim/outcomes", map[string]any{"collection": "qrpay/orders", "mode": "after:30s"})
	if r.body["mode"] != "after:30s" {
		t.Errorf("outcome = %s", r.raw)
	}
	// An object or collection the simulator does not know is refused (the
	// domain test, TestControlArgumentDomains, covers every argument).
	wantCode(t, c.control("POST", "/_sim/outcomes", map[string]any{"object_id": "qrp_1", "mode": "immediate"}), 404, "not_found")
	wantCode(t, c.control("POST", "/_sim/outcomes", map[string]any{"collection": "remittance", "mode": "immediate"}), 400, "invalid_request")
	for _, bad := range []map[string]any{
		{"collection": "qrpay/orders", "mode": "later"},
		{"collection": "qrpay/orders", "mode": "after:-1s"},
		{"mode": "manual"},
		{"collection": "x", "object_id": "y", "mode": "manual"},
	} {
		wantCode(t, c.control("POST", "/_sim/outcomes", bad), 400, "invalid_request")
	}
}

func TestControlInspection(t *testing.T) {
	t.Parallel()
	_, c := newRaw(t)
	l := c.mustControl("GET", "/_sim/ledger", nil)
	if l.body["balanced"] != true {
		t.Errorf("ledger = %s", l.raw)
	}
	ev := c.mustControl("GET", "/_sim/events", nil)
	if n := len(ev.body["data"].([]any)); n == 0 {
		t.Error("no member.created event for the fixture member")
	}
	m := c.mustControl("GET", "/_sim/merchant", nil)
	if m.body["id"] != simulator.DefaultMerchantID || m.body["status"] != "active" {
		t.Errorf("merchant = %s", m.raw)
	}
}

// TestNewReportsInvalidOptions lists every option New can refuse: New and
// NewHandler return the error and no simulator, MustNew panics with it.
func TestNewReportsInvalidOptions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opt  simulator.Option
		want string
	}{
		{"model", simulator.WithModel("self_hosted"), `WithModel("self_hosted")`},
		{"environment", simulator.WithEnvironment("staging"), `WithEnvironment("staging")`},
		{"start", simulator.WithStart(time.Time{}), "WithStart: zero time"},
		{"duplicate member", simulator.WithMember(simulator.MemberSeed{ExternalID: simulator.DefaultMemberExternalID}), `WithMember "member-1": duplicate_resource`},
		{"unknown asset", simulator.WithMember(simulator.MemberSeed{ExternalID: "m2", Balances: map[string]string{"DOGE": "1"}}), `WithMember "m2"`},
		{"bad amount", simulator.WithMember(simulator.MemberSeed{ExternalID: "m3", Balances: map[string]string{"USDT": "1.0000001"}}), `WithMember "m3"`},
		{"bad status", simulator.WithMember(simulator.MemberSeed{ExternalID: "m4", Status: "asleep"}), `WithMember "m4"`},
		{"bad kyc level", simulator.WithMember(simulator.MemberSeed{ExternalID: "m5", KYCLevel: 7}), `WithMember "m5"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sim, err := simulator.New(tc.opt)
			if sim != nil {
				sim.Close()
			}
			if err == nil || sim != nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New = %v, %v; want no simulator and an error naming %s", sim, err, tc.want)
			}
			if h, err := simulator.NewHandler(tc.opt); err == nil || h != nil {
				t.Errorf("NewHandler = %v, %v; want the error", h, err)
			}
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Errorf("MustNew panicked with %v, want the error", r)
				}
			}()
			simulator.MustNew(tc.opt).Close()
		})
	}
}

func TestClientNeedsBaseURL(t *testing.T) {
	t.Parallel()
	h, err := simulator.NewHandler()
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "SetBaseURL") {
				t.Errorf("Client without a base URL: panic %v, want one naming SetBaseURL", r)
			}
		}()
		h.Client()
	}()
	h.SetBaseURL("http://127.0.0.1:1")
	if c := h.Client(); c == nil {
		t.Error("Client after SetBaseURL: nil")
	}
}

func TestControlStats(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	wantStatus(t, c.get(c.token(), "/v1/assets", ""), 200)
	r := c.mustControl("GET", "/_sim/stats", nil)
	st := sim.Stats()
	want := map[string]any{
		"nonces": float64(st.Nonces), "idempotency_records": float64(st.IdempotencyRecords),
		"tokens": float64(st.Tokens), "journal_entries": float64(st.JournalEntries),
		"requests": float64(st.Requests), "events": float64(st.Events),
		"step_up_challenges": float64(st.StepUpChallenges), "qr_quote_memo": float64(st.QRQuoteMemo),
		"nonces_cap": float64(st.NoncesCap), "idempotency_records_cap": float64(st.IdempotencyRecordsCap),
		"step_up_challenges_cap": float64(st.StepUpChallengesCap),
	}
	if diff := cmp.Diff(want, r.body); diff != "" {
		t.Errorf("GET /_sim/stats (-Stats() +route):\n%s", diff)
	}
	if st.Tokens != 1 || st.Requests < 2 {
		t.Errorf("after one token exchange and one read: %+v", st)
	}
}
