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

// TestSkewReportHasHysteresis: answers whose Date flickers around the
// header's one-second resolution (a clock 1.5 s off reads 1 s and 2 s in
// turn) log the offset once, not on every answer; a real change is still
// logged at once. 800 answers in four phases of 200 give four lines: +2 s
// (warn), +300 s (warn), 0 (info, the clock was fixed; reads 0 s and 1 s)
// and -2 s (warn; reads -1 s and -2 s).
func TestSkewReportHasHysteresis(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	var date atomic.Int64 // seconds the service's Date is ahead of the client's clock
	f.handler = func(w http.ResponseWriter, _ *http.Request, _ []byte, _ int) {
		w.Header().Set("Date", f.clock.Now().Add(time.Duration(date.Load())*time.Second).UTC().Format(http.TimeFormat))
		writeTestJSON(w, 200, map[string]any{"ok": true})
	}
	var logs syncBuffer
	c := f.client(WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))))
	ctx := context.Background()
	phases := []struct {
		name  string
		reads [2]int64 // the Date's offset in seconds, in turn
		want  time.Duration
	}{
		{"1.5 s ahead", [2]int64{1, 2}, 2 * time.Second},
		{"5 min ahead", [2]int64{300, 300}, 300 * time.Second},
		{"fixed (0.5 s ahead)", [2]int64{0, 1}, 0},
		{"1.5 s behind", [2]int64{-1, -2}, -2 * time.Second},
	}
	var lines []string
	for _, ph := range phases {
		for i := range 200 {
			date.Store(ph.reads[i%2])
			if _, err := c.Do(ctx, readReq(), nil); err != nil {
				t.Fatal(err)
			}
		}
		if got := c.ClockSkew(); got != ph.want {
			t.Errorf("%s: ClockSkew %s, want %s", ph.name, got, ph.want)
		}
	}
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "mwallet: the clock") {
			lines = append(lines, l[strings.Index(l, "level="):])
		}
	}
	want := []string{
		`level=WARN msg="mwallet: the clock differs from the service's Date; signing and token expiry use the corrected time" service_ahead_by=2s`,
		`level=WARN msg="mwallet: the clock differs from the service's Date; signing and token expiry use the corrected time" service_ahead_by=5m0s`,
		`level=INFO msg="mwallet: the clock agrees with the service's again; no correction"`,
		`level=WARN msg="mwallet: the clock differs from the service's Date; signing and token expiry use the corrected time" service_ahead_by=-2s`,
	}
	t.Logf("%d answers, %d clock lines logged", 4*200, len(lines))
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("clock lines (-want +got):\n%s", diff)
	}
}
