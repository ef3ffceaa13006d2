package exchange

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// TestAuthorize: each check of the caller refuses with the contract's code,
// in the order Serve lists, and a request that passes them all runs.
func TestAuthorize(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	read := &api.Endpoint{Method: "GET", Pattern: "/v1/cards", Scope: "cards:read", Handle: func(*api.Request) (int, any, error) {
		return 200, map[string]any{}, nil
	}}
	write := &api.Endpoint{Method: "POST", Pattern: "/v1/cards", Scope: "cards:read", Handle: read.Handle}
	deposits := &api.Endpoint{Method: "POST", Pattern: "/v1/deposits", Handle: read.Handle}
	tests := []struct {
		name   string
		change func(h *fakeHost)
		e      *api.Endpoint
		header map[string]string
		want   string
	}{
		{"passes", nil, read, nil, ""},
		{"no token", nil, read, map[string]string{"Authorization": ""}, "invalid_token"},
		{"x-auth-token", nil, read, map[string]string{"Authorization": "", "X-Auth-Token": "Bearer tok_1"}, ""},
		{"expired token", func(h *fakeHost) {
			tok := h.tokens["tok_1"]
			tok.ExpiresAt = h.now
			h.tokens["tok_1"] = tok
		}, read, nil, "invalid_token"},
		{"disabled key", func(h *fakeHost) { h.setKey(func(k *gateway.Key) { k.Disabled = true }) }, read, nil, "invalid_token"},
		{"address not allowed", func(h *fakeHost) { h.setKey(func(k *gateway.Key) { k.IPAllowlist = kernel.ListOf("10.9.9.9") }) }, read, nil, "ip_not_allowed"},
		{"other environment", func(h *fakeHost) { h.env = gateway.Production }, read, nil, "environment_mismatch"},
		{"suspended merchant reads", func(h *fakeHost) { h.status = "suspended" }, read, nil, ""},
		{"suspended merchant writes", func(h *fakeHost) { h.status = "suspended" }, write, nil, "merchant_disabled"},
		{"frozen merchant", func(h *fakeHost) { h.status = "frozen" }, read, nil, "merchant_disabled"},
		{"scope", func(h *fakeHost) { h.setKey(func(k *gateway.Key) { k.Scopes = kernel.ListOf("members:read") }) }, read, nil, "insufficient_scope"},
		{"unsigned deposit", nil, deposits, nil, "invalid_signature"},
		{"unsigned write of a signing key", func(h *fakeHost) { h.setKey(func(k *gateway.Key) { k.SignatureRequired = true }) }, write, nil, "invalid_signature"},
		{"unsigned write", nil, write, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newFakeHost(now)
			if tt.change != nil {
				tt.change(h)
			}
			p, _, _ := newPipeline(h)
			got := serve(p, tt.e, tt.e.Method, tt.e.Pattern, "", tt.header)
			var env struct{ Code string }
			_ = json.Unmarshal([]byte(got.Body), &env)
			if env.Code != tt.want {
				t.Errorf("answered %d %s, want code %q", got.Status, got.Body, tt.want)
			}
		})
	}
}

// setKey changes the fake's key.
func (h *fakeHost) setKey(change func(k *gateway.Key)) {
	k := h.keys["client_1"]
	change(&k)
	h.keys["client_1"] = k
}

// TestWriteQuota: with a quota of 2 per minute the third write is refused
// rate_limited with Retry-After; reads are never counted.
func TestWriteQuota(t *testing.T) {
	t.Parallel()
	h := newFakeHost(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	p, st, k := newPipeline(h)
	tx := k.BeginSetup()
	st.Quota.Set(tx, 2)
	tx.End()
	e := &api.Endpoint{Method: "POST", Pattern: "/v1/w", Handle: func(*api.Request) (int, any, error) { return 200, map[string]any{}, nil }}
	r := &api.Endpoint{Method: "GET", Pattern: "/v1/w", Handle: e.Handle}
	got := []int{
		serve(p, r, "GET", "/v1/w", "", nil).Status,
		serve(p, e, "POST", "/v1/w", "", nil).Status,
		serve(p, e, "POST", "/v1/w", "", nil).Status,
		serve(p, e, "POST", "/v1/w", "", nil).Status,
		serve(p, r, "GET", "/v1/w", "", nil).Status,
	}
	if diff := cmp.Diff([]int{200, 200, 200, 429, 200}, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
}

// TestResolveMember: x-on-behalf-of names a member by id or external id;
// blank, unknown, foreign and suspended members are refused.
func TestResolveMember(t *testing.T) {
	t.Parallel()
	h := newFakeHost(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	p, _, k := newPipeline(h)
	tx := k.Begin()
	defer tx.End()
	for v, want := range map[string]string{
		" mem_1 ": "", "m1": "", "": "member_context_required", "mem_2": "member_not_found", "mem_x": "member_not_found", "m2": "member_not_found",
	} {
		m, ae := p.ResolveMember(tx, v)
		got := ""
		if ae != nil {
			got = ae.Code
		} else if m.ID != "mem_1" {
			t.Errorf("%q: member %s", v, m.ID)
		}
		if got != want {
			t.Errorf("%q: code %q, want %q", v, got, want)
		}
	}
}
