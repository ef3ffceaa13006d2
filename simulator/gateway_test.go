package simulator_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator"
)

const member1 = simulator.DefaultMemberExternalID

func TestTokenExchange(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	if _, err := sim.Keys.Add("disabled-key", "disabled-secret", "", simulator.KeySettings{Disabled: simulator.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	past := sim.Clock.Now().Add(-time.Second)
	if _, err := sim.Keys.Add("rotated-key", "rotated-secret", "", simulator.KeySettings{ValidUntil: &past}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name             string
		clientID, apiKey string
		status           int
		code             string
	}{
		{"valid", c.creds.ClientID, c.creds.APIKey, 200, ""},
		{"wrong api key", c.creds.ClientID, "wrong", 401, "invalid_credentials"},
		{"unknown client", "nobody", c.creds.APIKey, 401, "invalid_credentials"},
		{"signing key instead of api key", c.creds.ClientID, c.creds.SigningKey, 401, "invalid_credentials"},
		{"missing api key", c.creds.ClientID, "", 401, "invalid_credentials"},
		{"missing both", "", "", 401, "invalid_credentials"},
		{"disabled key", "disabled-key", "disabled-secret", 401, "invalid_credentials"},
		{"key past its rotation end", "rotated-key", "rotated-secret", 401, "invalid_credentials"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.exchangeToken(tt.clientID, tt.apiKey)
			if tt.code != "" {
				wantCode(t, r, tt.status, tt.code)
				return
			}
			wantStatus(t, r, tt.status)
			if r.body["token_type"] != "Bearer" || r.body["auth_token"] == "" {
				t.Fatalf("token answer %s", r.raw)
			}
			exp, _ := r.body["expired_at"].(float64)
			if want := sim.Clock.Now().Add(30 * time.Minute).Unix(); int64(exp) != want {
				t.Errorf("expired_at = %v, want %d", exp, want)
			}
			if scopes, _ := r.body["scopes"].([]any); len(scopes) == 0 {
				t.Errorf("no scopes in %s", r.raw)
			}
		})
	}

	// Unknown client and wrong secret are indistinguishable.
	a := c.exchangeToken("nobody", "x")
	b := c.exchangeToken(c.creds.ClientID, "x")
	delete(a.body, "request_id")
	delete(b.body, "request_id")
	if diff := cmp.Diff(a.body, b.body); diff != "" || a.status != b.status {
		t.Errorf("unknown client and wrong secret differ (-unknown +wrong):\n%s", diff)
	}
}

func TestTokenExchangeRateLimit(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	for i := 0; i < 20; i++ {
		wantStatus(t, c.exchangeToken(c.creds.ClientID, c.creds.APIKey), 200)
		sim.Clock.Advance(time.Second)
	}
	r := c.exchangeToken(c.creds.ClientID, c.creds.APIKey)
	wantCode(t, r, 429, "rate_limited")
	// The first exchange was 20 s ago: 40 s remain of its minute.
	if got := r.body["retry_after"]; got != float64(40) {
		t.Errorf("retry_after = %v, want 40", got)
	}
	if got := r.header.Get("Retry-After"); got != "40" {
		t.Errorf("Retry-After = %q, want 40", got)
	}
	// Another Key has its own quota.
	other, err := sim.Keys.Add("other", "other-secret", "", simulator.KeySettings{Scopes: []string{"merchant:read"}})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, c.exchangeToken(other.ClientID, other.APIKey), 200)
	sim.Clock.Advance(40 * time.Second)
	wantStatus(t, c.exchangeToken(c.creds.ClientID, c.creds.APIKey), 200)
}

func TestTokenUse(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	tok := c.token()
	tests := []struct {
		name   string
		header http.Header
		code   string
	}{
		{"x-auth-token bearer", http.Header{"X-Auth-Token": {"Bearer " + tok}}, ""},
		{"authorization bearer", http.Header{"Authorization": {"Bearer " + tok}}, ""},
		{"lowercase scheme", http.Header{"Authorization": {"bearer " + tok}}, ""},
		{"missing", http.Header{}, "invalid_token"},
		{"no scheme", http.Header{"X-Auth-Token": {tok}}, "invalid_token"},
		{"basic scheme", http.Header{"Authorization": {"Basic " + tok}}, "invalid_token"},
		{"unknown token", http.Header{"X-Auth-Token": {"Bearer tok_nope"}}, "invalid_token"},
		{"api key as token", http.Header{"X-Auth-Token": {"Bearer " + c.creds.APIKey}}, "invalid_token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.send(http.MethodGet, "/v1/assets", nil, tt.header)
			if tt.code != "" {
				wantCode(t, r, 401, tt.code)
				return
			}
			wantStatus(t, r, 200)
		})
	}

	// Valid for 30 minutes of the simulator clock, not one second more.
	sim.Clock.Advance(30*time.Minute - time.Second)
	wantStatus(t, c.get(tok, "/v1/assets", ""), 200)
	sim.Clock.Advance(time.Second)
	wantCode(t, c.get(tok, "/v1/assets", ""), 401, "invalid_token")
}

