package sqlstore_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/sqlstore"
	"github.com/mwallet/mwallet-go/webhooks"
	"github.com/mwallet/mwallet-go/webhooks/dedupetest"
)

func TestNewRefuses(t *testing.T) {
	t.Parallel()
	db, _ := openSQLite(t)
	for _, o := range []sqlstore.Options{{}, {Dialect: "mysql"}, {Dialect: sqlstore.SQLite, Prefix: "x; DROP TABLE y"}} {
		if _, err := sqlstore.New(db, o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
	if _, err := sqlstore.New(nil, sqlstore.Options{Dialect: sqlstore.SQLite}); err == nil {
		t.Error("New(nil) accepted")
	}
}

func TestDeduperContract(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, d dialect) {
		dedupetest.Run(t, func(t *testing.T) webhooks.Deduper {
			s, _ := newStore(t, d, sqlstore.Options{})
			return s.Deduper()
		})
	})
}

// DoneTx commits the effect and the done record together: a transaction
// rolled back (the process died before the commit) leaves the event to be
// processed again, a committed one makes every later claim a duplicate even
// though the handler's own Done never ran.
func TestDeduperDoneTx(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, d dialect) {
		s, db := newStore(t, d, sqlstore.Options{})
		ctx := context.Background()
		if _, err := db.ExecContext(ctx, "CREATE TABLE "+s.Prefix()+"effects (event_id TEXT)"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _, _ = db.ExecContext(context.Background(), "DROP TABLE "+s.Prefix()+"effects") })
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		apply := func(commit bool) {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.ExecContext(ctx, "INSERT INTO "+s.Prefix()+"effects (event_id) VALUES ('evt_1')"); err != nil {
				t.Fatal(err)
			}
			if err := s.Deduper().DoneTx(ctx, tx, "evt_1", now); err != nil {
				t.Fatal(err)
			}
			if commit {
				err = tx.Commit()
			} else {
				err = tx.Rollback()
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		c, err := s.Deduper().Claim(ctx, "evt_1", now, time.Minute)
		if err != nil || c.State != webhooks.ClaimAcquired {
			t.Fatalf("claim: %+v %v", c, err)
		}
		apply(false) // killed before the commit
		if c, _ := s.Deduper().Claim(ctx, "evt_1", now.Add(time.Minute), time.Minute); c.State != webhooks.ClaimAcquired {
			t.Fatalf("after a rollback the lapsed claim is %s, want acquired", c.State)
		}
		apply(true) // killed right after the commit: no Done, no answer
		if c, _ := s.Deduper().Claim(ctx, "evt_1", now.Add(time.Hour), time.Minute); c.State != webhooks.ClaimDone {
			t.Fatalf("after the commit: %s, want done", c.State)
		}
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+s.Prefix()+"effects").Scan(&n); err != nil || n != 1 {
			t.Fatalf("effects %d %v, want 1", n, err)
		}
		if err := s.Deduper().DoneTx(ctx, nil, "evt_1", now); err == nil {
			t.Error("DoneTx without a transaction accepted")
		}
		// Sweep drops what expired, and only that.
		if err := s.Deduper().Done(ctx, "evt_2", now.Add(20*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if n, err := s.Deduper().Sweep(ctx, now.Add(11*time.Hour)); err != nil || n != 1 {
			t.Fatalf("Sweep = %d, %v; want 1 (evt_1 kept 10 h)", n, err)
		}
		if c, _ := s.Deduper().Claim(ctx, "evt_2", now.Add(21*time.Hour), time.Minute); c.State != webhooks.ClaimDone {
			t.Fatalf("evt_2 after the sweep: %s", c.State)
		}
	})
}

