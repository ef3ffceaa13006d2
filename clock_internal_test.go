package mwallet

import (
	"net/http"
	"testing"
	"time"
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