func TestKeyRecordReadOnEveryRequest(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	tok := c.token()
	wantStatus(t, c.get(tok, "/v1/assets", ""), 200)

	if err := sim.Keys.Set(c.creds.ClientID, simulator.KeySettings{Scopes: []string{"members:read"}}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, c.get(tok, "/v1/assets", ""), 403, "insufficient_scope")

	if err := sim.Keys.Set(c.creds.ClientID, simulator.KeySettings{Scopes: []string{"merchant:read"}, Disabled: simulator.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, c.get(tok, "/v1/assets", ""), 401, "invalid_token")

	c.mustControl(http.MethodPost, "/_sim/keys/"+c.creds.ClientID, map[string]any{"disabled": false})
	wantStatus(t, c.get(tok, "/v1/assets", ""), 200)

	// Rotation: the Key stops exactly at valid_until, tokens included.
	until := sim.Clock.Now().Add(time.Minute)
	c.mustControl(http.MethodPost, "/_sim/keys/"+c.creds.ClientID, map[string]any{"valid_until": until.Format(time.RFC3339)})
	sim.Clock.Advance(time.Minute - time.Second)
	wantStatus(t, c.get(tok, "/v1/assets", ""), 200)
	sim.Clock.Advance(time.Second)
	wantCode(t, c.get(tok, "/v1/assets", ""), 401, "invalid_token")
}

func TestScopes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		scopes   []string
		approved bool
		method   string
		target   string
		member   bool
		code     string // "" for the gateway letting the request through
	}{
		{"read scope present", []string{"merchant:read"}, false, "GET", "/v1/assets", false, ""},
		{"read scope missing", []string{"members:read"}, false, "GET", "/v1/assets", false, "insufficient_scope"},
		{"no scopes", []string{}, false, "GET", "/v1/assets", false, "insufficient_scope"},
		{"unknown keys dropped", []string{"assets:everything", "admin"}, false, "GET", "/v1/assets", false, "insufficient_scope"},
		{"restricted scope not approved", []string{"deposits:write"}, false, "POST", "/v1/deposits", true, "insufficient_scope"},
		{"restricted scope approved", []string{"deposits:write"}, true, "POST", "/v1/deposits", true, ""},
		{"approval without the scope", []string{"merchant:read"}, true, "POST", "/v1/deposits", true, "insufficient_scope"},
		{"remittances read", []string{"remittances:read"}, false, "GET", "/v1/remittances", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, c := newRaw(t)
			if err := sim.Keys.Set(c.creds.ClientID, simulator.KeySettings{Scopes: tt.scopes, ApproveRestricted: simulator.Bool(tt.approved)}); err != nil {
				t.Fatal(err)
			}
			tok := c.token()
			member := ""
			if tt.member {
				member = member1
			}
			var r result
			if tt.method == "GET" {
				r = c.get(tok, tt.target, member)
			} else {
				r = c.write(tok, tt.method, tt.target, member, uuidN(1), depositBody("scope-"+tt.name, "1"))
			}
			if tt.code != "" {
				wantCode(t, r, 403, tt.code)
				return
			}
			if r.status/100 != 2 {
				t.Fatalf("want success, got %v", r)
			}
		})
	}
}

func TestScopeCatalogue(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	if err := sim.Keys.Set(c.creds.ClientID, simulator.KeySettings{
		Scopes:            []string{"merchant:read", "no:such", "deposits:write", "cards:secure"},
		ApproveRestricted: simulator.Bool(false),
	}); err != nil {
		t.Fatal(err)
	}
	r := c.mustControl(http.MethodGet, "/_sim/keys/"+c.creds.ClientID, nil)
	if got := fmt.Sprint(r.body["requested_scopes"]); got != "[cards:secure deposits:write merchant:read]" {
		t.Errorf("requested_scopes = %s (unknown keys must be dropped)", got)
	}
	tr := c.exchangeToken(c.creds.ClientID, c.creds.APIKey)
	if got := fmt.Sprint(tr.body["scopes"]); got != "[merchant:read]" {
		t.Errorf("token scopes = %s, want only the effective merchant:read", got)
	}
}

func TestMerchantStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status          simulator.MerchantStatus
		readOK, writeOK bool
	}{
		{simulator.MerchantActive, true, true},
		{simulator.MerchantSuspended, true, false},
		{simulator.MerchantFrozen, false, false},
		{simulator.MerchantClosed, false, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.status), func(t *testing.T) {
			t.Parallel()
			sim, c := newRaw(t)
			tok := c.token()
			c.mustControl(http.MethodPost, "/_sim/merchant", map[string]any{"status": tt.status})
			r := c.get(tok, "/v1/assets", "")
			if tt.readOK {
				wantStatus(t, r, 200)
			} else {
				wantCode(t, r, 403, "merchant_disabled")
			}
			w := c.write(tok, "POST", "/v1/deposits", member1, uuidN(1), depositBody("ms", "5"))
			if tt.writeOK {
				wantStatus(t, w, 201)
			} else {
				wantCode(t, w, 403, "merchant_disabled")
				if got := balance(sim, member1, "USDT"); got != "1000.000000" {
					t.Errorf("balance moved to %s on a refused write", got)
				}
			}
		})
	}
}

