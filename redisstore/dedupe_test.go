package redisstore_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/redisstore"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/webhooks"
	"github.com/mwallet/mwallet-go/webhooks/dedupetest"
)

func TestDeduperContract(t *testing.T) {
	t.Parallel()
	dedupetest.Run(t, func(t *testing.T) webhooks.Deduper {
		store, _ := newStore(t, redisstore.Options{})
		return store.Deduper()
	})
}

// The keys: a claim and a done record, each with the retention as PX (the
// lease is in the value, on the handler's clock).
func TestDeduperKeys(t *testing.T) {
	t.Parallel()
	store, rdb := newStore(t, redisstore.Options{})
	d := store.Deduper()
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c, err := d.Claim(ctx, "evt_1", now, time.Minute)
	if err != nil || c.State != webhooks.ClaimAcquired {
		t.Fatalf("claim: %+v %v", c, err)
	}
	k := store.Prefix() + "webhook:evt_1"
	if v, _ := rdb.Get(ctx, k).Result(); v != "c:"+strconv.FormatInt(now.Add(time.Minute).UnixMilli(), 10)+":"+c.Token {
		t.Fatalf("claim value %q", v)
	}
	if err := d.Done(ctx, "evt_1", now); err != nil {
		t.Fatal(err)
	}
	if v, _ := rdb.Get(ctx, k).Result(); v != "d" {
		t.Fatalf("done value %q", v)
	}
	ttl, err := rdb.PTTL(ctx, k).Result()
	if err != nil || ttl <= 9*time.Hour || ttl > redisstore.DefaultDedupeTTL {
		t.Fatalf("PTTL %v %v; want about %v, longer than the 8.6-hour retry schedule", ttl, err, redisstore.DefaultDedupeTTL)
	}
}

// instance is one receiving process: a webhooks.Handler counting the events
// it processed.
type instance struct {
	h         http.Handler
	processed atomic.Int32
}

func newInstance(secret string, d webhooks.Deduper, now func() time.Time) *instance {
	in := &instance{}
	in.h = webhooks.Handler(mwallet.Secret(secret), func(ctx context.Context, ev webhooks.Event) error {
		in.processed.Add(1)
		return nil
	}, webhooks.WithDeduper(d), webhooks.WithClock(now))
	return in
}

// The service delivers an event to instance A, which processes it, but the
// acknowledgement is lost (the load balancer answers 502). The retry a
// minute later lands on instance B, which must not process it again.
func TestWebhookRedeliveredToAnotherInstanceIsHandledOnce(t *testing.T) {
	t.Parallel()
	sim := newSim(t)
	store, _ := newStore(t, redisstore.Options{})
	var a, b *instance
	var mu sync.Mutex
	var answers []string
	lb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		answers = append(answers, "")
		turn := len(answers)
		mu.Unlock()
		target := a
		if turn%2 == 0 {
			target = b
		}
		rec := httptest.NewRecorder()
		target.h.ServeHTTP(rec, r)
		mu.Lock()
		answers[turn-1] = fmt.Sprintf("%d %s", rec.Code, bytes.TrimSpace(rec.Body.Bytes()))
		mu.Unlock()
		if turn == 1 {
			w.WriteHeader(http.StatusBadGateway) // A's 200 never reaches the service
			return
		}
		w.WriteHeader(rec.Code)
	}))
	t.Cleanup(lb.Close)
	_, secret, err := sim.Webhooks.AddEndpoint(lb.URL + "/webhooks")
	if err != nil {
		t.Fatal(err)
	}
	a = newInstance(secret, store.Deduper(), sim.Clock.Now)
	b = newInstance(secret, store.Deduper(), sim.Clock.Now)
	evID, err := sim.Events.Emit("deposit.credited", "deposit", "dep_order-1", member1, "credited", 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// The first attempt fails on purpose (A answers 502 after processing):
	// Flush reports it as a *simulator.FlushError.
	var fe *simulator.FlushError
	if res, err := sim.Webhooks.Flush(ctx); !errors.As(err, &fe) || res.Failed != 1 {
		t.Fatalf("first flush: %+v, %v; want the one planted failure", res, err)
	}
	sim.Clock.Advance(time.Minute) // the service's first retry falls due
	if _, err := sim.Webhooks.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if a.processed.Load() != 1 || b.processed.Load() != 0 {
		t.Fatalf("processed by A %d, by B %d; want 1 and 0 (answers %v)", a.processed.Load(), b.processed.Load(), answers)
	}
	if len(answers) != 2 || answers[1] != "200 duplicate" {
		t.Fatalf("answers %v, want B to acknowledge the duplicate", answers)
	}
	for _, d := range sim.Webhooks.Deliveries() {
		if d.EventID == evID && (d.Status != "sent" || len(d.Attempts) != 2) {
			t.Fatalf("delivery %+v, want sent after 2 attempts", d)
		}
	}
}

// signedDelivery builds a webhook request as the service sends it.
func signedDelivery(secret, eventID string, at time.Time) (body []byte, header http.Header) {
	body = []byte(`{"event_id":"` + eventID + `","event_type":"deposit.credited","created_at":"` + at.UTC().Format(time.RFC3339) +
		`","merchant_id":"mch_1","livemode":false,"data":{"object":"deposit","id":"dep_order-9","external_member_id":"member-1","status":"credited","status_version":0}}`)
	ts := strconv.FormatInt(at.Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "." + string(body)))
	header = http.Header{}
	header.Set("Content-Type", "application/json")
	header.Set(webhooks.SignatureHeader, "t="+ts+",v1="+base64.StdEncoding.EncodeToString(m.Sum(nil)))
	header.Set(webhooks.EventIDHeader, eventID)
	header.Set(webhooks.EventTypeHeader, "deposit.credited")
	return body, header
}

// The same delivery reaches both instances many times at once: processed
// once; the copies that arrive while it runs are answered 409 (the service
// retries them), the others 200, and a later copy is a duplicate.
func TestConcurrentDuplicatesAcrossInstances(t *testing.T) {
	t.Parallel()
	store, _ := newStore(t, redisstore.Options{})
	const secret = "whsec_test_0123456789"
	a := newInstance(secret, store.Deduper(), time.Now)
	b := newInstance(secret, store.Deduper(), time.Now)
	body, header := signedDelivery(secret, "evt_concurrent_1", time.Now())
	var wg sync.WaitGroup
	codes := make(chan int, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			target := a
			if i%2 == 1 {
				target = b
			}
			r := httptest.NewRequest(http.MethodPost, "/webhooks", bytes.NewReader(body))
			r.Header = header.Clone()
			rec := httptest.NewRecorder()
			target.h.ServeHTTP(rec, r)
			codes <- rec.Code
		}()
	}
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != http.StatusOK && c != http.StatusConflict {
			t.Fatalf("a copy was answered %d", c)
		}
	}
	if got := a.processed.Load() + b.processed.Load(); got != 1 {
		t.Fatalf("40 copies over 2 instances processed %d times, want 1", got)
	}
	r := httptest.NewRequest(http.MethodPost, "/webhooks", bytes.NewReader(body))
	r.Header = header.Clone()
	rec := httptest.NewRecorder()
	b.h.ServeHTTP(rec, r)
	if rec.Code != http.StatusOK || strings.TrimSpace(rec.Body.String()) != "duplicate" {
		t.Fatalf("a later copy: %d %q, want 200 duplicate", rec.Code, rec.Body.String())
	}
}
