//go:build unix

package redisstore_test

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/redisstore"
)

// A Redis that accepts connections but never answers (the process is
// stopped): calls end with a timeout error after the store's bound, not
// when the caller's context happens to end.
func TestFrozenRedisTimesOut(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	o := redisOptions(&redis.Options{Addr: srv.addr})
	o.ReadTimeout, o.WriteTimeout = 5*time.Second, 5*time.Second // the store's own bound must win
	rdb := redis.NewClient(o)
	t.Cleanup(func() { _ = rdb.Close() })
	store := redisstore.New(rdb, redisstore.Options{Prefix: "mwallet:frozen:", Timeout: 300 * time.Millisecond})
	ctx := context.Background()
	if err := store.Pending().Put(ctx, mwallet.PendingRequest{Key: "k", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := srv.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.cmd.Process.Signal(syscall.SIGCONT) })

	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_, err := store.Pending().List(cctx)
	if !errors.Is(err, context.DeadlineExceeded) && !isTimeout(err) {
		t.Fatalf("List on a frozen Redis: %v, want a timeout", err)
	}
	if cctx.Err() != nil || !strings.HasPrefix(err.Error(), "redisstore: pending list") {
		t.Fatalf("err = %v (caller context %v)", err, cctx.Err())
	}
	if _, err := store.Deduper().Claim(cctx, "evt_1", time.Now(), time.Minute); err == nil || cctx.Err() != nil {
		t.Fatalf("Claim on a frozen Redis: %v", err)
	}
}

func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.As(err, &te) && te.Timeout()
}