func TestIPAllowlist(t *testing.T) {
	t.Parallel()
	// The simulator listens on loopback: the caller is 127.0.0.1.
	tests := []struct {
		name  string
		env   simulator.Environment
		list  []string
		allow bool
	}{
		{"sandbox empty list", simulator.Sandbox, nil, true},
		{"production empty list", simulator.Production, []string{}, false},
		{"production exact", simulator.Production, []string{"127.0.0.1"}, true},
		{"single address", simulator.Sandbox, []string{"127.0.0.1"}, true},
		{"other address", simulator.Sandbox, []string{"10.0.0.1"}, false},
		{"wildcard a.b.c.*", simulator.Sandbox, []string{"127.0.0.*"}, true},
		{"wildcard a.b.*", simulator.Sandbox, []string{"127.0.*"}, true},
		{"wildcard other", simulator.Sandbox, []string{"127.0.1.*"}, false},
		{"cidr /24", simulator.Sandbox, []string{"127.0.0.0/24"}, true},
		{"cidr /16", simulator.Sandbox, []string{"127.0.9.9/16"}, true},
		{"cidr /8", simulator.Sandbox, []string{"127.1.2.3/8"}, true},
		{"cidr /24 elsewhere", simulator.Sandbox, []string{"127.0.1.0/24"}, false},
		{"cidr /28 never matches", simulator.Sandbox, []string{"127.0.0.0/28"}, false},
		{"cidr /32 never matches", simulator.Sandbox, []string{"127.0.0.1/32"}, false},
		{"ipv6 never matches", simulator.Sandbox, []string{"::1"}, false},
		{"ipv6 range never matches", simulator.Sandbox, []string{"::/0"}, false},
		{"garbage never matches", simulator.Sandbox, []string{"localhost"}, false},
		{"leading zeros never match", simulator.Sandbox, []string{"127.000.000.001"}, false},
		{"broken entry beside a good one", simulator.Sandbox, []string{"127.0.0.0/28", "127.0.0.1"}, true},
		{"surrounding spaces", simulator.Sandbox, []string{" 127.0.0.1 "}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, c := newRaw(t, simulator.WithEnvironment(tt.env))
			tok := c.token() // the fixture allowlist admits loopback
			list := tt.list
			if list == nil {
				list = []string{}
			}
			if err := sim.Keys.Set(c.creds.ClientID, simulator.KeySettings{IPAllowlist: list}); err != nil {
				t.Fatal(err)
			}
			r := c.get(tok, "/v1/assets", "")
			if tt.allow {
				wantStatus(t, r, 200)
				return
			}
			wantCode(t, r, 403, "ip_not_allowed")
			if strings.Contains(string(r.raw), "127.") || strings.Contains(string(r.raw), "10.0") {
				t.Errorf("the answer reveals addresses: %s", r.raw)
			}
			wantCode(t, c.exchangeToken(c.creds.ClientID, c.creds.APIKey), 403, "ip_not_allowed")
		})
	}
}

func TestEnvironment(t *testing.T) {
	t.Parallel()
	t.Run("token minted in sandbox used in production", func(t *testing.T) {
		t.Parallel()
		sim, c := newRaw(t)
		tok := c.token()
		if err := sim.Merchant.Set(simulator.MerchantSettings{Environment: simulator.Production}); err != nil {
			t.Fatal(err)
		}
		wantCode(t, c.get(tok, "/v1/assets", ""), 400, "environment_mismatch")
		// The fixture Key is a sandbox Key: the exchange says so too.
		wantCode(t, c.exchangeToken(c.creds.ClientID, c.creds.APIKey), 400, "environment_mismatch")
		if got := c.mustControl(http.MethodGet, "/_sim/credentials", nil).body["environment"]; got != "production" {
			t.Errorf("credentials environment = %v", got)
		}
	})
	t.Run("production key on a sandbox deployment", func(t *testing.T) {
		t.Parallel()
		sim, c := newRaw(t)
		k, err := sim.Keys.Add("", "", "", simulator.KeySettings{Environment: simulator.Production, IPAllowlist: []string{"127.0.0.1"}, Scopes: []string{"merchant:read"}})
		if err != nil {
			t.Fatal(err)
		}
		wantCode(t, c.exchangeToken(k.ClientID, k.APIKey), 400, "environment_mismatch")
	})
	t.Run("production fixture", func(t *testing.T) {
		t.Parallel()
		_, c := newRaw(t, simulator.WithEnvironment(simulator.Production))
		wantStatus(t, c.get(c.token(), "/v1/assets", ""), 200)
	})
}