func TestPendingStore(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, d dialect) {
		s, db := newStore(t, d, sqlstore.Options{})
		p := s.Pending()
		ctx := context.Background()
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		rec := func(key string, at time.Duration) mwallet.PendingRequest {
			return mwallet.PendingRequest{Key: key, ClientID: "client-1", Method: "POST", Path: "/v1/qrpay/payments", Member: "member-1",
				StepUp: "ch_1", Body: []byte(`{"code_value":"000201","amount":"12.50"}`), CreatedAt: t0.Add(at)}
		}
		for _, r := range []mwallet.PendingRequest{rec("c", 0), rec("a", time.Second), rec("b", 0)} {
			if err := p.Put(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Put(ctx, rec("b", 0)); err != nil { // replaces
			t.Fatal(err)
		}
		list, err := p.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]mwallet.PendingRequest{rec("b", 0), rec("c", 0), rec("a", time.Second)}, list); diff != "" {
			t.Fatalf("List (-want +got):\n%s", diff)
		}
		if err := p.Delete(ctx, "c"); err != nil {
			t.Fatal(err)
		}
		if err := p.Delete(ctx, "absent"); err != nil {
			t.Fatal(err)
		}
		if err := p.Put(ctx, mwallet.PendingRequest{}); err == nil {
			t.Fatal("a record without a key was accepted")
		}
		// PutTx: the record exists only if the transaction commits.
		for _, commit := range []bool{false, true} {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.PutTx(ctx, tx, rec("tx", 2*time.Second)); err != nil {
				t.Fatal(err)
			}
			if commit {
				err = tx.Commit()
			} else {
				err = tx.Rollback()
			}
			if err != nil {
				t.Fatal(err)
			}
			list, _ := p.List(ctx)
			if got := len(list); got != 2+b2i(commit) {
				t.Fatalf("commit %v: %d records", commit, got)
			}
		}
		tx, _ := db.BeginTx(ctx, nil)
		if err := p.DeleteTx(ctx, tx, "tx"); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if list, _ := p.List(ctx); len(list) != 2 {
			t.Fatalf("after DeleteTx: %v", list)
		}
		// A damaged record is reported with its key, never skipped.
		if _, err := db.ExecContext(ctx, "UPDATE "+s.Prefix()+"pending SET record = 'not json' WHERE idem_key = 'a'"); err != nil {
			t.Fatal(err)
		}
		if _, err := p.List(ctx); err == nil || !strings.Contains(err.Error(), "key a") {
			t.Fatalf("List of a damaged record: %v", err)
		}
	})
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// settable is a clock for the token store.
type settable struct {
	mu sync.Mutex
	t  time.Time
}

func (c *settable) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *settable) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestTokenStore(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, d dialect) {
		clk := &settable{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		s, _ := newStore(t, d, sqlstore.Options{Now: clk.Now})
		ts := s.Tokens()
		ctx := context.Background()
		if _, ok, err := ts.Load(ctx, "k"); ok || err != nil {
			t.Fatalf("empty Load: %v %v", ok, err)
		}
		tok := mwallet.AccessToken{Value: "tok-SECRET-1", ExpiresAt: clk.Now().Add(30 * time.Minute), RefreshAt: clk.Now().Add(29 * time.Minute)}
		if err := ts.Store(ctx, "k", tok, 30*time.Minute); err != nil {
			t.Fatal(err)
		}
		got, ok, err := ts.Load(ctx, "k")
		if err != nil || !ok || got.Value.Reveal() != "tok-SECRET-1" || !got.ExpiresAt.Equal(tok.ExpiresAt) || !got.RefreshAt.Equal(tok.RefreshAt) {
			t.Fatalf("Load = %+v %v %v", got, ok, err)
		}
		if err := ts.Invalidate(ctx, "k", "tok-other"); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := ts.Load(ctx, "k"); !ok {
			t.Fatal("Invalidate of another value removed the token")
		}
		if err := ts.Invalidate(ctx, "k", "tok-SECRET-1"); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := ts.Load(ctx, "k"); ok {
			t.Fatal("Invalidate left the token")
		}
		if err := ts.Store(ctx, "k", tok, time.Minute); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Minute)
		if _, ok, _ := ts.Load(ctx, "k"); ok {
			t.Fatal("a token past its ttl was loaded")
		}
		// The lock: one holder; an expired lock is taken over, and the old
		// holder's unlock leaves the new holder's lock.
		unlock1, ok, err := ts.Lock(ctx, "k", 10*time.Second)
		if err != nil || !ok {
			t.Fatalf("Lock: %v %v", ok, err)
		}
		if _, ok, _ := ts.Lock(ctx, "k", 10*time.Second); ok {
			t.Fatal("a held lock was taken")
		}
		clk.Advance(10 * time.Second)
		unlock2, ok, _ := ts.Lock(ctx, "k", 10*time.Second)
		if !ok {
			t.Fatal("an expired lock was not taken over")
		}
		if err := unlock1(ctx); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := ts.Lock(ctx, "k", 10*time.Second); ok {
			t.Fatal("the old holder's unlock freed the new holder's lock")
		}
		if err := unlock2(ctx); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := ts.Lock(ctx, "k", 10*time.Second); !ok {
			t.Fatal("the lock is not free after unlock")
		}
	})
}

// A cancelled context ends a call with an error naming the operation.
func TestCallsHonourContext(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, d dialect) {
		s, _ := newStore(t, d, sqlstore.Options{})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := s.Pending().List(ctx)
		if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "sqlstore: pending list ") {
			t.Fatalf("List with a cancelled context: %v", err)
		}
		if _, err := s.Deduper().Claim(ctx, "evt", time.Now(), time.Minute); err == nil {
			t.Fatal("Claim with a cancelled context succeeded")
		}
	})
}
