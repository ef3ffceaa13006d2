package mwallet

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// storeClock is a manual clock for MemoryTokenStore lock and token expiry.
func storeWithClock() (*MemoryTokenStore, *testClock) {
	clk := newTestClock()
	s := NewMemoryTokenStore()
	s.now = clk.Now
	return s, clk
}

func TestMemoryTokenStoreLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, clk := storeWithClock()
	unlock, ok, err := s.Lock(ctx, "k", 10*time.Second)
	if err != nil || !ok {
		t.Fatalf("first Lock: %v %v", ok, err)
	}
	if _, ok, _ := s.Lock(ctx, "k", 10*time.Second); ok {
		t.Fatal("a held lock was taken twice")
	}
	if _, ok, _ := s.Lock(ctx, "other", 10*time.Second); !ok {
		t.Fatal("locks of different keys must not collide")
	}
	if err := unlock(ctx); err != nil {
		t.Fatal(err)
	}
	unlock2, ok, _ := s.Lock(ctx, "k", 10*time.Second)
	if !ok {
		t.Fatal("a released lock could not be taken")
	}
	// The holder crashes: after the TTL another caller takes over, and the
	// old holder's late unlock leaves the new holder's lock alone.
	clk.Advance(10 * time.Second)
	_, ok, _ = s.Lock(ctx, "k", 10*time.Second)
	if !ok {
		t.Fatal("an expired lock could not be taken over")
	}
	if err := unlock2(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Lock(ctx, "k", 10*time.Second); ok {
		t.Fatal("a stale unlock released the new holder's lock")
	}
}

func TestMemoryTokenStoreExpiry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, clk := storeWithClock()
	tok := AccessToken{Value: "tok-SECRET", ExpiresAt: clk.Now().Add(time.Minute), RefreshAt: clk.Now().Add(54 * time.Second)}
	if err := s.Store(ctx, "k", tok, time.Minute); err != nil {
		t.Fatal(err)
	}
	if got, ok, _ := s.Load(ctx, "k"); !ok || got != tok {
		t.Fatalf("Load = %v %v", got, ok)
	}
	clk.Advance(time.Minute)
	if _, ok, _ := s.Load(ctx, "k"); ok {
		t.Fatal("token kept past its ttl")
	}
	if err := s.Store(ctx, "k", tok, 0); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Load(ctx, "k"); ok {
		t.Fatal("a zero ttl stored the token")
	}
}

// countingStore wraps a TokenStore and reports refused locks.
type countingStore struct {
	TokenStore
	refused chan struct{}
}

func (c *countingStore) Lock(ctx context.Context, key string, ttl time.Duration) (func(context.Context) error, bool, error) {
	unlock, ok, err := c.TokenStore.Lock(ctx, key, ttl)
	if err == nil && !ok {
		select {
		case c.refused <- struct{}{}:
		default:
		}
	}
	return unlock, ok, err
}

func TestFleetSharesOneExchange(t *testing.T) {
	t.Parallel()
	const instances = 20
	f := newFakeAPI(t)
	release := make(chan struct{})
	f.tokenHandler = func(w http.ResponseWriter, r *http.Request, n int64) {
		<-release
		f.mu.Lock()
		f.valid["tok-SECRET-fleet"] = true
		f.mu.Unlock()
		writeTestJSON(w, 200, map[string]any{"auth_token": "tok-SECRET-fleet", "expired_at": f.clock.Now().Add(30 * time.Minute).Unix(), "token_type": "Bearer"})
	}
	shared := &countingStore{TokenStore: NewMemoryTokenStore(), refused: make(chan struct{}, 1)}
	clients := make([]*Client, instances)
	for i := range clients {
		clients[i] = f.client(WithTokenStore(shared))
	}
	var wg sync.WaitGroup
	errs := make(chan error, instances)
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "/v1/x"}, nil)
			errs <- err
		}()
	}
	<-shared.refused // at least one instance is waiting on the lock holder
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := f.exchanges.Load(); n != 1 {
		t.Fatalf("%d instances caused %d token exchanges, want 1", instances, n)
	}
}

func TestCrashedLockHolderDoesNotBlock(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	mem, clk := storeWithClock()
	shared := &countingStore{TokenStore: mem, refused: make(chan struct{}, 1)}
	c := f.client(WithTokenStore(shared))
	// Another instance took the lock and died without releasing it.
	if _, ok, err := mem.Lock(context.Background(), c.TokenStoreKey(), TokenLockTTL); err != nil || !ok {
		t.Fatalf("Lock: %v %v", ok, err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "/v1/x"}, nil)
		done <- err
	}()
	<-shared.refused
	if n := f.exchanges.Load(); n != 0 {
		t.Fatalf("exchanged while the lock was held: %d", n)
	}
	clk.Advance(TokenLockTTL) // the dead holder's lock expires
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := f.exchanges.Load(); n != 1 {
		t.Fatalf("exchanges = %d, want 1", n)
	}
}

