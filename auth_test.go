package mwallet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestColdClientSharesOneTokenExchange(t *testing.T) {
	t.Parallel()
	for _, n := range []int{100, 1000} {
		t.Run("", func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			release := make(chan struct{})
			f.tokenHandler = func(w http.ResponseWriter, r *http.Request, k int64) {
				<-release // hold the exchange until every caller is waiting
				f.mu.Lock()
				f.valid["tok-SECRET-shared"] = true
				f.mu.Unlock()
				writeTestJSON(w, 200, map[string]any{"auth_token": "tok-SECRET-shared", "expired_at": f.clock.Now().Add(30 * time.Minute).Unix(), "token_type": "Bearer"})
			}
			c := f.client()
			var wg sync.WaitGroup
			var started sync.WaitGroup
			errs := make(chan error, n)
			started.Add(n)
			for i := 0; i < n; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					started.Done()
					_, err := c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "/v1/assets"}, nil)
					errs <- err
				}()
			}
			started.Wait()
			close(release)
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatalf("Do: %v", err)
				}
			}
			if got := f.exchanges.Load(); got != 1 {
				t.Fatalf("%d goroutines caused %d token exchanges, want 1", n, got)
			}
			if got := len(f.recorded()); got != n {
				t.Fatalf("business requests = %d, want %d", got, n)
			}
		})
	}
}

func TestTokenCachedAndRefreshedBeforeExpiry(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	c := f.client()
	get := func() string {
		t.Helper()
		if _, err := c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "/v1/x"}, nil); err != nil {
			t.Fatal(err)
		}
		reqs := f.recorded()
		return reqs[len(reqs)-1].Header.Get("X-Auth-Token")
	}
	if tok := get(); tok != "Bearer tok-SECRET-1" {
		t.Fatalf("first token %q", tok)
	}
	f.clock.Advance(20 * time.Minute)
	if tok := get(); tok != "Bearer tok-SECRET-1" {
		t.Fatalf("token not reused within its validity: %q", tok)
	}
	// 30 s before expired_at: inside the refresh margin, a new token is used
	// before the old one can expire in flight.
	f.clock.Advance(9*time.Minute + 30*time.Second)
	if tok := get(); tok != "Bearer tok-SECRET-2" {
		t.Fatalf("token not refreshed inside the margin: %q", tok)
	}
	// Past expired_at of the second token.
	f.clock.Advance(31 * time.Minute)
	if tok := get(); tok != "Bearer tok-SECRET-3" {
		t.Fatalf("expired token used: %q", tok)
	}
	if got := f.exchanges.Load(); got != 3 {
		t.Errorf("exchanges = %d, want 3", got)
	}
}

func TestInvalidTokenReexchangesOnce(t *testing.T) {
	t.Parallel()
	t.Run("recovers", func(t *testing.T) {
		t.Parallel()
		f := newFakeAPI(t)
		c := f.client()
		if _, err := c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "/v1/x"}, nil); err != nil {
			t.Fatal(err)
		}
		f.revokeAll() // the Key was rotated server-side; the cached token is dead
		resp, err := c.Do(context.Background(), &Request{Method: http.MethodPost, Path: "/v1/x", Idempotent: true, Body: map[string]int{"a": 1}}, nil)
		if err != nil {
			t.Fatalf("Do: %v", err)
		}
		if f.exchanges.Load() != 2 {
			t.Errorf("exchanges = %d, want 2", f.exchanges.Load())
		}
		reqs := f.recorded()
		if len(reqs) != 3 || resp.Attempts != 2 {
			t.Fatalf("requests = %d, attempts = %d; want 3 and 2", len(reqs), resp.Attempts)
		}
		a, b := reqs[1].Header, reqs[2].Header
		if a.Get("X-Idempotency-Key") != b.Get("X-Idempotency-Key") || a.Get("X-Nonce") == b.Get("X-Nonce") {
			t.Errorf("the resend must keep the key and change the nonce")
		}
		if b.Get("X-Auth-Token") != "Bearer tok-SECRET-2" {
			t.Errorf("resend used %q", b.Get("X-Auth-Token"))
		}
	})
	t.Run("gives up after one", func(t *testing.T) {
		t.Parallel()
		f := newFakeAPI(t)
		f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
			writeTestJSON(w, 401, errBody("invalid_token"))
		}
		c := f.client()
		_, err := c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "/v1/x"}, nil)
		if CodeOf(err) != CodeInvalidToken {
			t.Fatalf("err = %v, want invalid_token", err)
		}
		if f.exchanges.Load() != 2 || len(f.recorded()) != 2 {
			t.Errorf("exchanges = %d, requests = %d; want 2 and 2", f.exchanges.Load(), len(f.recorded()))
		}
	})
}

