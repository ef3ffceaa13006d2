package redisstore_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/redisstore"
)

// logSink collects log output.
type logSink struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logSink) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Redis stops in the middle of the work: every store call fails with a
// clear error within its bound, nothing hangs or panics, and the SDK reacts
// as documented.
func TestRedisStoppingMidTest(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := redis.NewClient(redisOptions(&redis.Options{Addr: srv.addr}))
	t.Cleanup(func() { _ = rdb.Close() })
	store := redisstore.New(rdb, redisstore.Options{Prefix: "mwallet:outage:", Timeout: 2 * time.Second})
	sim := newSim(t)
	ctx := context.Background()

	// Working: the fleet token is stored, a deposit goes through.
	healthy := sim.Client(mwallet.WithTokenStore(store.Tokens()), mwallet.WithPendingStore(store.Pending()))
	if err := getAssets(ctx, healthy); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := store.Tokens().Load(ctx, healthy.TokenStoreKey()); err != nil || !ok {
		t.Fatalf("token not shared: %v %v", ok, err)
	}

	srv.stop()

	tokens, pending, dedupe := store.Tokens(), store.Pending(), store.Deduper()
	ops := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"token load", func(ctx context.Context) error { _, _, err := tokens.Load(ctx, "k"); return err }},
		{"token store", func(ctx context.Context) error {
			return tokens.Store(ctx, "k", mwallet.AccessToken{Value: "tok-SECRET-x", ExpiresAt: time.Now().Add(time.Hour)}, time.Hour)
		}},
		{"token invalidate", func(ctx context.Context) error { return tokens.Invalidate(ctx, "k", "tok-SECRET-x") }},
		{"token lock", func(ctx context.Context) error { _, _, err := tokens.Lock(ctx, "k", time.Second); return err }},
		{"pending put", func(ctx context.Context) error {
			return pending.Put(ctx, mwallet.PendingRequest{Key: mwallet.NewIdempotencyKey(), CreatedAt: time.Now()})
		}},
		{"pending delete", func(ctx context.Context) error { return pending.Delete(ctx, "k") }},
		{"pending list", func(ctx context.Context) error { _, err := pending.List(ctx); return err }},
		{"dedupe claim", func(ctx context.Context) error {
			_, err := dedupe.Claim(ctx, "evt_1", time.Now(), time.Minute)
			return err
		}},
		{"dedupe done", func(ctx context.Context) error { return dedupe.Done(ctx, "evt_1", time.Now()) }},
		{"dedupe release", func(ctx context.Context) error { return dedupe.Release(ctx, "evt_1", "token") }},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := op.call(ctx)
			if err == nil {
				t.Fatal("no error with Redis down")
			}
			if ctx.Err() != nil {
				t.Fatalf("the call ran into the test's own deadline: %v", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "redisstore: "+op.name) || !strings.Contains(msg, "mwallet:outage:") || strings.Contains(msg, "tok-SECRET") {
				t.Fatalf("error %q: want the operation and key named, no token", msg)
			}
		})
	}

	// The SDK on a dead store.
	var logs logSink
	fresh := sim.Client(mwallet.WithTokenStore(tokens), mwallet.WithPendingStore(pending),
		mwallet.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	// Tokens: the client falls back to its own exchange and warns.
	if err := getAssets(cctx, fresh); err != nil {
		t.Fatalf("a token store outage stopped a read: %v", err)
	}
	if out := logs.String(); !strings.Contains(out, "token store load failed") || strings.Contains(out, "tok_") {
		t.Fatalf("log: %s", out)
	}
	// Pending: an idempotent write is refused before anything is sent.
	amount, _ := money.Parse("1", 6)
	_, err := fresh.Deposits.Create(cctx, member1, deposits.CreateParams{Asset: "USDC", Amount: amount, Reference: "outage-1"})
	if err == nil || !strings.Contains(err.Error(), "nothing was sent") || !strings.Contains(err.Error(), "redisstore: pending put") {
		t.Fatalf("Create: %v, want the pending store error", err)
	}
	if cctx.Err() != nil {
		t.Fatal("the write waited for the test's deadline")
	}
	if n := len(requestsTo(sim, http.MethodPost, "/v1/deposits")); n != 0 {
		t.Fatalf("%d deposits sent without a pending record", n)
	}
	// Webhooks: the handler answers 500 so the service redelivers later.
	const secret = "whsec_outage_0123456789"
	in := newInstance(secret, dedupe, time.Now)
	body, header := signedDelivery(secret, "evt_outage_1", time.Now())
	r := httptest.NewRequest(http.MethodPost, "/webhooks", bytes.NewReader(body))
	r.Header = header
	rec := httptest.NewRecorder()
	in.h.ServeHTTP(rec, r)
	if rec.Code != http.StatusInternalServerError || in.processed.Load() != 0 {
		t.Fatalf("handler answered %d and processed %d, want 500 and 0", rec.Code, in.processed.Load())
	}
}
