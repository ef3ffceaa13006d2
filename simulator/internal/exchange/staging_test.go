package exchange

import (
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
)

// TestSign: a request is signed with the key's signing key at the clock;
// an unknown key or a request without a method and path is refused.
func TestSign(t *testing.T) {
	t.Parallel()
	h := newFakeHost(time.Unix(1_800_000_000, 0))
	p, _, k := newPipeline(h)
	tx := k.Begin()
	defer tx.End()
	ts, nonce, sig, err := p.Sign(tx, "client_1", " post ", "/v1/x", "n1", []byte("{}"))
	if err != nil || ts != "1800000000" || nonce != "n1" || sig != gateway.Sign("sk", "POST", "/v1/x", ts, "n1", []byte("{}")) {
		t.Errorf("Sign = %q %q %q %v", ts, nonce, sig, err)
	}
	if _, fresh, _, _ := p.Sign(tx, "client_1", "GET", "/v1/x", "", nil); len(fresh) != 32 {
		t.Errorf("fresh nonce %q", fresh)
	}
	for _, tt := range []struct{ client, method, target, want string }{
		{"client_2", "GET", "/v1/x", "not_found"},
		{"client_1", "", "/v1/x", "invalid_request"},
		{"client_1", "GET", "v1/x", "invalid_request"},
	} {
		_, _, _, err := p.Sign(tx, tt.client, tt.method, tt.target, "", nil)
		if ae, ok := err.(*api.Error); !ok || ae.Code != tt.want {
			t.Errorf("%+v: %v, want %s", tt, err, tt.want)
		}
	}
}

// TestStartInProgress: a staged key answers idempotency_in_progress to a
// request with it; the arguments are checked first.
func TestStartInProgress(t *testing.T) {
	t.Parallel()
	h := newFakeHost(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	p, _, k := newPipeline(h)
	key := "123e4567-e89b-12d3-a456-426614174000"
	tx := k.Begin()
	for _, tt := range []struct {
		method, target, key string
		d                   time.Duration
		want                string
	}{
		{"GET", "/v1/w", key, time.Minute, "invalid_request"},
		{"POST", "/_sim/w", key, time.Minute, "invalid_request"},
		{"POST", "/v1/w", "nope", time.Minute, "invalid_request"},
		{"POST", "/v1/w", key, 0, "invalid_request"},
		{"post", "/v1/w?x=1", key, time.Minute, ""},
	} {
		err := p.StartInProgress(tx, tt.method, tt.target, tt.key, []byte("{}"), tt.d)
		got := ""
		if ae, ok := err.(*api.Error); ok {
			got = ae.Code
		} else if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%+v: %q", tt, got)
		}
	}
	tx.End()
	e := &api.Endpoint{Method: "POST", Pattern: "/v1/w", Idempotent: true, Handle: func(*api.Request) (int, any, error) { return 200, map[string]any{}, nil }}
	if got := serve(p, e, "POST", "/v1/w", "{}", map[string]string{"X-Idempotency-Key": key}); got.Status != 409 {
		t.Errorf("staged key answered %+v", got)
	}
}
