package qrpay_test

import (
	"testing"

	"github.com/mwallet/mwallet-go/qrpay"
)

// The state table: every pair of known statuses, and unknown ones.
func TestFollows(t *testing.T) {
	t.Parallel()
	known := []qrpay.Status{qrpay.StatusPending, qrpay.StatusProcessing, qrpay.StatusCompleted, qrpay.StatusFailed,
		qrpay.StatusExpired, qrpay.StatusCanceled, qrpay.StatusRefunded}
	want := map[[2]qrpay.Status]bool{}
	for _, to := range known[1:] {
		want[[2]qrpay.Status{qrpay.StatusPending, to}] = true
	}
	for _, to := range []qrpay.Status{qrpay.StatusCompleted, qrpay.StatusFailed, qrpay.StatusExpired, qrpay.StatusCanceled, qrpay.StatusRefunded} {
		want[[2]qrpay.Status{qrpay.StatusProcessing, to}] = true
	}
	want[[2]qrpay.Status{qrpay.StatusCompleted, qrpay.StatusRefunded}] = true
	for _, from := range append(known, "settling") {
		for _, to := range append(known, "settling") {
			if got := to.Follows(from); got != want[[2]qrpay.Status{from, to}] {
				t.Errorf("%s.Follows(%s) = %v", to, from, got)
			}
		}
	}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	s := func(st qrpay.Status, v int64) qrpay.Snapshot { return qrpay.Snapshot{Status: st, Version: v} }
	tests := []struct {
		name            string
		current, update qrpay.Snapshot
		want            qrpay.Snapshot
		outcome         qrpay.MergeOutcome
	}{
		{"nothing known", qrpay.Snapshot{}, s("processing", 0), s("processing", 0), qrpay.MergeAdvanced},
		{"read moves forward", s("processing", 0), s("completed", 0), s("completed", 0), qrpay.MergeAdvanced},
		{"late read does not undo", s("completed", 0), s("processing", 0), s("completed", 0), qrpay.MergeKept},
		{"refunded after completed", s("completed", 3), s("refunded", 0), s("refunded", 3), qrpay.MergeAdvanced},
		{"refunded after failed is not in the table", s("failed", 0), s("refunded", 0), s("failed", 0), qrpay.MergeUnordered},
		{"two finals not linked", s("completed", 0), s("failed", 0), s("completed", 0), qrpay.MergeUnordered},
		{"same status keeps the higher version", s("completed", 0), s("completed", 3), s("completed", 3), qrpay.MergeKept},
		{"events: newer version wins", s("processing", 2), s("completed", 3), s("completed", 3), qrpay.MergeAdvanced},
		{"events: older version dropped", s("completed", 3), s("processing", 2), s("completed", 3), qrpay.MergeKept},
		{"events: equal version dropped", s("completed", 3), s("failed", 3), s("completed", 3), qrpay.MergeKept},
		{"events: the version orders an unknown status", s("completed", 3), s("settled_partially", 4), s("settled_partially", 4), qrpay.MergeAdvanced},
		{"events: an older unknown is dropped", s("refunded", 4), s("settled_partially", 3), s("refunded", 4), qrpay.MergeKept},
		{"read of an unknown status is never ranked", s("processing", 2), s("settled_partially", 0), s("processing", 2), qrpay.MergeUnordered},
		{"an unknown current is never outranked by a read", s("settled_partially", 4), s("completed", 0), s("settled_partially", 4), qrpay.MergeUnordered},
		{"an unknown read equal to current", s("settled_partially", 4), s("settled_partially", 0), s("settled_partially", 4), qrpay.MergeKept},
		{"event after a read that went further", s("completed", 0), s("processing", 2), s("completed", 2), qrpay.MergeKept},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, outcome := qrpay.Merge(tt.current, tt.update)
			if got != tt.want || outcome != tt.outcome {
				t.Errorf("Merge(%v, %v) = %v, %s; want %v, %s", tt.current, tt.update, got, outcome, tt.want, tt.outcome)
			}
		})
	}
}
