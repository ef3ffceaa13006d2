package main

import (
	"math"
	"slices"
	"time"
)

// interval is a span of host time.
type interval struct{ From, To time.Time }

// Len is the interval's length (zero for the zero interval).
func (iv interval) Len() time.Duration { return iv.To.Sub(iv.From) }

// overlaps reports whether iv and o share more than an instant.
func (iv interval) overlaps(o interval) bool { return iv.From.Before(o.To) && o.From.Before(iv.To) }

// stallTracker finds the stalls in a stream of request starts and
// completions, fed in time order.
//
// A stall is a span during which at least one request was outstanding and
// none completed. Each completion ends one: it began at the later of the
// previous completion and the moment the current busy period began (the
// number of outstanding requests went from zero to one), and it ends at
// this completion. Time with nothing outstanding is idle, never a stall, so
// a client that thinks between requests does not stall the simulator; with
// one request at a time the stalls are the requests' latencies.
type stallTracker struct {
	outstanding int
	busyFrom    time.Time // when outstanding last went from zero to one
	lastDone    time.Time
	// keep is the shortest stall kept in stalls.
	keep    time.Duration
	stalls  []interval
	longest interval
}

// begin records a request started at at.
func (t *stallTracker) begin(at time.Time) {
	if t.outstanding == 0 {
		t.busyFrom = at
	}
	t.outstanding++
}

// end records a request completed at at and returns the stall it ends.
func (t *stallTracker) end(at time.Time) interval {
	s := interval{From: t.busyFrom, To: at}
	if t.lastDone.After(s.From) {
		s.From = t.lastDone
	}
	t.lastDone = at
	if t.outstanding > 0 {
		t.outstanding--
	}
	if s.Len() > t.longest.Len() {
		t.longest = s
	}
	if s.Len() >= t.keep {
		t.stalls = append(t.stalls, s)
	}
	return s
}

// current returns the stall in progress at at: zero when nothing is
// outstanding.
func (t *stallTracker) current(at time.Time) interval {
	if t.outstanding == 0 {
		return interval{}
	}
	s := interval{From: t.busyFrom, To: at}
	if t.lastDone.After(s.From) {
		s.From = t.lastDone
	}
	return s
}

// stallSummary is what the stalls over a threshold add up to.
type stallSummary struct {
	Count int           // stalls at least the threshold long
	Total time.Duration // their summed length
}

// summarize sums the stalls at least min long.
func summarize(stalls []interval, minLen time.Duration) stallSummary {
	var s stallSummary
	for _, st := range stalls {
		if st.Len() >= minLen {
			s.Count++
			s.Total += st.Len()
		}
	}
	return s
}

// longestOverlapping returns the longest of stalls that overlaps iv.
func longestOverlapping(stalls []interval, iv interval) interval {
	var best interval
	for _, s := range stalls {
		if s.overlaps(iv) && s.Len() > best.Len() {
			best = s
		}
	}
	return best
}

// percentile returns the p-th percentile of sorted by the nearest-rank
// method: the smallest value such that at least p per cent of the values
// are at most it. p is in (0, 100]; an empty slice gives zero.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	// p*n is exact for whole p and n, and so is its division by 100
	// when the rank is whole: no rounding error moves the ceiling.
	rank := max(int(math.Ceil(p*float64(len(sorted))/100)), 1)
	rank = min(rank, len(sorted))
	return sorted[rank-1]
}

// distribution is the summary of a set of durations.
type distribution struct {
	N                  int
	P50, P90, P99, Max time.Duration
}

// distributionOf sorts ds in place and summarizes it.
func distributionOf(ds []time.Duration) distribution {
	slices.Sort(ds)
	if len(ds) == 0 {
		return distribution{}
	}
	return distribution{N: len(ds), P50: percentile(ds, 50), P90: percentile(ds, 90), P99: percentile(ds, 99), Max: ds[len(ds)-1]}
}
