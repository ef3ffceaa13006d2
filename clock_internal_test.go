package mwallet

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestSkewMeasure covers the measurement rules one by one: the midpoint of
// the attempt, the resolution, Age and unusable Date headers ignored, back
// to zero, and the switch.
func TestSkewMeasure(t *testing.T) {
	t.Parallel()
	sent := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	date := func(d time.Time) http.Header {
		return http.Header{"Date": {d.UTC().Format(http.TimeFormat)}}
	}
	steps := []struct {
		name   string
		off    bool
		h      http.Header
		rtt    time.Duration
		want   time.Duration
		change bool
	}{
		{name: "service 10 min ahead, answered at once", h: date(sent.Add(10 * time.Minute)), want: 10 * time.Minute, change: true},
		{name: "network time is not skew (midpoint of a 4 s attempt)", h: date(sent.Add(2*time.Second + 10*time.Minute)), rtt: 4 * time.Second, want: 10 * time.Minute},
		{name: "an answer with Age is ignored", h: http.Header{"Date": {sent.Add(-time.Hour).Format(http.TimeFormat)}, "Age": {"3600"}}, want: 10 * time.Minute},
		{name: "no Date is ignored", h: http.Header{}, want: 10 * time.Minute},
		{name: "a malformed Date is ignored", h: http.Header{"Date": {"yesterday"}}, want: 10 * time.Minute},
		{name: "service behind", h: date(sent.Add(-301 * time.Second)), want: -301 * time.Second, change: true},
		{name: "under the resolution is zero", h: date(sent.Add(time.Second)), want: 0, change: true},
		{name: "turned off: nothing measured", off: true, h: date(sent.Add(time.Hour)), want: 0},
	}
	var s skewState
	for _, st := range steps {
		s.off = st.off
		changed := s.measure(st.h, sent, sent.Add(st.rtt))
		if s.get() != st.want || changed != st.change {
			t.Errorf("%s: offset %s changed %v, want %s %v", st.name, s.get(), changed, st.want, st.change)
		}
	}
}

// BenchmarkSkewMeasure is the cost the correction adds to every answer.
func BenchmarkSkewMeasure(b *testing.B) {
	now := time.Now()
	h := http.Header{"Date": {now.UTC().Format(http.TimeFormat)}}
	var s skewState
	b.ReportAllocs()
	for b.Loop() {
		s.measure(h, now, now)
	}
}

// TestSkewReportHasHysteresis: sequences of answers whose Date is off the
// client's clock by the given seconds, in turn, and the clock lines they
// log. A difference that flickers around the header's one-second
// resolution (a lagging service reads 0 s to 3 s in turn) logs once, not on
// every answer; a real change is logged at once; a small offset clears only
// after the clocks agreed for skewClearAnswers answers over skewClearAfter.
func TestSkewReportHasHysteresis(t *testing.T) {
	t.Parallel()
	type phase struct {
		reads []int64       // the Date's offset in seconds, in turn
		n     int           // answers
		every time.Duration // the client's clock between answers
	}
	warn := func(by string) string {
		return `level=WARN msg="mwallet: the clock differs from the service's Date; signing and token expiry use the corrected time" service_ahead_by=` + by
	}
	const info = `level=INFO msg="mwallet: the clock agrees with the service's again; no correction"`
	rows := []struct {
		name   string
		phases []phase
		want   []string
		skew   time.Duration
	}{
		{name: "in step (Date truncation reads 0 s and -1 s)",
			phases: []phase{{[]int64{0, -1}, 200, 100 * time.Millisecond}}, want: nil, skew: 0},
		{name: "1.5 s ahead: within the resolution",
			phases: []phase{{[]int64{1, 2}, 200, 100 * time.Millisecond}}, want: nil, skew: 0},
		{name: "service lagging 0-3 s under load, for 10 min",
			phases: []phase{{[]int64{0, -1, -2, -3, -1, 0, -2, -1}, 600, time.Second}}, want: []string{warn("-3s")}, skew: -3 * time.Second},
		{name: "2.5 s ahead (reads 2 s and 3 s)",
			phases: []phase{{[]int64{2, 3}, 200, time.Second}}, want: []string{warn("3s")}, skew: 3 * time.Second},
		{name: "5 min ahead, then fixed: cleared at once",
			phases: []phase{{[]int64{300}, 10, time.Second}, {[]int64{0, 1}, 10, time.Second}}, want: []string{warn("5m0s"), info}, skew: 0},
		{name: "3 s ahead, then fixed: cleared after 5 answers over 30 s",
			phases: []phase{{[]int64{3}, 5, time.Second}, {[]int64{0, -1}, 40, time.Second}}, want: []string{warn("3s"), info}, skew: 0},
		{name: "3 s ahead, then agreeing answers within 30 s: kept",
			phases: []phase{{[]int64{3}, 5, time.Second}, {[]int64{0, -1}, 200, 100 * time.Millisecond}}, want: []string{warn("3s")}, skew: 3 * time.Second},
		{name: "3 s ahead, agreement broken every 30 answers by a 2 s read: kept",
			phases: []phase{{[]int64{3}, 1, time.Second}, {append(make([]int64, 29), 2), 300, time.Second}}, want: []string{warn("3s")}, skew: 3 * time.Second},
		{name: "1 h behind, then 1 h ahead",
			phases: []phase{{[]int64{-3600}, 3, time.Second}, {[]int64{3600}, 3, time.Second}}, want: []string{warn("-1h0m0s"), warn("1h0m0s")}, skew: time.Hour},
		{name: "3 s ahead, then 5 min ahead, then 4 s ahead",
			phases: []phase{{[]int64{3}, 3, time.Second}, {[]int64{300}, 3, time.Second}, {[]int64{4}, 3, time.Second}}, want: []string{warn("3s"), warn("5m0s"), warn("4s")}, skew: 4 * time.Second},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			// One token exchange (its Date carries no offset) for the whole row.
			f.tokenTTL = 48 * time.Hour
			var date atomic.Int64 // seconds the service's Date is ahead of the client's clock
			f.handler = func(w http.ResponseWriter, _ *http.Request, _ []byte, _ int) {
				w.Header().Set("Date", f.clock.Now().Add(time.Duration(date.Load())*time.Second).UTC().Format(http.TimeFormat))
				writeTestJSON(w, 200, map[string]any{"ok": true})
			}
			var logs syncBuffer
			c := f.client(WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))))
			ctx := context.Background()
			answers := 0
			for _, ph := range r.phases {
				for i := range ph.n {
					date.Store(ph.reads[i%len(ph.reads)])
					if _, err := c.Do(ctx, readReq(), nil); err != nil {
						t.Fatal(err)
					}
					f.clock.Advance(ph.every)
					answers++
				}
			}
			var lines []string
			for _, l := range strings.Split(logs.String(), "\n") {
				if strings.Contains(l, "mwallet: the clock") {
					lines = append(lines, l[strings.Index(l, "level="):])
				}
			}
			t.Logf("%d answers, %d clock lines logged", answers, len(lines))
			if diff := cmp.Diff(r.want, lines); diff != "" {
				t.Errorf("clock lines (-want +got):\n%s", diff)
			}
			if got := c.ClockSkew(); got != r.skew {
				t.Errorf("ClockSkew %s, want %s", got, r.skew)
			}
		})
	}
}
