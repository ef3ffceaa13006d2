package simulator_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// contractCodes are the 53 public error codes of the contract with their
// HTTP status, as its Errors section lists them.
var contractCodes = map[string]int{
	"invalid_credentials": 401, "invalid_token": 401, "invalid_signature": 401, "signature_required": 401,
	"timestamp_out_of_range": 401, "nonce_reused": 401, "environment_mismatch": 400, "insufficient_scope": 403,
	"ip_not_allowed": 403, "merchant_disabled": 403, "idempotency_key_required": 400, "idempotency_key_invalid": 400,
	"quote_lock_unsupported": 400, "idempotency_key_reused": 409, "idempotency_in_progress": 409,
	"member_not_found": 404, "member_context_required": 400, "member_suspended": 400, "quick_kyc_disabled": 400,
	"quick_kyc_limit": 400, "quick_kyc_exhausted": 400, "quick_kyc_unpaid": 400, "kyc_required": 400,
	"insufficient_balance": 400, "merchant_insufficient_funds": 400, "merchant_custody_shortfall": 400,
	"product_not_available": 400, "card_operation_not_supported": 400, "limit_exceeded": 400,
	"amount_out_of_range": 400, "request_rejected": 400, "step_up_required": 400, "order_not_cancellable": 400,
	"asset_not_allowed": 400, "invalid_request": 400, "kyc_upload_invalid": 400, "kyc_upload_too_large": 400,
	"invalid_fields": 400, "card_pin_invalid": 400, "card_pin_rejected": 400, "card_activate_failed": 400,
	"corridor_not_supported": 400, "resource_not_found": 404, "state_invalid": 400, "duplicate_resource": 409,
	"address_not_allowed": 400, "qr_code_invalid": 400, "not_found": 404, "rate_limited": 429,
	"api_error": 500, "upstream_error": 502, "upstream_timeout": 504, "service_unavailable": 400,
}

// reservedCodes are the contract's codes the service does not emit.
var reservedCodes = map[string]bool{"signature_required": true, "member_suspended": true}

// TestRecipesCoverEveryCode: one recipe per public code except the two
// reserved ones, each expecting its code with the code's documented status,
// injected exactly when it arms a fault.
func TestRecipesCoverEveryCode(t *testing.T) {
	t.Parallel()
	var want []string
	if len(contractCodes) != 53 {
		t.Fatalf("%d contract codes, want 53", len(contractCodes))
	}
	for code := range contractCodes {
		if !reservedCodes[code] {
			want = append(want, code)
		}
	}
	sort.Strings(want)
	if len(want) != 51 {
		t.Fatalf("%d non-reserved codes, want 51", len(want))
	}
	var got []string
	injected := 0
	for _, r := range simulator.ErrorRecipes() {
		got = append(got, r.Code)
		if r.Expect.Code != r.Code || r.Expect.Status != contractCodes[r.Code] {
			t.Errorf("%s: expect %+v, want the code with status %d", r.Code, r.Expect, contractCodes[r.Code])
		}
		if r.Title == "" || len(r.Steps) == 0 {
			t.Errorf("%s: no title or no steps", r.Code)
		}
		armsFault := false
		for _, st := range r.Steps {
			if st.Call != "api" && st.Call != "control" {
				t.Errorf("%s: step call %q", r.Code, st.Call)
			}
			if st.Call == "control" && strings.HasPrefix(st.Path, "/_sim/faults") {
				armsFault = true
			}
			if st.Call == "control" && (st.Member != "" || st.IdempotencyKey != "") {
				t.Errorf("%s: a control step carries member or idempotency_key (api only)", r.Code)
			}
		}
		if armsFault != r.Injected {
			t.Errorf("%s: injected %v but arms a fault: %v", r.Code, r.Injected, armsFault)
		}
		if r.Injected {
			injected++
			if r.Note == "" {
				t.Errorf("%s: injected without saying why", r.Code)
			}
		}
		if last := r.Steps[len(r.Steps)-1]; last.ExpectStatus != 0 {
			t.Errorf("%s: the last step carries expect_status; the recipe's expect says it", r.Code)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("recipe codes differ from the contract's (-want +got):\n%s", diff)
	}
	if injected != 8 {
		t.Errorf("%d injected recipes, want 8 (the codes whose endpoint the contract does not show)", injected)
	}
}

// TestRecipesRunOverHTTP runs every recipe over HTTP on its own fresh
// default simulator with the generic runner, checks the last answer (status
// and code, envelope with request_id and X-Request-Id), and ends with
// balanced books (simtest runs the end-of-test checks too).
func TestRecipesRunOverHTTP(t *testing.T) {
	t.Parallel()
	for _, r := range simulator.ErrorRecipes() {
		t.Run(r.Code, func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t)
			runner := &simulator.RecipeRunner{BaseURL: sim.URL(), HTTPClient: &http.Client{Timeout: 30 * time.Second}}
			res, err := runner.Run(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			var env map[string]any
			if err := json.Unmarshal(res.Body, &env); err != nil {
				t.Fatalf("answer is not a JSON envelope: %s", res.Body)
			}
			if env["code"] != r.Code || env["type"] == "" || env["type"] == nil || env["request_id"] != res.RequestID || res.RequestID == "" {
				t.Errorf("envelope %s (X-Request-Id %q), want code %s with its type and the request id", res.Body, res.RequestID, r.Code)
			}
			if err := sim.CheckLedger(); err != nil {
				t.Errorf("books after the recipe: %v", err)
			}
		})
	}
}

