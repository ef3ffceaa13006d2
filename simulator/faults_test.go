package simulator_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
)

func TestFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		fault      simulator.Fault
		wantStatus int    // 0: connection dropped
		wantCode   string // error code answered
		executed   bool   // the deposit went through
	}{
		{"error with code", simulator.Fault{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultError, Code: "upstream_timeout"}, 504, "upstream_timeout", false},
		{"error with status", simulator.Fault{Path: "/v1/deposits", Kind: simulator.FaultError, Status: 500}, 500, "api_error", false},
		{"error with both", simulator.Fault{Path: "/v1/*", Kind: simulator.FaultError, Status: 429, Code: "rate_limited"}, 429, "rate_limited", false},
		// The contract's step_up_required always carries a challenge: the
		// fault's does too, one the end user can complete.
		{"error step_up_required", simulator.Fault{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultError, Code: "step_up_required"}, 400, "step_up_required", false},
		{"error_after step_up_required", simulator.Fault{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultErrorAfter, Code: "step_up_required"}, 400, "step_up_required", true},
		{"drop before", simulator.Fault{Method: "post", Path: "/v1/deposits", Kind: simulator.FaultDropBefore}, 0, "", false},
		{"drop after", simulator.Fault{Path: "/v1/deposits", Kind: simulator.FaultDropAfter}, 0, "", true},
		{"delay", simulator.Fault{Path: "/v1/deposits", Kind: simulator.FaultDelay, DelayMS: 1}, 201, "", true},
		{"other method does not match", simulator.Fault{Method: "GET", Path: "/v1/deposits", Kind: simulator.FaultDropBefore}, 201, "", true},
		{"other path does not match", simulator.Fault{Path: "/v1/assets", Kind: simulator.FaultDropBefore}, 201, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, c := newRaw(t)
			tok := c.token()
			if err := sim.Faults.Inject(tt.fault); err != nil {
				t.Fatal(err)
			}
			key := uuidN(1)
			body := depositBody("fault", "7")
			r := c.write(tok, "POST", "/v1/deposits", member1, key, body)
			switch {
			case tt.wantStatus == 0:
				if r.err == nil {
					t.Fatalf("want a dropped connection, got %v", r)
				}
			case tt.wantCode != "":
				wantCode(t, r, tt.wantStatus, tt.wantCode)
			default:
				wantStatus(t, r, tt.wantStatus)
			}
			if tt.wantCode == "rate_limited" && r.header.Get("Retry-After") == "" {
				t.Errorf("rate_limited fault without Retry-After")
			}
			if tt.wantCode == "step_up_required" {
				id, _ := r.body["challenge_id"].(string)
				url, _ := r.body["hosted_url"].(string)
				if _, ok := r.body["expires_at"].(float64); !ok || id == "" || !strings.HasSuffix(url, "/_sim/step-up/"+id) {
					t.Fatalf("step_up_required fault without its challenge: %v", r.body)
				}
				if err := sim.StepUp.Complete(id); err != nil {
					t.Fatalf("the fault's challenge cannot be completed: %v", err)
				}
			}
			want := "1000.000000"
			if tt.executed {
				want = "1007.000000"
			}
			if got := balance(sim, member1, "USDT"); got != want {
				t.Errorf("balance = %s, want %s", got, want)
			}
			// The fault is used up: the retry with the same key executes
			// (or replays what was executed).
			again := c.write(tok, "POST", "/v1/deposits", member1, key, body)
			wantStatus(t, again, 201)
			if replay := again.header.Get("X-Idempotent-Replay") == "true"; replay != tt.executed {
				t.Errorf("retry replay = %v, want %v", replay, tt.executed)
			}
			if got := balance(sim, member1, "USDT"); got != "1007.000000" {
				t.Errorf("balance after retry = %s, want exactly one deposit", got)
			}
			reqs := sim.Requests.List()
			first := reqs[len(reqs)-2]
			if tt.wantStatus == 0 && (!first.Dropped || first.Status != 0) {
				t.Errorf("journal does not show the drop: %+v", first)
			}
			if first.IdempotencyKey != key || first.Member != member1 {
				t.Errorf("journal lacks the key or member: %+v", first)
			}
		})
	}
}

