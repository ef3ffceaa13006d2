package simulator_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
)

// TestWallClockKeepsUpUnderLoad: on a simulator that follows the host's
// clock (WithWallClock), 32 clients send signed deposits and reads at once,
// and every business answer's Date lies between the host's clock when its
// request was sent (cut to the second) and when its answer arrived: within
// the header's one-second resolution, however long the request waited for
// the lock. A QR payment whose outcome falls due 1 s later completes at
// the first input after that second (the clock's move runs the timer, as a
// logged advance), and the recording replays to the same digest.
func TestWallClockKeepsUpUnderLoad(t *testing.T) {
	t.Parallel()
	e := newEdge(t, simulator.WithWallClock())
	sim := e.sim
	if _, err := sim.Members.Create(simulator.MemberSeed{ExternalID: "member-2", KYCLevel: 2, Balances: map[string]string{"USDT": "5000"}}); err != nil {
		t.Fatal(err)
	}
	if err := sim.Outcomes.Set(simulator.CollectionQROrders, simulator.After(time.Second)); err != nil {
		t.Fatal(err)
	}
	order, _, err := e.qrPay("member-2", thaiQR("100.00", "W1"))
	if err != nil {
		t.Fatal(err)
	}
	if order.Status == qrpay.StatusCompleted {
		t.Fatalf("order %s completed at once; its outcome is 1 s later", order.ID)
	}

	const clients, rounds = 32, 8
	// Connections kept open, so that the requests queue at the simulator.
	c := &raw{t: t, sim: sim, hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}, creds: sim.Credentials()}
	tok := c.token()
	type offBy struct {
		what            string
		sent, date, got time.Time
	}
	var (
		mu      sync.Mutex
		checked int
		wrong   []offBy
		failed  []string
		wg      sync.WaitGroup
	)
	check := func(what string, sent time.Time, r result, got time.Time) {
		mu.Lock()
		defer mu.Unlock()
		if r.status/100 != 2 {
			failed = append(failed, what+": "+r.String())
			return
		}
		date, err := http.ParseTime(r.header.Get("Date"))
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: Date %q: %v", what, r.header.Get("Date"), err))
			return
		}
		checked++
		if date.Before(sent.Truncate(time.Second)) || date.After(got) {
			wrong = append(wrong, offBy{what, sent, date, got})
		}
	}
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range rounds {
				ref := fmt.Sprintf("wall-%d-%d", i, j)
				sent := time.Now()
				r := c.write(tok, "POST", "/v1/deposits", member1, uuid.NewString(), depositBody(ref, "1"))
				check("deposit "+ref, sent, r, time.Now())
				sent = time.Now()
				r = c.get(tok, "/v1/assets", "")
				check("assets "+ref, sent, r, time.Now())
			}
		}()
	}
	wg.Wait()
	if len(failed) > 0 {
		t.Fatalf("%d requests failed, the first: %s", len(failed), failed[0])
	}
	t.Logf("%d answers checked, %d with a Date out of [sent cut to the second, answered]", checked, len(wrong))
	for i, w := range wrong {
		if i == 5 {
			break
		}
		t.Errorf("%s: sent %s, Date %s, answered %s", w.what, w.sent.UTC().Format(time.RFC3339Nano), w.date.UTC().Format(time.RFC3339), w.got.UTC().Format(time.RFC3339Nano))
	}

	// The outcome falls due on the host's clock: poll until it has.
	ctx := context.Background()
	made := time.Now()
	for {
		o, err := e.c.QRPay.Order(ctx, "member-2", order.ID)
		if err != nil {
			t.Fatal(err)
		}
		if o.Status == qrpay.StatusCompleted {
			break
		}
		if time.Since(made) > time.Minute {
			t.Fatalf("order %s still %s a minute after it was made", order.ID, o.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.books()
	rec, err := sim.Recording()
	if err != nil {
		t.Fatal(err)
	}
	rp, err := simulator.New(simulator.WithRecording(rec))
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Close()
	if a, b := mustDigest(t, sim), mustDigest(t, rp); a != b {
		t.Errorf("digest %s, of the recording's replay %s", a, b)
	}
	if a, b := sim.Clock.Now(), rp.Clock.Now(); !a.Equal(b) {
		t.Errorf("clock %s, of the replay %s", a, b)
	}
}