func TestSignature(t *testing.T) {
	t.Parallel()
	type sigCase struct {
		name   string
		mutate func(c *raw, h http.Header, target string, body []byte)
		target string // default /v1/deposits
		status int
		code   string
	}
	ts := func(c *raw, d time.Duration) string { return strconv.FormatInt(c.sim.Clock.Now().Add(d).Unix(), 10) }
	resign := func(c *raw, h http.Header, method, target string, body []byte) {
		h.Set("X-Signature", sign(c.creds.SigningKey, method, target, h.Get("X-Timestamp"), h.Get("X-Nonce"), body))
	}
	tests := []sigCase{
		{name: "valid", status: 201},
		{name: "missing timestamp", mutate: func(_ *raw, h http.Header, _ string, _ []byte) { h.Del("X-Timestamp") }, status: 401, code: "invalid_signature"},
		{name: "missing nonce", mutate: func(_ *raw, h http.Header, _ string, _ []byte) { h.Del("X-Nonce") }, status: 401, code: "invalid_signature"},
		{name: "missing signature", mutate: func(_ *raw, h http.Header, _ string, _ []byte) { h.Del("X-Signature") }, status: 401, code: "invalid_signature"},
		{name: "non-numeric timestamp", mutate: func(c *raw, h http.Header, target string, body []byte) {
			h.Set("X-Timestamp", "2026-01-01T00:00:00Z")
			resign(c, h, "POST", target, body)
		}, status: 401, code: "invalid_signature"},
		{name: "milliseconds", mutate: func(c *raw, h http.Header, target string, body []byte) {
			h.Set("X-Timestamp", strconv.FormatInt(c.sim.Clock.Now().UnixMilli(), 10))
			resign(c, h, "POST", target, body)
		}, status: 401, code: "timestamp_out_of_range"},
		{name: "301 s late", mutate: func(c *raw, h http.Header, target string, body []byte) {
			h.Set("X-Timestamp", ts(c, -301*time.Second))
			resign(c, h, "POST", target, body)
		}, status: 401, code: "timestamp_out_of_range"},
		{name: "301 s early", mutate: func(c *raw, h http.Header, target string, body []byte) {
			h.Set("X-Timestamp", ts(c, 301*time.Second))
			resign(c, h, "POST", target, body)
		}, status: 401, code: "timestamp_out_of_range"},
		{name: "300 s late", mutate: func(c *raw, h http.Header, target string, body []byte) {
			h.Set("X-Timestamp", ts(c, -300*time.Second))
			resign(c, h, "POST", target, body)
		}, status: 201},
		{name: "300 s early", mutate: func(c *raw, h http.Header, target string, body []byte) {
			h.Set("X-Timestamp", ts(c, 300*time.Second))
			resign(c, h, "POST", target, body)
		}, status: 201},
		{name: "hex signature", mutate: func(c *raw, h http.Header, target string, body []byte) {
			b64 := sign(c.creds.SigningKey, "POST", target, h.Get("X-Timestamp"), h.Get("X-Nonce"), body)
			h.Set("X-Signature", hexOfBase64(t, b64))
		}, status: 401, code: "invalid_signature"},
		{name: "signed with the api key", mutate: func(c *raw, h http.Header, target string, body []byte) {
			h.Set("X-Signature", sign(c.creds.APIKey, "POST", target, h.Get("X-Timestamp"), h.Get("X-Nonce"), body))
		}, status: 401, code: "invalid_signature"},
		{name: "lowercase method signed", mutate: func(c *raw, h http.Header, target string, body []byte) {
			h.Set("X-Signature", sign(c.creds.SigningKey, "post", target, h.Get("X-Timestamp"), h.Get("X-Nonce"), body))
		}, status: 401, code: "invalid_signature"},
		{name: "query as sent", target: "/v1/deposits?b=2&a=1", status: 201},
		{name: "query reordered in the signature", target: "/v1/deposits?b=2&a=1", mutate: func(c *raw, h http.Header, _ string, body []byte) {
			resign(c, h, "POST", "/v1/deposits?a=1&b=2", body)
		}, status: 401, code: "invalid_signature"},
		{name: "percent-encoding as sent", target: "/v1/deposits?x=a%2Fb", status: 201},
		{name: "percent-encoding decoded in the signature", target: "/v1/deposits?x=a%2Fb", mutate: func(c *raw, h http.Header, _ string, body []byte) {
			resign(c, h, "POST", "/v1/deposits?x=a/b", body)
		}, status: 401, code: "invalid_signature"},
		{name: "path without query signed", target: "/v1/deposits?a=1", mutate: func(c *raw, h http.Header, _ string, body []byte) {
			resign(c, h, "POST", "/v1/deposits", body)
		}, status: 401, code: "invalid_signature"},
		{name: "body re-serialised", mutate: func(c *raw, h http.Header, target string, body []byte) {
			var v any
			_ = json.Unmarshal(body, &v)
			other, _ := json.MarshalIndent(v, "", " ")
			resign(c, h, "POST", target, other)
		}, status: 401, code: "invalid_signature"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, c := newRaw(t)
			tok := c.token()
			target := tt.target
			if target == "" {
				target = "/v1/deposits"
			}
			body := depositBody(fmt.Sprintf("sig-%d", i), "2.5")
			h := authed(tok)
			h.Set("X-On-Behalf-Of", member1)
			h.Set("X-Idempotency-Key", uuidN(i))
			c.signed(h, "POST", target, body)
			if tt.mutate != nil {
				tt.mutate(c, h, target, body)
			}
			r := c.send("POST", target, body, h)
			if tt.code != "" {
				wantCode(t, r, tt.status, tt.code)
				if got := balance(sim, member1, "USDT"); got != "1000.000000" {
					t.Errorf("balance moved to %s on a refused request", got)
				}
				return
			}
			wantStatus(t, r, tt.status)
		})
	}
}