func TestWaiterUsesValidTokenDuringRefresh(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	store := NewMemoryTokenStore()
	c := f.client(WithTokenStore(store))
	ctx := context.Background()
	f.mu.Lock()
	f.valid["tok-SECRET-old"] = true
	f.mu.Unlock()
	now := f.clock.Now()
	// Due for refresh but valid for 30 more seconds; another instance
	// holds the lock and is refreshing.
	old := AccessToken{Value: "tok-SECRET-old", ExpiresAt: now.Add(30 * time.Second), RefreshAt: now.Add(-30 * time.Second)}
	if err := store.Store(ctx, c.TokenStoreKey(), old, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := store.Lock(ctx, c.TokenStoreKey(), TokenLockTTL); !ok {
		t.Fatal("Lock")
	}
	if _, err := c.Do(ctx, &Request{Method: http.MethodGet, Path: "/v1/x"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := f.recorded()[0].Header.Get("X-Auth-Token"); got != "Bearer tok-SECRET-old" || f.exchanges.Load() != 0 {
		t.Fatalf("used %q after %d exchanges; want the still-valid shared token and none", got, f.exchanges.Load())
	}
}

func TestClientRefreshesFromTheStore(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	store := NewMemoryTokenStore()
	a, b := f.client(WithTokenStore(store)), f.client(WithTokenStore(store))
	ctx := context.Background()
	get := func(c *Client) string {
		t.Helper()
		if _, err := c.Do(ctx, &Request{Method: http.MethodGet, Path: "/v1/x"}, nil); err != nil {
			t.Fatal(err)
		}
		reqs := f.recorded()
		return reqs[len(reqs)-1].Header.Get("X-Auth-Token")
	}
	if get(a) != "Bearer tok-SECRET-1" || get(b) != "Bearer tok-SECRET-1" {
		t.Fatal("not shared")
	}
	f.clock.Advance(29*time.Minute + 30*time.Second) // inside the refresh margin
	if tok := get(b); tok != "Bearer tok-SECRET-2" {
		t.Fatalf("b did not refresh: %q", tok)
	}
	// a's local copy is due too: it reads b's new token instead of
	// exchanging again.
	if tok := get(a); tok != "Bearer tok-SECRET-2" {
		t.Fatalf("a used %q", tok)
	}
	if n := f.exchanges.Load(); n != 2 {
		t.Fatalf("exchanges = %d, want 2", n)
	}
	// invalid_token: the dead token leaves the store, one new exchange.
	f.revokeAll()
	if tok := get(a); tok != "Bearer tok-SECRET-3" {
		t.Fatalf("after revocation a used %q", tok)
	}
	if tok := get(b); tok != "Bearer tok-SECRET-3" {
		t.Fatalf("after revocation b used %q", tok)
	}
	if n := f.exchanges.Load(); n != 3 {
		t.Fatalf("exchanges = %d, want 3", n)
	}
}

// brokenStore fails every call.
type brokenStore struct{}

var errStoreDown = errors.New("store down: dial tcp 127.0.0.1:1: connection refused")

func (brokenStore) Load(context.Context, string) (AccessToken, bool, error) {
	return AccessToken{}, false, errStoreDown
}
func (brokenStore) Store(context.Context, string, AccessToken, time.Duration) error {
	return errStoreDown
}
func (brokenStore) Invalidate(context.Context, string, Secret) error { return errStoreDown }
func (brokenStore) Lock(context.Context, string, time.Duration) (func(context.Context) error, bool, error) {
	return nil, false, errStoreDown
}

func TestTokenStoreOutageFallsBackToOwnExchange(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	var logs syncBuffer
	c := f.client(WithTokenStore(brokenStore{}), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	for range 3 {
		if _, err := c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "/v1/x"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.exchanges.Load(); n != 1 {
		t.Errorf("exchanges = %d, want 1 (the token is kept locally)", n)
	}
	out := logs.String()
	if !strings.Contains(out, "token store load failed") || !strings.Contains(out, "connection refused") {
		t.Errorf("no warning about the store: %s", out)
	}
	if strings.Contains(out, "tok-SECRET") {
		t.Errorf("the log shows the token: %s", out)
	}
}
