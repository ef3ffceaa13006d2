package faults

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// TestMatches: the method matches in any case, empty or "*" every method;
// the path exactly, or as a prefix when it ends in "*".
func TestMatches(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		row          Row
		method, path string
		want         bool
	}{
		{Row{Path: "/v1/cards"}, "GET", "/v1/cards", true},
		{Row{Method: "*", Path: "/v1/cards"}, "POST", "/v1/cards", true},
		{Row{Method: "post", Path: "/v1/cards"}, "POST", "/v1/cards", true},
		{Row{Method: "POST", Path: "/v1/cards"}, "GET", "/v1/cards", false},
		{Row{Path: "/v1/cards"}, "GET", "/v1/cards/c_1", false},
		{Row{Path: "/v1/cards/*"}, "GET", "/v1/cards/c_1", true},
		{Row{Path: "/v1/cards/*"}, "GET", "/v1/cards", false},
	} {
		if got := tc.row.Matches(tc.method, tc.path); got != tc.want {
			t.Errorf("%+v on %s %s: %v, want %v", tc.row, tc.method, tc.path, got, tc.want)
		}
	}
}

// TestTake: faults are taken in the order they were armed, counted down
// and removed when nothing remains; an unlimited fault stays; a random
// fault the draw spares lets a later one be taken, and Draws lists the
// draws Take makes.
func TestTake(t *testing.T) {
	t.Parallel()
	k := new(kernel.Kernel)
	tab := New(k)
	tx := k.BeginSetup()
	defer tx.End()
	tab.Arm(tx, Row{Path: "/v1/x", Kind: "delay", OneIn: 3, Unlimited: true})
	tab.Arm(tx, Row{Path: "/v1/x", Kind: "error", Count: 2})
	hits := []bool{false, true, false}
	i := 0
	draw := func(n, oneIn int) bool {
		if oneIn != 3 {
			t.Fatalf("drawn with %d ways", oneIn)
		}
		h := hits[i]
		i++
		return h
	}
	if d := tab.Draws(tx, "GET", "/v1/x", func(n int) int { return 1 }); !cmp.Equal(d, []bool{false}) {
		t.Errorf("draws %v, want one spared draw", d)
	}
	type took struct {
		Kind      string
		Remaining int
		Gone, OK  bool
	}
	var got []took
	for range 3 {
		r, gone, ok := tab.Take(tx, "GET", "/v1/x", draw)
		got = append(got, took{r.Kind, r.Remaining, gone, ok})
	}
	r, gone, ok := tab.Take(tx, "GET", "/v1/y", draw)
	got = append(got, took{r.Kind, r.Remaining, gone, ok})
	want := []took{{"error", 1, false, true}, {"delay", 0, false, true}, {"error", 0, true, true}, {}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("takes (-want +got):\n%s", diff)
	}
	if tab.Len(tx) != 1 || !tab.Held(tx) {
		t.Errorf("%d faults left (held %v), want the unlimited one", tab.Len(tx), tab.Held(tx))
	}
	tab.Clear(tx)
	if tab.Len(tx) != 0 || tab.Held(tx) {
		t.Errorf("cleared: %d faults (held %v)", tab.Len(tx), tab.Held(tx))
	}
}