func hexOfBase64(t *testing.T, s string) string {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", b)
}

func TestNonces(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	tok := c.token()
	send := func(n int, nonce string, goodSig bool) result {
		body := depositBody(fmt.Sprintf("nonce-%d", n), "1")
		h := authed(tok)
		h.Set("X-On-Behalf-Of", member1)
		h.Set("X-Idempotency-Key", uuidN(n))
		ts := strconv.FormatInt(sim.Clock.Now().Unix(), 10)
		h.Set("X-Timestamp", ts)
		h.Set("X-Nonce", nonce)
		key := c.creds.SigningKey
		if !goodSig {
			key = "wrong"
		}
		h.Set("X-Signature", sign(key, "POST", "/v1/deposits", ts, nonce, body))
		return c.send("POST", "/v1/deposits", body, h)
	}
	// A bad signature does not burn the nonce.
	wantCode(t, send(1, "n-1", false), 401, "invalid_signature")
	wantStatus(t, send(2, "n-1", true), 201)
	// Reuse within 5 minutes, even for another request.
	wantCode(t, send(3, "n-1", true), 401, "nonce_reused")
	sim.Clock.Advance(5*time.Minute - time.Second)
	wantCode(t, send(4, "n-1", true), 401, "nonce_reused")
	sim.Clock.Advance(time.Second)
	wantStatus(t, send(5, "n-1", true), 201)
}

func TestSignatureSetting(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	if err := sim.Keys.Set(c.creds.ClientID, simulator.KeySettings{SignatureRequired: simulator.Bool(false)}); err != nil {
		t.Fatal(err)
	}
	tok := c.token()
	h := authed(tok)
	h.Set("X-On-Behalf-Of", member1)
	h.Set("X-Idempotency-Key", uuidN(1))
	// Deposits are always signed.
	wantCode(t, c.send("POST", "/v1/deposits", depositBody("unsigned", "1"), h), 401, "invalid_signature")
	// Other writes pass unsigned when the Key does not require signing.
	r := c.send("POST", "/v1/kyc/profile-sessions", nil, h)
	if r.status == 401 {
		t.Fatalf("unsigned write refused with signing off: %v", r)
	}
	// With signing on, the same unsigned write is refused.
	if err := sim.Keys.Set(c.creds.ClientID, simulator.KeySettings{SignatureRequired: simulator.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	h.Set("X-Idempotency-Key", uuidN(2))
	wantCode(t, c.send("POST", "/v1/kyc/profile-sessions", nil, h), 401, "invalid_signature")
	// Reads are never signed.
	wantStatus(t, c.get(tok, "/v1/assets", ""), 200)
}

func TestMemberResolution(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	memID, ok := sim.Members.Get(member1)
	if !ok {
		t.Fatal("fixture member missing")
	}
	seeds := []simulator.MemberSeed{
		{ExternalID: "suspended-1", Status: "suspended"},
		{ExternalID: "blocked-1", Status: "blocklisted"},
		{ExternalID: "foreign-1", MerchantID: "mch_someone_else"},
		{ExternalID: "frozen-1", Status: "frozen"},
	}
	for _, s := range seeds {
		if _, err := sim.Members.Create(s); err != nil {
			t.Fatal(err)
		}
	}
	bare := strings.TrimPrefix(memID.ID, "mem_")
	tests := []struct {
		name   string
		header []string // nil: header absent
		code   string
	}{
		{"external id", []string{member1}, ""},
		{"mem_ id", []string{memID.ID}, ""},
		{"padded external id", []string{"  " + member1 + "\t"}, ""},
		{"absent", nil, "member_context_required"},
		{"blank", []string{"   "}, "member_context_required"},
		{"bare uuid", []string{bare}, "member_not_found"},
		{"e-mail", []string{"member-1@example.com"}, "member_not_found"},
		{"phone", []string{"+15551234567"}, "member_not_found"},
		{"unknown", []string{"nobody"}, "member_not_found"},
		{"unknown mem_ id", []string{"mem_00000000-0000-4000-8000-000000000000"}, "member_not_found"},
		{"suspended", []string{"suspended-1"}, "member_not_found"},
		{"blocklisted", []string{"blocked-1"}, "member_not_found"},
		{"foreign", []string{"foreign-1"}, "member_not_found"},
		{"frozen is found", []string{"frozen-1"}, ""},
	}
	tok := c.token()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := authed(tok)
			for _, v := range tt.header {
				h.Set("X-On-Behalf-Of", v)
			}
			r := c.send("GET", "/v1/remittances", nil, h)
			switch tt.code {
			case "":
				wantStatus(t, r, 200)
			case "member_context_required":
				wantCode(t, r, 400, tt.code)
			default:
				wantCode(t, r, 404, tt.code)
			}
		})
	}
}

