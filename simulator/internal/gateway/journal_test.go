package gateway

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

func paths(rows []JournalRow) []string {
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%d %s", r.Seq, r.Path))
	}
	return out
}

func TestJournalRing(t *testing.T) {
	t.Parallel()
	k := new(kernel.Kernel)
	j := NewJournal(k, 3)
	tx := k.BeginSetup()
	defer tx.End()
	if got := j.Ring(tx); got.Buf != nil || got.Capacity != 3 {
		t.Fatalf("empty ring = %+v", got)
	}
	for i := 1; i <= 7; i++ {
		j.Add(tx, JournalRow{Path: fmt.Sprint(i)})
	}
	var rows []JournalRow
	for r := range j.Rows(tx) {
		rows = append(rows, r)
	}
	if diff := cmp.Diff([]string{"5 5", "6 6", "7 7"}, paths(rows)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	ring := j.Ring(tx)
	if diff := cmp.Diff([]string{"7 7", "5 5", "6 6"}, paths(ring.Buf)); diff != "" {
		t.Errorf("ring (-want +got):\n%s", diff)
	}
	if !ring.Full || ring.Next != 1 || ring.Seq != 7 {
		t.Errorf("ring = %+v", ring)
	}
	j.Reset(tx)
	if j.Len(tx) != 0 || j.Seq(tx) != 7 {
		t.Fatalf("after reset: len %d seq %d", j.Len(tx), j.Seq(tx))
	}
	j.Add(tx, JournalRow{})
	ring = j.Ring(tx)
	if diff := cmp.Diff([]string{"8 "}, paths(ring.Buf)); diff != "" || ring.Full || ring.Next != 0 {
		t.Errorf("after reset: %+v %s", ring, diff)
	}
}
