package gateway

import (
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

func TestCheckSignature(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"a":1}`)
	ts := strconv.FormatInt(now.Unix(), 10)
	good := Sign("sk", "POST", "/v1/deposits", ts, "n1", body)
	tests := []struct {
		name           string
		ts, nonce, sig string
		wantCode       string
	}{
		{"good", ts, "n1", good, ""},
		{"no nonce", ts, "", good, "invalid_signature"},
		{"not seconds", "17e8", "n1", good, "invalid_signature"},
		{"too old", strconv.FormatInt(now.Unix()-301, 10), "n1", good, "timestamp_out_of_range"},
		{"edge of the window", strconv.FormatInt(now.Unix()+300, 10), "n1", Sign("sk", "POST", "/v1/deposits", strconv.FormatInt(now.Unix()+300, 10), "n1", body), ""},
		{"other nonce", ts, "n2", good, "invalid_signature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/v1/deposits", strings.NewReader(string(body)))
			r.Header.Set("X-Timestamp", tt.ts)
			r.Header.Set("X-Nonce", tt.nonce)
			r.Header.Set("X-Signature", tt.sig)
			code, message, problem := CheckSignature(r, "sk", body, now)
			if code != tt.wantCode {
				t.Fatalf("code %q (%s: %s), want %q", code, message, problem, tt.wantCode)
			}
			if (code == "") != (message == "" && problem == "") {
				t.Errorf("code %q with message %q and problem %q", code, message, problem)
			}
		})
	}
}

func TestConsumeNonce(t *testing.T) {
	t.Parallel()
	var k kernel.Kernel
	g := NewState(&k, 1, nil, StoreCaps{Nonces: 2}, 10)
	tx := k.Begin()
	defer tx.End()
	now := time.Unix(1_800_000_000, 0)
	var got []string
	for _, step := range []struct {
		env, nonce string
		at         time.Duration
	}{
		{"sandbox", "a", 0}, {"sandbox", "a", time.Minute}, {"production", "a", time.Minute},
		{"sandbox", "b", 2 * time.Minute}, {"sandbox", "a", NonceWindow},
	} {
		code := ""
		if ae := g.ConsumeNonce(tx, step.env, step.nonce, now.Add(step.at)); ae != nil {
			code = ae.Code
		}
		got = append(got, code)
	}
	// A nonce is kept per environment; the third finds the store full (cap
	// 2), and so does the first once its window has passed, until a sweep
	// removes it.
	want := []string{"", "nonce_reused", "", "service_unavailable", "service_unavailable"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
}

func TestExchangeRate(t *testing.T) {
	t.Parallel()
	var k kernel.Kernel
	g := NewState(&k, 1, nil, StoreCaps{}, 10)
	tx := k.Begin()
	defer tx.End()
	now := time.Unix(1_800_000_000, 0)
	values := map[string]bool{}
	for i := range TokenExchangesPerMinute {
		recent, ae := g.ExchangeRate(tx, "c1", now.Add(time.Duration(i)*time.Second))
		if ae != nil {
			t.Fatalf("exchange %d refused: %v", i+1, ae)
		}
		values[g.TokenValue(tx, "c1", recent, now.Add(time.Duration(i)*time.Second))] = true
	}
	if len(values) != TokenExchangesPerMinute {
		t.Errorf("%d distinct token values of %d", len(values), TokenExchangesPerMinute)
	}
	_, ae := g.ExchangeRate(tx, "c1", now.Add(30*time.Second))
	if ae == nil || ae.Code != "rate_limited" || ae.Header["Retry-After"] != "30" {
		t.Fatalf("over the quota: %+v, want rate_limited after 30s", ae)
	}
	if _, ae := g.ExchangeRate(tx, "c2", now); ae != nil {
		t.Errorf("another client refused: %v", ae)
	}
	if _, ae := g.ExchangeRate(tx, "c1", now.Add(time.Minute)); ae != nil {
		t.Errorf("refused once the oldest left the minute: %v", ae)
	}
}