func TestInvalidCredentialsIsFinal(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	c, err := New(f.url, Credentials{ClientID: testClientID, APIKey: "wrong-key", SigningKey: Secret(testSigningKey)},
		WithHTTPClient(f.hc), WithRetryBackoff(time.Millisecond, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "/v1/x"}, nil)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalidCredentials || e.HTTPStatus != 401 || e.RequestID != "req_tok" {
		t.Fatalf("err = %v, want invalid_credentials with its request id", err)
	}
	if f.exchanges.Load() != 1 || len(f.recorded()) != 0 {
		t.Errorf("exchanges = %d, requests = %d; want 1 and 0", f.exchanges.Load(), len(f.recorded()))
	}
}

func TestTokenExchangeRetriesRateLimited(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.tokenHandler = func(w http.ResponseWriter, r *http.Request, n int64) {
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			writeTestJSON(w, 429, errBody("rate_limited"))
			return
		}
		f.mu.Lock()
		f.valid["tok-SECRET-x"] = true
		f.mu.Unlock()
		writeTestJSON(w, 200, map[string]any{"auth_token": "tok-SECRET-x", "expired_at": f.clock.Now().Add(30 * time.Minute).Unix(), "token_type": "Bearer"})
	}
	c := f.client()
	if _, err := c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "/v1/x"}, nil); err != nil {
		t.Fatalf("Do: %v", err)
	}
	if f.exchanges.Load() != 2 {
		t.Errorf("exchanges = %d, want 2", f.exchanges.Load())
	}
}

func TestTokenExchangeLimiter(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		writeTestJSON(w, 401, errBody("invalid_token"))
	}
	// One exchange per minute and a burst of one: the second exchange would
	// wait about a minute, longer than the call's deadline allows (5 s
	// away, and never passing: the limiter decides the same however slowly
	// the test runs).
	c := f.client(WithTokenExchangeLimit(1))
	_, err := c.Do(withDeadlineOnly(5*time.Second), &Request{Method: http.MethodGet, Path: "/v1/x"}, nil)
	if err == nil || !strings.Contains(err.Error(), "token exchange limit") {
		t.Fatalf("err = %v, want the limiter to refuse the second exchange", err)
	}
	if f.exchanges.Load() != 1 {
		t.Errorf("exchanges = %d, want 1", f.exchanges.Load())
	}
}

func TestTokenWaitEndsWithContext(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	block := make(chan struct{})
	entered := make(chan struct{}, 1)
	t.Cleanup(func() { close(block) })
	f.tokenHandler = func(w http.ResponseWriter, r *http.Request, n int64) {
		entered <- struct{}{}
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}
	c := f.client()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-entered
		cancel()
	}()
	_, err := c.Do(ctx, &Request{Method: http.MethodGet, Path: "/v1/x"}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// Two clients over one token store share the token: the store seam is what a
// cache shared between processes implements.
func TestTokenStoreSeam(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	store := NewMemoryTokenStore()
	a := f.client(WithTokenStore(store))
	b := f.client(WithTokenStore(store))
	for _, c := range []*Client{a, b, a} {
		if _, err := c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "/v1/x"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.exchanges.Load(); n != 1 {
		t.Errorf("exchanges = %d, want 1 for two clients sharing a store", n)
	}
	key := a.TokenStoreKey()
	if key != b.TokenStoreKey() || !strings.HasPrefix(key, testClientID+":") {
		t.Fatalf("token keys %q and %q", key, b.TokenStoreKey())
	}
	ctx := context.Background()
	tok, ok, err := store.Load(ctx, key)
	if err != nil || !ok || tok.Value.Reveal() != "tok-SECRET-1" {
		t.Fatalf("store holds %v %v %v", tok, ok, err)
	}
	if want := f.clock.Now().Add(30 * time.Minute); !tok.ExpiresAt.Equal(want) || !tok.RefreshAt.Equal(want.Add(-time.Minute)) {
		t.Errorf("expires %s refresh %s, want %s and a minute before", tok.ExpiresAt, tok.RefreshAt, want)
	}
	if s := fmt.Sprintf("%v %+v %#v %s", tok, tok, tok, mustJSON(t, tok)); strings.Contains(s, "tok-SECRET") {
		t.Errorf("a stored token prints its value: %s", s)
	}
	if err := store.Invalidate(ctx, key, "some-other-token"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := store.Load(ctx, key); !ok {
		t.Errorf("invalidating another value dropped the token")
	}
	if err := store.Invalidate(ctx, key, "tok-SECRET-1"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := store.Load(ctx, key); ok {
		t.Errorf("token not dropped")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