// TestRecipesServed: GET /_sim/recipes serves the catalogue in the
// documented format, and a runner reading it over HTTP gets the same
// recipes as the Go function.
func TestRecipesServed(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	resp, err := http.Get(sim.URL() + "/_sim/recipes")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("X-Request-Id") == "" {
		t.Fatalf("GET /_sim/recipes: %d, X-Request-Id %q", resp.StatusCode, resp.Header.Get("X-Request-Id"))
	}
	// The documented shape, key by key.
	var raw struct {
		Recipes []map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw.Recipes) != 51 {
		t.Fatalf("%d recipes served, want 51", len(raw.Recipes))
	}
	recipeKeys := map[string]bool{"code": true, "title": true, "injected": true, "steps": true, "expect": true}
	stepKeys := map[string]bool{"call": true, "method": true, "path": true, "body": true, "member": true,
		"idempotency_key": true, "headers": true, "save": true, "expect_status": true}
	for _, r := range raw.Recipes {
		for k := range recipeKeys {
			if _, ok := r[k]; !ok {
				t.Errorf("recipe %s lacks %q", r["code"], k)
			}
		}
		for k := range r {
			if !recipeKeys[k] {
				t.Errorf("recipe %s has undocumented key %q", r["code"], k)
			}
		}
		var stepsRaw []map[string]json.RawMessage
		if err := json.Unmarshal(r["steps"], &stepsRaw); err != nil {
			t.Fatal(err)
		}
		for _, st := range stepsRaw {
			for k := range st {
				if !stepKeys[k] {
					t.Errorf("recipe %s: step has undocumented key %q", r["code"], k)
				}
			}
		}
		var exp map[string]json.RawMessage
		if err := json.Unmarshal(r["expect"], &exp); err != nil || len(exp) != 2 || exp["status"] == nil || exp["code"] == nil {
			t.Errorf("recipe %s: expect %s, want {status, code}", r["code"], r["expect"])
		}
	}
	var served struct {
		Recipes []simulator.ErrorRecipe `json:"data"`
	}
	if err := json.Unmarshal(b, &served); err != nil {
		t.Fatal(err)
	}
	want := simulator.ErrorRecipes()
	for i := range want {
		want[i].Note = "" // Go only
	}
	if diff := cmp.Diff(want, served.Recipes); diff != "" {
		t.Errorf("served recipes differ from ErrorRecipes (-go +http):\n%s", diff)
	}
}

