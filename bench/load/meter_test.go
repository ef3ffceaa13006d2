package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
)

// fakeClock is a recorder's clock the test moves.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

func TestRecorderWindows(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: at(0)}
	r := newRecorder(400 * time.Millisecond)
	r.now = clock.Now

	early := r.begin(kindRead) // during the setup: not counted
	clock.now = at(100)
	r.start()
	r.end(early, 200, "")

	w1 := r.begin(kindWrite)
	clock.now = at(600)
	r.end(w1, 201, at(-1000).Format(http.TimeFormat)) // slow; Date 1.6 s behind at the answer
	c := r.begin(kindControl)
	clock.now = at(650)
	r.end(c, 503, "")
	rd := r.begin(kindRead)
	clock.now = at(700)
	r.end(rd, 0, "")   // no answer
	r.end(rd, 200, "") // a second end of the same request counts nothing
	w2 := r.begin(kindWrite)
	clock.now = at(720)
	r.end(w2, 400, "")

	clock.now = at(1000)
	got := r.roll()
	want := &window{
		From: at(100), To: at(1000),
		Latency:      []time.Duration{500 * time.Millisecond, 20 * time.Millisecond},
		WriteLatency: []time.Duration{500 * time.Millisecond, 20 * time.Millisecond},
		DateLag:      []time.Duration{1600 * time.Millisecond},
		Requests:     2, Writes: 2, WritesOK: 1, Control: 1, Slow: 1, Status5xx: 1, TransportErrors: 1,
		Longest: span(100, 600),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("window (-want +got):\n%s", diff)
	}

	hanging := r.begin(kindRead)
	clock.now = at(3000)
	if s := r.current(); s != span(1000, 3000) {
		t.Errorf("current = %v, want the stall of the hanging request", s)
	}
	last, unfinished := r.stop()
	if unfinished != span(1000, 3000) || last.Requests != 0 {
		t.Errorf("stop: last window %+v, unfinished %v", last, unfinished)
	}
	r.end(hanging, 200, "") // after the run: not counted
	if n := len(r.allWindows()); n != 2 {
		t.Errorf("%d windows, want 2", n)
	}
	// Kept: those of 50 ms or more.
	if stalls, longest := r.stalls(); !cmp.Equal(stalls, []interval{span(100, 600), span(600, 650), span(650, 700)}) || longest != span(100, 600) {
		t.Errorf("stalls %v, longest %v", stalls, longest)
	}
}

// TestMeteredTransport: a request ends once, when its body is read to its
// end or closed; signed writes and control requests are told apart.
func TestMeteredTransport(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/fail" {
			w.WriteHeader(http.StatusBadGateway)
		}
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	defer srv.Close()
	r := newRecorder(time.Second)
	hc := newHTTPClient(r, 2)
	r.start()
	send := func(method, path string, signed bool) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		if signed {
			req.Header.Set("X-Signature", "sig")
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadAll(resp.Body); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	send(http.MethodGet, "/v1/assets", false)
	send(http.MethodPost, "/v1/deposits", true)
	send(http.MethodPost, "/v1/connect/token", false) // a token exchange is not a signed write
	send(http.MethodPost, "/_sim/members", false)
	send(http.MethodGet, "/v1/fail", false)
	w := r.roll()
	if w.Requests != 4 || w.Writes != 1 || w.WritesOK != 1 || w.Control != 1 || w.Status5xx != 1 || len(w.DateLag) != 4 {
		t.Errorf("window: %d requests, %d writes (%d ok), %d control, %d 5xx, %d Date lags; want 4, 1 (1), 1, 1, 4",
			w.Requests, w.Writes, w.WritesOK, w.Control, w.Status5xx, len(w.DateLag))
	}
	if r.track.outstanding != 0 {
		t.Errorf("%d requests still outstanding", r.track.outstanding)
	}
}

// TestSkewLinesOfTheSDK counts the lines the SDK itself logs when its
// clock differs from the service's Date, then agrees again, so a change of
// their wording is caught here.
func TestSkewLinesOfTheSDK(t *testing.T) {
	t.Parallel()
	sim, err := simulator.New()
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	start := sim.Clock.Now() // the simulator's clock stands still
	var offset atomic.Int64
	logs := newLogCounter()
	c, err := mwclient.New(sim.URL(), sim.Credentials().ClientCredentials(), mwallet.WithLogger(logs.logger()),
		mwallet.WithHTTPClient(sim.HTTPClient()),
		mwallet.WithClock(func() time.Time { return start.Add(time.Duration(offset.Load())) }))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	offset.Store(int64(-time.Minute)) // the host is a minute behind
	if _, err := c.Assets(ctx); err != nil {
		t.Fatal(err)
	}
	offset.Store(0) // in step again
	if _, err := c.Assets(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Assets(ctx); err != nil {
		t.Fatal(err)
	}
	if warn, info := skewLines(logs.snapshot()); warn != 1 || info != 1 {
		t.Errorf("skew lines: %d warnings, %d info; want 1 and 1 (lines: %v)", warn, info, logs.snapshot())
	}
}
