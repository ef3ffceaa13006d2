package redisstore_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/redisstore"
)

// BenchmarkIdempotentPOST is one signed, idempotent POST through Client.Do
// against a local server that answers 201, without a pending store, with
// the in-memory one and with Redis (HSET before, HDEL after: two round
// trips). The Redis case runs only when REDIS_URL is set.
func BenchmarkIdempotentPOST(b *testing.B) {
	exp := []byte(`{"auth_token":"tok_bench","expired_at":` + strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10) + `,"token_type":"Bearer","scopes":[]}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/connect/token" {
			_, _ = w.Write(exp)
			return
		}
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"id":"qrp_1","status":"processing"}`))
	}))
	b.Cleanup(srv.Close)
	stores := []struct {
		name  string
		store func(b *testing.B) mwallet.PendingStore
	}{
		{"none", func(*testing.B) mwallet.PendingStore { return nil }},
		{"memory", func(*testing.B) mwallet.PendingStore { return mwallet.NewMemoryPendingStore() }},
		{"redis", func(b *testing.B) mwallet.PendingStore {
			u := os.Getenv("REDIS_URL")
			if u == "" {
				b.Skip("REDIS_URL not set")
			}
			o, err := redis.ParseURL(u)
			if err != nil {
				b.Fatal(err)
			}
			rdb := redis.NewClient(o)
			b.Cleanup(func() { _ = rdb.Close() })
			prefix := "mwbench:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"
			b.Cleanup(func() { deletePrefix(rdb, prefix) })
			return redisstore.New(rdb, redisstore.Options{Prefix: prefix}).Pending()
		}},
	}
	body := map[string]string{"code_value": "000201010212", "preferred_asset": "USDT"}
	for _, s := range stores {
		b.Run(s.name, func(b *testing.B) {
			opts := []mwallet.Option{mwallet.WithHTTPClient(srv.Client()), mwallet.WithLogger(slog.New(slog.DiscardHandler))}
			if p := s.store(b); p != nil {
				opts = append(opts, mwallet.WithPendingStore(p))
			}
			c, err := mwclient.New(srv.URL, mwallet.Credentials{ClientID: "bench", APIKey: "k", SigningKey: "s"}, opts...)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				_, err := c.Do(ctx, &mwallet.Request{Method: http.MethodPost, Path: "/v1/qrpay/payments", MemberScoped: true,
					Member: "member-1", Body: body, Idempotent: true}, nil)
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