// TestRecipeRunner checks the runner's own rules on a fresh simulator:
// variables and {{new_uuid:NAME}}, save with array indexes, expect_status,
// and the errors it reports.
func TestRecipeRunner(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	run := func(r simulator.ErrorRecipe) (simulator.RecipeResult, error) {
		return (&simulator.RecipeRunner{BaseURL: sim.URL()}).Run(context.Background(), r)
	}
	body := func(s string) json.RawMessage { return json.RawMessage(s) }

	// The same {{new_uuid:K}} twice is the same key: the second deposit
	// with another body is idempotency_key_reused; {{K}} reuses it too.
	var traced []simulator.RecipeTrace
	r := simulator.ErrorRecipe{Code: "idempotency_key_reused", Steps: []simulator.RecipeStep{
		{Call: "api", Method: "GET", Path: "/v1/webhooks/deliveries", Save: map[string]string{"D": "data.0.id", "MORE": "has_more"}, ExpectStatus: 200},
		{Call: "api", Method: "POST", Path: "/v1/deposits", Member: "member-1", IdempotencyKey: "{{new_uuid:K}}",
			Body: body(`{"asset":"USDT","amount":"1","reference":"runner-{{MORE}}-{{D}}"}`), ExpectStatus: 201},
		{Call: "api", Method: "POST", Path: "/v1/deposits", Member: "member-1", IdempotencyKey: "{{new_uuid:K}}",
			Body: body(`{"asset":"USDT","amount":"2","reference":"runner-{{MORE}}-{{D}}"}`)},
	}, Expect: simulator.RecipeExpect{Status: 409, Code: "idempotency_key_reused"}}
	runner := &simulator.RecipeRunner{BaseURL: sim.URL(), Trace: func(tr simulator.RecipeTrace) { traced = append(traced, tr) }}
	if _, err := runner.Run(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if len(traced) != 3 || traced[2].Status != 409 || traced[2].Code != "idempotency_key_reused" || traced[2].RequestID == "" {
		t.Errorf("trace = %+v", traced)
	}
	var refs []string
	for _, o := range sim.State().Deposits {
		refs = append(refs, o.ID)
	}
	if len(refs) != 1 || !strings.HasPrefix(refs[0], "dep_runner-false-whd_") {
		t.Errorf("deposits = %v, want one whose reference holds the saved values", refs)
	}

	for _, tt := range []struct {
		name string
		r    simulator.ErrorRecipe
		want string
	}{
		{"wrong last answer", simulator.ErrorRecipe{Code: "not_found", Steps: []simulator.RecipeStep{{Call: "api", Method: "GET", Path: "/v1/assets"}},
			Expect: simulator.RecipeExpect{Status: 404, Code: "not_found"}}, "step 1: answered 200"},
		{"expect_status", simulator.ErrorRecipe{Code: "x", Steps: []simulator.RecipeStep{{Call: "control", Method: "GET", Path: "/_sim/nothing", ExpectStatus: 200}}},
			"step 1: GET /_sim/nothing answered 404 not_found, want 200"},
		{"unknown variable", simulator.ErrorRecipe{Code: "x", Steps: []simulator.RecipeStep{{Call: "api", Method: "GET", Path: "/v1/{{NOPE}}"}}},
			"variable NOPE is not saved yet"},
		{"missing field", simulator.ErrorRecipe{Code: "x", Steps: []simulator.RecipeStep{{Call: "control", Method: "GET", Path: "/_sim/clock", Save: map[string]string{"X": "data.9"}}}},
			"the answer has no field data.9"},
		{"unknown call", simulator.ErrorRecipe{Code: "x", Steps: []simulator.RecipeStep{{Call: "rpc", Method: "GET", Path: "/"}}},
			`call "rpc"`},
		{"no steps", simulator.ErrorRecipe{Code: "x"}, "no steps"},
	} {
		_, err := run(tt.r)
		var re *simulator.RecipeError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want a *RecipeError containing %q", tt.name, err, tt.want)
		}
	}
}