func TestIdempotency(t *testing.T) {
	t.Parallel()
	t.Run("key shape", func(t *testing.T) {
		t.Parallel()
		_, c := newRaw(t)
		tok := c.token()
		tests := []struct {
			key  string
			code string
		}{
			{"", "idempotency_key_required"},
			{"   ", "idempotency_key_required"},
			{"abc", "idempotency_key_invalid"},
			{"0000000000004000800000000000000a", "idempotency_key_invalid"},
			{"{00000000-0000-4000-8000-000000000001}", "idempotency_key_invalid"},
			{"00000000-0000-4000-8000-00000000000g", "idempotency_key_invalid"},
			{"0000000-00000-4000-8000-000000000001", "idempotency_key_invalid"},
			{"ABCDEF00-0000-1000-8000-000000000001", ""}, // any version, any case: only the shape is checked
		}
		for i, tt := range tests {
			h := authed(tok)
			h.Set("X-On-Behalf-Of", member1)
			if tt.key != "" {
				h.Set("X-Idempotency-Key", tt.key)
			}
			body := depositBody(fmt.Sprintf("shape-%d", i), "1")
			r := c.send("POST", "/v1/deposits", body, c.signed(h, "POST", "/v1/deposits", body))
			if tt.code == "" {
				wantStatus(t, r, 201)
				continue
			}
			wantCode(t, r, 400, tt.code)
		}
	})

	t.Run("replay, reuse and window", func(t *testing.T) {
		t.Parallel()
		sim, c := newRaw(t)
		tok := c.token()
		key := uuidN(7)
		first := c.write(tok, "POST", "/v1/deposits", member1, key, depositBody("idem-1", "10"))
		wantStatus(t, first, 201)
		if first.header.Get("X-Idempotent-Replay") != "" {
			t.Errorf("first answer marked as replay")
		}
		again := c.write(tok, "POST", "/v1/deposits", member1, key, depositBody("idem-1", "10"))
		wantStatus(t, again, 201)
		if again.header.Get("X-Idempotent-Replay") != "true" {
			t.Errorf("replay not marked: %v", again.header)
		}
		if diff := cmp.Diff(string(first.raw), string(again.raw)); diff != "" {
			t.Errorf("replayed body differs:\n%s", diff)
		}
		if again.header.Get("X-Request-Id") == first.header.Get("X-Request-Id") {
			t.Errorf("replay reused the request id")
		}
		if got := balance(sim, member1, "USDT"); got != "1010.000000" {
			t.Errorf("balance = %s after a replay, want 1010.000000", got)
		}
		// Headers are ignored: the same body on behalf of another member replays.
		if _, err := sim.Members.Create(simulator.MemberSeed{ExternalID: "member-2", KYCLevel: 1}); err != nil {
			t.Fatal(err)
		}
		other := c.write(tok, "POST", "/v1/deposits", "member-2", key, depositBody("idem-1", "10"))
		if other.status != 201 || other.header.Get("X-Idempotent-Replay") != "true" {
			t.Errorf("same key and body with other headers: %v", other)
		}
		// Different body, different endpoint.
		wantCode(t, c.write(tok, "POST", "/v1/deposits", member1, key, depositBody("idem-1", "11")), 409, "idempotency_key_reused")
		wantCode(t, c.write(tok, "POST", "/v1/kyc/profile-sessions", member1, key, depositBody("idem-1", "10")), 409, "idempotency_key_reused")
		// Still a replay just inside 24 hours, a new request after.
		sim.Clock.Advance(24*time.Hour - time.Second)
		tok = c.token()
		r := c.write(tok, "POST", "/v1/deposits", member1, key, depositBody("idem-1", "10"))
		if r.header.Get("X-Idempotent-Replay") != "true" {
			t.Errorf("not a replay inside the window: %v", r)
		}
		sim.Clock.Advance(time.Second)
		r = c.write(tok, "POST", "/v1/deposits", member1, key, depositBody("idem-1", "10"))
		if r.err != nil || r.header.Get("X-Idempotent-Replay") != "" {
			t.Errorf("replay after the window: %v %v", r, r.header)
		}
		if r.status != 200 || r.body["replayed"] != true {
			t.Errorf("the deposit reference protects the second posting: %v", r)
		}
		wantCode(t, c.write(tok, "POST", "/v1/deposits", member1, key, depositBody("idem-1", "12")), 409, "idempotency_key_reused")
	})

	t.Run("failures replay, gateway rejections do not", func(t *testing.T) {
		t.Parallel()
		sim, c := newRaw(t)
		tok := c.token()
		bad := []byte(`{"asset":"NOPE","amount":"1","reference":"f-1"}`)
		first := c.write(tok, "POST", "/v1/deposits", member1, uuidN(1), bad)
		if first.status != 400 {
			t.Fatalf("want a business failure, got %v", first)
		}
		again := c.write(tok, "POST", "/v1/deposits", member1, uuidN(1), bad)
		if again.status != first.status || again.code() != first.code() || again.header.Get("X-Idempotent-Replay") != "true" {
			t.Errorf("failure not replayed: %v", again)
		}
		// A request refused by the gateway creates no record: the resend
		// with the same key executes.
		body := depositBody("f-2", "3")
		h := authed(tok)
		h.Set("X-On-Behalf-Of", member1)
		h.Set("X-Idempotency-Key", uuidN(2))
		c.signed(h, "POST", "/v1/deposits", body)
		h.Set("X-Signature", "AAAA"+h.Get("X-Signature")[4:])
		wantCode(t, c.send("POST", "/v1/deposits", body, h), 401, "invalid_signature")
		h.Set("X-On-Behalf-Of", "nobody")
		wantCode(t, c.send("POST", "/v1/deposits", body, c.signed(h, "POST", "/v1/deposits", body)), 404, "member_not_found")
		r := c.write(tok, "POST", "/v1/deposits", member1, uuidN(2), body)
		wantStatus(t, r, 201)
		if r.header.Get("X-Idempotent-Replay") != "" {
			t.Errorf("a gateway rejection was stored")
		}
		if got := balance(sim, member1, "USDT"); got != "1003.000000" {
			t.Errorf("balance = %s", got)
		}
	})

	t.Run("in progress", func(t *testing.T) {
		t.Parallel()
		sim, c := newRaw(t)
		tok := c.token()
		hold := make(chan struct{})
		held := make(chan string, 1)
		if err := sim.Faults.Inject(simulator.Fault{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultDelay, Hold: hold, Held: held}); err != nil {
			t.Fatal(err)
		}
		key := uuidN(9)
		body := depositBody("slow", "4")
		var wg sync.WaitGroup
		var first result
		wg.Add(1)
		go func() {
			defer wg.Done()
			first = c.write(tok, "POST", "/v1/deposits", member1, key, body)
		}()
		<-held
		wantCode(t, c.write(tok, "POST", "/v1/deposits", member1, key, body), 409, "idempotency_in_progress")
		wantCode(t, c.write(tok, "POST", "/v1/deposits", member1, key, depositBody("slow", "5")), 409, "idempotency_key_reused")
		// Other requests are served while the first one is held.
		wantStatus(t, c.get(tok, "/v1/assets", ""), 200)
		close(hold)
		wg.Wait()
		wantStatus(t, first, 201)
		r := c.write(tok, "POST", "/v1/deposits", member1, key, body)
		if r.status != 201 || r.header.Get("X-Idempotent-Replay") != "true" {
			t.Errorf("after completion: %v", r)
		}
		if got := balance(sim, member1, "USDT"); got != "1004.000000" {
			t.Errorf("balance = %s, want one deposit", got)
		}
	})
}

