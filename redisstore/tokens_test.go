package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/redisstore"
)

func TestTokenStoreContract(t *testing.T) {
	t.Parallel()
	store, rdb := newStore(t, redisstore.Options{})
	tokens := store.Tokens()
	ctx := context.Background()
	key := "client-1:abcdef"
	if _, ok, err := tokens.Load(ctx, key); err != nil || ok {
		t.Fatalf("empty store: ok %v err %v", ok, err)
	}
	exp := time.Unix(1_800_000_000, 0)
	tok := mwallet.AccessToken{Value: "tok-SECRET-1", ExpiresAt: exp, RefreshAt: exp.Add(-time.Minute)}
	if err := tokens.Store(ctx, key, tok, 30*time.Minute); err != nil {
		t.Fatal(err)
	}
	got, ok, err := tokens.Load(ctx, key)
	if err != nil || !ok || got != tok {
		t.Fatalf("Load = %v %v %v, want %v", got, ok, err, tok)
	}
	// The key expires with the token.
	ttl, err := rdb.PTTL(ctx, store.Prefix()+"token:"+key).Result()
	if err != nil || ttl <= 0 || ttl > 30*time.Minute {
		t.Fatalf("PTTL = %v, %v; want within 30 minutes", ttl, err)
	}
	// Invalidate compares the value.
	if err := tokens.Invalidate(ctx, key, "tok-other"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := tokens.Load(ctx, key); !ok {
		t.Fatal("invalidating another value dropped the token")
	}
	if err := tokens.Invalidate(ctx, key, "tok-SECRET-1"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := tokens.Load(ctx, key); ok {
		t.Fatal("token not invalidated")
	}
	// Damaged values read as absent.
	rdb.Set(ctx, store.Prefix()+"token:"+key, "not json", time.Minute)
	if _, ok, err := tokens.Load(ctx, key); ok || err != nil {
		t.Fatalf("damaged value: ok %v err %v", ok, err)
	}

	// Lock: one holder; unlock releases only the holder's own lock.
	unlockA, ok, err := tokens.Lock(ctx, key, 10*time.Second)
	if err != nil || !ok {
		t.Fatalf("Lock: %v %v", ok, err)
	}
	if _, ok, _ := tokens.Lock(ctx, key, 10*time.Second); ok {
		t.Fatal("lock taken twice")
	}
	lockKey := store.Prefix() + "token-lock:" + key
	if ttl, _ := rdb.PTTL(ctx, lockKey).Result(); ttl <= 0 || ttl > 10*time.Second {
		t.Fatalf("lock PTTL %v", ttl)
	}
	rdb.Del(ctx, lockKey) // A's lock expires (A is slow or dead)
	unlockB, ok, _ := tokens.Lock(ctx, key, 10*time.Second)
	if !ok {
		t.Fatal("expired lock not taken over")
	}
	if err := unlockA(ctx); err != nil {
		t.Fatal(err)
	}
	if n, _ := rdb.Exists(ctx, lockKey).Result(); n != 1 {
		t.Fatal("A's late unlock released B's lock")
	}
	if err := unlockB(ctx); err != nil {
		t.Fatal(err)
	}
	if n, _ := rdb.Exists(ctx, lockKey).Result(); n != 0 {
		t.Fatal("B's unlock left the lock")
	}
}

// The stored value is the token, but nothing else about the store prints
// or returns it.
func TestTokenValueNeverInErrors(t *testing.T) {
	t.Parallel()
	store, _ := newStore(t, redisstore.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := store.Tokens().Store(ctx, "k", mwallet.AccessToken{Value: "tok-SECRET-9", ExpiresAt: time.Now().Add(time.Hour)}, time.Hour)
	if err == nil || !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "tok-SECRET") {
		t.Fatalf("err = %v", err)
	}
}

// Instances of one backend start at the same moment against one service.
func TestFleetCausesOneTokenExchange(t *testing.T) {
	t.Parallel()
	for _, n := range []int{20, 50} {
		t.Run(fmt.Sprintf("%d instances", n), func(t *testing.T) {
			t.Parallel()
			sim := newSim(t)
			store, _ := newStore(t, redisstore.Options{})
			clients := make([]*mwclient.Client, n)
			for i := range clients {
				clients[i] = sim.Client(mwallet.WithTokenStore(store.Tokens()))
			}
			if errs := startTogether(clients); len(errs) != 0 {
				t.Fatalf("%d instances failed, first: %v", len(errs), errs[0])
			}
			if total, _ := exchanges(sim); total != 1 {
				t.Fatalf("%d instances made %d token exchanges, want 1", n, total)
			}
			if got := len(requestsTo(sim, "GET", "/v1/assets")); got != n {
				t.Fatalf("assets calls = %d, want %d", got, n)
			}
			// Inside the refresh margin one instance replaces the token;
			// the others keep using the valid one or read the new one.
			sim.Clock.Advance(29*time.Minute + 30*time.Second)
			if errs := startTogether(clients); len(errs) != 0 {
				t.Fatalf("after refresh %d instances failed, first: %v", len(errs), errs[0])
			}
			if total, _ := exchanges(sim); total != 2 {
				t.Fatalf("refresh: %d token exchanges in all, want 2", total)
			}
		})
	}
}

// Without a shared store each instance exchanges, and the Key's 20 exchanges
// per minute are not enough for 50 instances: the problem the store solves.
func TestWithoutSharedStoreTheFleetIsRateLimited(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	const n = 50
	clients := make([]*mwclient.Client, n)
	for i := range clients {
		clients[i] = sim.Client(mwallet.WithMaxRetryAfter(0))
	}
	errs := startTogether(clients)
	limited := 0
	for _, err := range errs {
		if mwallet.CodeOf(err) == mwallet.CodeRateLimited {
			limited++
		}
	}
	total, ok := exchanges(sim)
	if total != n || ok != 20 || limited != n-20 || len(errs) != n-20 {
		t.Fatalf("exchanges %d (%d granted), %d rate_limited of %d errors; want %d, 20, %d", total, ok, limited, len(errs), n, n-20)
	}
}

// startTogether releases one call per client at the same moment and
// returns the errors.
func startTogether(clients []*mwclient.Client) []error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := make(chan struct{})
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if err := getAssets(ctx, c); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	close(start)
	wg.Wait()
	return errs
}

// An instance took the exchange lock and died: the others wait for the
// lock's TTL, then one of them exchanges.
func TestCrashedLockHolderDoesNotBlockTheFleet(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	store, rdb := newStore(t, redisstore.Options{})
	clients := make([]*mwclient.Client, 5)
	for i := range clients {
		clients[i] = sim.Client(mwallet.WithTokenStore(store.Tokens()))
	}
	ctx := context.Background()
	key := clients[0].TokenStoreKey()
	// The dead holder took the lock with a short TTL and never unlocks.
	if _, ok, err := store.Tokens().Lock(ctx, key, 300*time.Millisecond); err != nil || !ok {
		t.Fatalf("Lock: %v %v", ok, err)
	}
	if ttl, _ := rdb.PTTL(ctx, store.Prefix()+"token-lock:"+key).Result(); ttl <= 0 {
		t.Fatalf("lock not held: PTTL %v", ttl)
	}
	if errs := startTogether(clients); len(errs) != 0 {
		t.Fatalf("%d instances failed, first: %v", len(errs), errs[0])
	}
	if total, _ := exchanges(sim); total != 1 {
		t.Fatalf("token exchanges = %d, want 1 after the dead holder's lock expired", total)
	}
}

// A waiting instance gives up when its context ends, with a clear error.
func TestWaitForLockHolderEndsWithContext(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	store, _ := newStore(t, redisstore.Options{})
	c := sim.Client(mwallet.WithTokenStore(store.Tokens()))
	if _, ok, err := store.Tokens().Lock(context.Background(), c.TokenStoreKey(), time.Minute); err != nil || !ok {
		t.Fatalf("Lock: %v %v", ok, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := getAssets(ctx, c)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "token") {
		t.Fatalf("err = %v, want the context's deadline while waiting for the token", err)
	}
	if total, _ := exchanges(sim); total != 0 {
		t.Fatalf("exchanged while another instance held the lock: %d", total)
	}
}
