package control

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestActionOpRunsTheActionByKey: the op of Action is logged as a call of
// its name with the key, id and body, runs the action of the key with the
// id and body as its route would, runs the timers due and answers the
// route's JSON as a json.RawMessage.
func TestActionOpRunsTheActionByKey(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		want  any
		err   string
		calls []string
		due   int
	}{
		{name: "answer", body: `{"n": 3}`, want: json.RawMessage("3"), calls: []string{"log Action", "begin"}, due: 1},
		{name: "refused", body: `{"n": 5}`, err: "no fives", calls: []string{"log Action", "begin"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newFakeHost()
			add := countOp(Def[*runX, countIn]{Action: "count/add"})
			var keys []string
			o := ActionOp("Action", func(*runX) Host[*runX] { return h }, func(key string) *Op[*runX] {
				keys = append(keys, key)
				return add
			})
			out, err := Invoke[*runX](h, &runX{h: h}, o, &ActionIn{Key: "count/add", ID: "id", Body: []byte(tt.body)})
			if got := errString(err); got != tt.err {
				t.Fatalf("err = %q, want %q", got, tt.err)
			}
			if diff := cmp.Diff(tt.want, out); diff != "" {
				t.Errorf("out (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.calls, h.calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"count/add"}, keys); diff != "" {
				t.Errorf("keys looked up (-want +got):\n%s", diff)
			}
			if h.due != tt.due {
				t.Errorf("timers run %d times, want %d", h.due, tt.due)
			}
		})
	}
}