func TestCheckOrder(t *testing.T) {
	t.Parallel()
	// Each case breaks two rules; the earlier check in the documented order
	// answers.
	tests := []struct {
		name  string
		setup func(sim *simulator.Simulator, c *raw)
		send  func(c *raw, tok string) result
		code  string
	}{
		{"token before ip", func(sim *simulator.Simulator, c *raw) {
			_ = sim.Keys.Set(c.creds.ClientID, simulator.KeySettings{IPAllowlist: []string{"10.0.0.1"}})
		}, func(c *raw, _ string) result { return c.get("nope", "/v1/assets", "") }, "invalid_token"},
		{"ip before environment", func(sim *simulator.Simulator, c *raw) {
			_ = sim.Keys.Set(c.creds.ClientID, simulator.KeySettings{IPAllowlist: []string{"10.0.0.1"}})
			_ = sim.Merchant.Set(simulator.MerchantSettings{Environment: simulator.Production})
		}, func(c *raw, tok string) result { return c.get(tok, "/v1/assets", "") }, "ip_not_allowed"},
		{"environment before merchant status", func(sim *simulator.Simulator, _ *raw) {
			_ = sim.Merchant.Set(simulator.MerchantSettings{Environment: simulator.Production, Status: simulator.MerchantFrozen})
		}, func(c *raw, tok string) result { return c.get(tok, "/v1/assets", "") }, "environment_mismatch"},
		{"merchant status before scope", func(sim *simulator.Simulator, c *raw) {
			_ = sim.Keys.Set(c.creds.ClientID, simulator.KeySettings{Scopes: []string{}})
			_ = sim.Merchant.Set(simulator.MerchantSettings{Status: simulator.MerchantClosed})
		}, func(c *raw, tok string) result { return c.get(tok, "/v1/assets", "") }, "merchant_disabled"},
		{"scope before signature", func(sim *simulator.Simulator, c *raw) {
			_ = sim.Keys.Set(c.creds.ClientID, simulator.KeySettings{Scopes: []string{"merchant:read"}})
		}, func(c *raw, tok string) result {
			return c.send("POST", "/v1/deposits", nil, authed(tok))
		}, "insufficient_scope"},
		{"signature before member", nil, func(c *raw, tok string) result {
			h := authed(tok)
			h.Set("X-On-Behalf-Of", "nobody")
			return c.send("POST", "/v1/deposits", nil, h)
		}, "invalid_signature"},
		{"member before idempotency", nil, func(c *raw, tok string) result {
			return c.write(tok, "POST", "/v1/deposits", "nobody", "", depositBody("o", "1"))
		}, "member_not_found"},
		{"platform-only precheck before idempotency", func(sim *simulator.Simulator, _ *raw) {
			_ = sim.Merchant.Set(simulator.MerchantSettings{Model: simulator.MerchantHosted})
		}, func(c *raw, tok string) result {
			return c.write(tok, "POST", "/v1/deposits", member1, "", depositBody("o", "1"))
		}, "insufficient_scope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, c := newRaw(t)
			tok := c.token()
			if tt.setup != nil {
				tt.setup(sim, c)
			}
			if r := tt.send(c, tok); r.code() != tt.code {
				t.Fatalf("want %s, got %v", tt.code, r)
			}
		})
	}
}

