package main

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// t0 is the origin of the synthetic timelines.
var t0 = time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

func span(from, to int) interval { return interval{From: at(from), To: at(to)} }

// event is a start or a completion of a synthetic request.
type event struct {
	at    time.Time
	begin bool
}

// events orders the starts and ends of requests as a clock would deliver
// them: by time, a start before an end at the same instant.
func events(reqs []interval) []event {
	var ev []event
	for _, r := range reqs {
		ev = append(ev, event{r.From, true}, event{r.To, false})
	}
	sort.SliceStable(ev, func(i, j int) bool {
		if !ev[i].at.Equal(ev[j].at) {
			return ev[i].at.Before(ev[j].at)
		}
		return ev[i].begin && !ev[j].begin
	})
	return ev
}

// track feeds reqs to a stallTracker that keeps every stall.
func track(reqs []interval) *stallTracker {
	t := &stallTracker{}
	for _, e := range events(reqs) {
		if e.begin {
			t.begin(e.at)
		} else {
			t.end(e.at)
		}
	}
	return t
}

// stallsByDefinition computes the stalls of reqs from the definition,
// independently of stallTracker: the completions in time order; the busy
// periods as the union of the requests' spans; each completion ends a stall
// that began at the later of the previous completion and the start of the
// busy period it falls in.
func stallsByDefinition(reqs []interval) []interval {
	sorted := slices.Clone(reqs)
	slices.SortFunc(sorted, func(a, b interval) int { return a.From.Compare(b.From) })
	var busy []interval
	for _, r := range sorted {
		if n := len(busy); n > 0 && !r.From.After(busy[n-1].To) {
			if r.To.After(busy[n-1].To) {
				busy[n-1].To = r.To
			}
			continue
		}
		busy = append(busy, r)
	}
	var ends []time.Time
	for _, r := range reqs {
		ends = append(ends, r.To)
	}
	slices.SortFunc(ends, time.Time.Compare)
	var out []interval
	for i, e := range ends {
		var from time.Time
		for _, b := range busy {
			if !e.Before(b.From) && !e.After(b.To) {
				from = b.From
			}
		}
		if i > 0 && ends[i-1].After(from) {
			from = ends[i-1]
		}
		out = append(out, interval{From: from, To: e})
	}
	return out
}

func TestStallTracker(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		reqs    []interval
		want    []interval // every stall, in order of its end
		longest interval
	}{
		{
			name:    "one request: its latency",
			reqs:    []interval{span(0, 30)},
			want:    []interval{span(0, 30)},
			longest: span(0, 30),
		},
		{
			name: "sequential requests with idle time between: idle is no stall",
			reqs: []interval{span(0, 10), span(500, 520), span(2000, 2005)},
			want: []interval{span(0, 10), span(500, 520), span(2000, 2005)},
			// 1.5 s of nothing outstanding does not count.
			longest: span(500, 520),
		},
		{
			name: "overlapping requests: gaps between completions",
			reqs: []interval{span(0, 100), span(10, 40), span(20, 90)},
			want: []interval{span(0, 40), span(40, 90), span(90, 100)},
			// From the start of the busy period to the first completion.
			longest: span(40, 90),
		},
		{
			name: "a freeze: many requests outstanding, none completing",
			reqs: []interval{
				span(0, 5), span(1, 6), span(2, 7),
				span(8, 1208), span(9, 1209), span(10, 1210), // all wait behind the same lock
				span(1211, 1215),
			},
			want:    []interval{span(0, 5), span(5, 6), span(6, 7), span(8, 1208), span(1208, 1209), span(1209, 1210), span(1211, 1215)},
			longest: span(8, 1208),
		},
		{
			name: "a long request does not hide the stall of the others",
			reqs: []interval{span(0, 3000), span(100, 110), span(120, 130), span(2000, 2010)},
			// 130 to 2000 nothing but the long request is outstanding and
			// nothing completes: a stall of 1.88 s, then 0.99 s to its end.
			want:    []interval{span(0, 110), span(110, 130), span(130, 2010), span(2010, 3000)},
			longest: span(130, 2010),
		},
		{
			name: "a request begins as another ends",
			reqs: []interval{span(0, 100), span(100, 250)},
			want: []interval{span(0, 100), span(100, 250)},
			// At 100 one completes and one begins: the next stall starts there.
			longest: span(100, 250),
		},
		{
			name: "simultaneous completions",
			reqs: []interval{span(0, 400), span(1, 400), span(2, 400)},
			want: []interval{span(0, 400), span(400, 400), span(400, 400)},
			// The first completion ends the stall; the others end none.
			longest: span(0, 400),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := track(tt.reqs)
			if diff := cmp.Diff(tt.want, tr.stalls); diff != "" {
				t.Errorf("stalls (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, stallsByDefinition(tt.reqs)); diff != "" {
				t.Errorf("the definition's stalls differ from the table (-want +got):\n%s", diff)
			}
			if tr.longest != tt.longest {
				t.Errorf("longest = %v..%v, want %v..%v", tr.longest.From.Sub(t0), tr.longest.To.Sub(t0), tt.longest.From.Sub(t0), tt.longest.To.Sub(t0))
			}
			if tr.outstanding != 0 {
				t.Errorf("outstanding = %d after every request ended", tr.outstanding)
			}
		})
	}
}

