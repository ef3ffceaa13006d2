package sqlstore_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
	"github.com/mwallet/mwallet-go/sqlstore"
)

// The SDK on the store, on each database: ten instances share one token
// exchange, and a deposit whose answer was lost is resumed by another
// instance from the database and replayed, credited once.
func TestSDKOnTheStore(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, d dialect) {
		sim := simtest.Start(t)
		s, _ := newStore(t, d, sqlstore.Options{})
		ctx := context.Background()
		var wg sync.WaitGroup
		errs := make(chan error, 10)
		for range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := sim.Client(mwallet.WithTokenStore(s.Tokens()))
				_, err := c.Assets(ctx)
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		exchanges := 0
		for _, r := range sim.Requests.List() {
			if r.Path == "/v1/connect/token" {
				exchanges++
			}
		}
		if exchanges != 1 {
			t.Errorf("%d token exchanges for 10 instances, want 1", exchanges)
		}

		a := sim.Client(mwallet.WithPendingStore(s.Pending()), mwallet.WithTokenStore(s.Tokens()))
		if err := sim.Faults.Inject(simulator.Fault{Method: http.MethodPost, Path: "/v1/deposits", Kind: simulator.FaultDropAfter, Count: 10}); err != nil {
			t.Fatal(err)
		}
		_, err := a.Deposits.Create(ctx, "member-1", deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("5", 6), Reference: "sql-1"})
		var te *mwallet.TransportError
		if !errors.As(err, &te) {
			t.Fatalf("want the answer lost, got %v", err)
		}
		if err := sim.Faults.Clear(); err != nil {
			t.Fatal(err)
		}
		b := sim.Client(mwallet.WithPendingStore(s.Pending()), mwallet.WithTokenStore(s.Tokens()))
		pending, err := b.PendingRequests(ctx)
		if err != nil || len(pending) != 1 {
			t.Fatalf("pending = %v, %v", pending, err)
		}
		dep, err := b.Deposits.ResumeCreate(ctx, pending[0])
		if err != nil || !dep.Response.Replayed || dep.ID != "dep_sql-1" {
			t.Fatalf("resumed %+v, %v", dep, err)
		}
		if left, _ := s.Pending().List(ctx); len(left) != 0 {
			t.Errorf("records left: %v", left)
		}
		avail, _, err := sim.Members.Balance("member-1", "USDT")
		if err != nil || !avail.Equal(money.MustParse("1005", 6)) {
			t.Errorf("available %s (%v), want 1005: credited once", avail, err)
		}
	})
}