func TestNotFoundAndBadBodies(t *testing.T) {
	t.Parallel()
	_, c := newRaw(t)
	tok := c.token()
	for _, target := range []string{"/v1/nope", "/v2/assets", "/", "/v1/assets/extra"} {
		wantCode(t, c.get(tok, target, ""), 404, "not_found")
	}
	wantCode(t, c.send("DELETE", "/v1/assets", nil, authed(tok)), 404, "not_found")
	wantCode(t, c.send("GET", "/_sim/nope", nil, nil), 404, "not_found")

	big := make([]byte, 1<<20+1)
	for i := range big {
		big[i] = ' '
	}
	wantCode(t, c.write(tok, "POST", "/v1/deposits", member1, uuidN(1), big), 400, "invalid_request")
	wantCode(t, c.write(tok, "POST", "/v1/deposits", member1, uuidN(2), []byte(`{"asset":`)), 400, "invalid_request")
	wantCode(t, c.write(tok, "POST", "/v1/deposits", member1, uuidN(3), []byte(`["USDT"]`)), 400, "invalid_request")
	// The simulator keeps serving.
	wantStatus(t, c.get(tok, "/v1/assets", ""), 200)
	wantStatus(t, c.write(tok, "POST", "/v1/deposits", member1, uuidN(4), depositBody("after-bad", "1")), 201)
}

func TestRequestIDOnEveryResponse(t *testing.T) {
	t.Parallel()
	sim, c := newRaw(t)
	tok := c.token()
	if err := sim.Faults.Inject(simulator.Fault{Path: "/v1/members/*", Kind: simulator.FaultError, Status: 502}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range []result{
		c.exchangeToken(c.creds.ClientID, c.creds.APIKey),
		c.exchangeToken("x", "y"),
		c.get(tok, "/v1/assets", ""),
		c.get("bad", "/v1/assets", ""),
		c.get(tok, "/v1/nope", ""),
		c.get(tok, "/v1/members/mem_x", ""),
		c.write(tok, "POST", "/v1/deposits", member1, uuidN(1), depositBody("rid", "1")),
		c.write(tok, "POST", "/v1/deposits", member1, uuidN(1), depositBody("rid", "1")),
		c.control("GET", "/_sim/clock", nil),
		c.control("POST", "/_sim/nope/x/y", nil),
	} {
		id := r.header.Get("X-Request-Id")
		if r.err != nil || id == "" {
			t.Errorf("no X-Request-Id: %v", r)
		}
		if seen[id] {
			t.Errorf("request id %s repeated", id)
		}
		seen[id] = true
	}
}