func TestFaultCountAndClear(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	tok := c.token()
	c.mustControl("POST", "/_sim/faults", map[string]any{"method": "GET", "path": "/v1/assets", "count": 2, "kind": "error", "code": "upstream_error"})
	wantCode(t, c.get(tok, "/v1/assets", ""), 502, "upstream_error")
	if f := sim.Faults.List(); len(f) != 1 || f[0].Count != 1 {
		t.Errorf("faults after one use: %+v", f)
	}
	wantCode(t, c.get(tok, "/v1/assets", ""), 502, "upstream_error")
	wantStatus(t, c.get(tok, "/v1/assets", ""), 200)

	c.mustControl("POST", "/_sim/faults", map[string]any{"path": "/v1/*", "count": 100, "kind": "error", "status": 500})
	wantCode(t, c.get(tok, "/v1/assets", ""), 500, "api_error")
	c.mustControl("DELETE", "/_sim/faults", nil)
	wantStatus(t, c.get(tok, "/v1/assets", ""), 200)
	// Faults never touch the control API.
	c.mustControl("POST", "/_sim/faults", map[string]any{"path": "/*", "kind": "drop_before"})
	c.mustControl("GET", "/_sim/clock", nil)
	if err := sim.Faults.Clear(); err != nil {
		t.Fatal(err)
	}

	for _, bad := range []map[string]any{
		{"path": "/v1/assets", "kind": "explode"},
		{"path": "v1/assets", "kind": "error"},
		{"path": "/v1/assets", "kind": "delay"},
		{"path": "/v1/assets", "kind": "delay", "delay_ms": 600000},
		{"path": "/v1/assets", "kind": "error", "status": 200},
		{"path": "/v1/assets", "kind": "error", "count": -1},
	} {
		r := c.control("POST", "/_sim/faults", bad)
		wantCode(t, r, 400, "invalid_request")
	}
	if len(sim.Faults.List()) != 0 {
		t.Errorf("invalid faults were armed: %+v", sim.Faults.List())
	}
}

func TestJournal(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	tok := c.token()
	wantStatus(t, c.get(tok, "/v1/assets", ""), 200)
	wantStatus(t, c.write(tok, "POST", "/v1/deposits", member1, uuidN(5), depositBody("j", "1")), 201)
	wantStatus(t, c.write(tok, "POST", "/v1/deposits", member1, uuidN(5), depositBody("j", "1")), 201)
	wantCode(t, c.get(tok, "/v1/remittances", "  nobody "), 404, "member_not_found")
	c.mustControl("GET", "/_sim/clock", nil)

	recs := sim.Requests.List()
	if len(recs) != 5 {
		t.Fatalf("journal has %d records, want 5 (control calls are not recorded): %+v", len(recs), recs)
	}
	type row struct {
		Method, Path, Member, Key, Code string
		Status                          int
		Replay                          bool
	}
	var got []row
	for _, r := range recs {
		got = append(got, row{r.Method, r.Path, r.Member, r.IdempotencyKey, r.Code, r.Status, r.Replay})
		if r.RequestID == "" || r.Time.IsZero() || r.Seq == 0 {
			t.Errorf("incomplete record %+v", r)
		}
	}
	want := []row{
		{"POST", "/v1/connect/token", "", "", "", 200, false},
		{"GET", "/v1/assets", "", "", "", 200, false},
		{"POST", "/v1/deposits", member1, uuidN(5), "", 201, false},
		{"POST", "/v1/deposits", member1, uuidN(5), "", 201, true},
		{"GET", "/v1/remittances", "nobody", "", "member_not_found", 404, false},
	}
	if len(got) != len(want) {
		t.Fatalf("rows = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, got[i], want[i])
		}
	}

	// A secret sent in the wrong header is not journaled either.
	wantCode(t, c.exchangeToken(c.creds.APIKey, c.creds.SigningKey), 401, "invalid_credentials")
	recs = sim.Requests.List()
	if recs[len(recs)-1].ClientID != "" {
		t.Errorf("unknown client id journaled: %+v", recs[len(recs)-1])
	}
	recs = recs[:len(recs)-1]

	// No secrets, over the Go API or the control API.
	ctl := c.mustControl("GET", "/_sim/requests", nil)
	goJSON, _ := json.Marshal(recs)
	for _, blob := range []string{string(goJSON), string(ctl.raw)} {
		for _, secret := range []string{c.creds.APIKey, c.creds.SigningKey, tok, "nonce-", "reference"} {
			if strings.Contains(blob, secret) {
				t.Errorf("journal holds %q", secret)
			}
		}
	}
	if n := len(ctl.body["data"].([]any)); n != 6 {
		t.Errorf("control journal has %d rows", n)
	}
	c.mustControl("DELETE", "/_sim/requests", nil)
	if n := len(sim.Requests.List()); n != 0 {
		t.Errorf("journal not reset: %d", n)
	}
}
