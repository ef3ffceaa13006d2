package webhooks

import (
	"fmt"
	"testing"
)

// TestFlushResultMessage: the counts, at most five failed attempts, how
// many more there are, and the hint.
func TestFlushResultMessage(t *testing.T) {
	t.Parallel()
	fail := func(n int) []Failure {
		var out []Failure
		for i := range n {
			out = append(out, Failure{EventType: "qr.order.updated", EventID: fmt.Sprintf("evt_%d", i), URL: "http://r/x", Error: "status 500"})
		}
		return out
	}
	for _, tt := range []struct {
		name string
		r    FlushResult
		want string
	}{
		{"one failure", FlushResult{Attempted: 2, Failed: 1, Failures: fail(1)},
			"simulator: 1 of 2 webhook delivery attempts failed; qr.order.updated evt_0 to http://r/x: status 500"},
		{"with a hint", FlushResult{Attempted: 1, Failed: 1, Failures: fail(1), Hint: "the receiver checks timestamps on its own clock"},
			"simulator: 1 of 1 webhook delivery attempts failed; qr.order.updated evt_0 to http://r/x: status 500 (the receiver checks timestamps on its own clock)"},
		{"five listed", FlushResult{Attempted: 5, Failed: 5, Failures: fail(5)},
			"simulator: 5 of 5 webhook delivery attempts failed; qr.order.updated evt_0 to http://r/x: status 500; qr.order.updated evt_1 to http://r/x: status 500; qr.order.updated evt_2 to http://r/x: status 500; qr.order.updated evt_3 to http://r/x: status 500; qr.order.updated evt_4 to http://r/x: status 500"},
		{"seven: two more", FlushResult{Attempted: 7, Failed: 7, Failures: fail(7)},
			"simulator: 7 of 7 webhook delivery attempts failed; qr.order.updated evt_0 to http://r/x: status 500; qr.order.updated evt_1 to http://r/x: status 500; qr.order.updated evt_2 to http://r/x: status 500; qr.order.updated evt_3 to http://r/x: status 500; qr.order.updated evt_4 to http://r/x: status 500; and 2 more (sim.Webhooks.Deliveries lists them)"},
	} {
		if got := tt.r.Message(); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}