// TestStallTrackerMatchesDefinition feeds random timelines, with requests
// of every length and concurrency, to the tracker and compares its stalls
// with the definition's.
func TestStallTrackerMatchesDefinition(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		n := 1 + rng.IntN(60)
		var reqs []interval
		for range n {
			from := rng.IntN(5000)
			length := rng.IntN(50)
			if rng.IntN(10) == 0 {
				length = rng.IntN(3000) // a stuck one
			}
			reqs = append(reqs, span(from, from+length))
		}
		want := stallsByDefinition(reqs)
		got := track(reqs).stalls
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("round %d, %d requests: stalls differ from the definition (-want +got):\n%s", round, n, diff)
		}
	}
}

func TestStallTrackerKeepsLongOnes(t *testing.T) {
	t.Parallel()
	tr := &stallTracker{keep: 50 * time.Millisecond}
	for _, e := range events([]interval{span(0, 10), span(5, 100), span(200, 260)}) {
		if e.begin {
			tr.begin(e.at)
		} else {
			tr.end(e.at)
		}
	}
	want := []interval{span(10, 100), span(200, 260)}
	if diff := cmp.Diff(want, tr.stalls); diff != "" {
		t.Errorf("kept stalls (-want +got):\n%s", diff)
	}
}

func TestStallTrackerCurrent(t *testing.T) {
	t.Parallel()
	tr := &stallTracker{}
	if got := tr.current(at(5)); got != (interval{}) {
		t.Errorf("nothing outstanding: current = %v, want none", got)
	}
	tr.begin(at(10))
	tr.begin(at(20))
	if got, want := tr.current(at(300)), span(10, 300); got != want {
		t.Errorf("current = %v, want %v", got, want)
	}
	tr.end(at(310))
	if got, want := tr.current(at(700)), span(310, 700); got != want {
		t.Errorf("after a completion, current = %v, want %v", got, want)
	}
	tr.end(at(720))
	if got := tr.current(at(800)); got != (interval{}) {
		t.Errorf("all done: current = %v, want none", got)
	}
}

func TestSummarizeAndOverlap(t *testing.T) {
	t.Parallel()
	stalls := []interval{span(0, 100), span(200, 700), span(1000, 1400), span(2000, 3500)}
	if got, want := summarize(stalls, 400*time.Millisecond), (stallSummary{Count: 3, Total: 2400 * time.Millisecond}); got != want {
		t.Errorf("summarize = %+v, want %+v", got, want)
	}
	if got, want := longestOverlapping(stalls, span(650, 1100)), span(200, 700); got != want {
		t.Errorf("longest overlapping 650..1100 = %v, want %v", got, want)
	}
	if got := longestOverlapping(stalls, span(700, 1000)); got != (interval{}) {
		t.Errorf("stalls that only touch 700..1000 overlap it: %v", got)
	}
}

func TestPercentile(t *testing.T) {
	t.Parallel()
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond // 1..100 ms
	}
	tests := []struct {
		name   string
		values []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one value", []time.Duration{7}, 99, 7},
		{"p50 of 1..100", hundred, 50, 50 * time.Millisecond},
		{"p90 of 1..100", hundred, 90, 90 * time.Millisecond},
		{"p99 of 1..100 (no rounding past the rank)", hundred, 99, 99 * time.Millisecond},
		{"p100 is the max", hundred, 100, 100 * time.Millisecond},
		{"p50 of four: the second", []time.Duration{1, 2, 3, 4}, 50, 2},
		{"p51 of four: the third", []time.Duration{1, 2, 3, 4}, 51, 3},
		{"p99 of ten: the largest", []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 99, 10},
		{"tiny p is the min", []time.Duration{4, 5, 6}, 0.001, 4},
	}
	for _, tt := range tests {
		if got := percentile(tt.values, tt.p); got != tt.want {
			t.Errorf("%s: percentile(%v) = %v, want %v", tt.name, tt.p, got, tt.want)
		}
	}
	d := distributionOf([]time.Duration{5, 1, 4, 2, 3})
	if want := (distribution{N: 5, P50: 3, P90: 5, P99: 5, Max: 5}); d != want {
		t.Errorf("distributionOf = %+v, want %+v", d, want)
	}
}
