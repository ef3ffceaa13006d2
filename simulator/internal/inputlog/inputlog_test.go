package inputlog

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// failAfter reads from r, then fails instead of reporting EOF.
type failAfter struct{ r io.Reader }

func (f failAfter) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, errors.New("connection reset")
	}
	return n, err
}

// TestBody holds what a capture keeps and what the handler reads: a read
// part, then a read-ahead, up to the bound, with the source's failure.
func TestBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		src       string
		fail      bool
		max       int
		handler   int // bytes the handler reads before the read-ahead
		keep      string
		failed    bool
		afterRead string // what the handler reads after the read-ahead
	}{
		{name: "read ahead", src: "hello world", max: 100, handler: 5, keep: "hello world", afterRead: " world"},
		{name: "read nothing first", src: "abc", max: 100, keep: "abc", afterRead: "abc"},
		{name: "read whole", src: "abc", max: 100, handler: 10, keep: "abc"},
		{name: "bound", src: "abcdefgh", max: 4, handler: 2, keep: "abcd", afterRead: "cdefgh"},
		{name: "source fails", src: "abc", fail: true, max: 100, handler: 1, keep: "abc", failed: true, afterRead: "bc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var src io.Reader = strings.NewReader(tt.src)
			if tt.fail {
				src = failAfter{src}
			}
			var b Body
			if tt.handler > 0 {
				p := make([]byte, tt.handler)
				n, _ := b.Read(src, p, tt.max)
				if want := min(tt.handler, len(tt.src)); n != want {
					t.Fatalf("first read: %d bytes, want %d", n, want)
				}
			}
			b.ReadAhead(src, tt.max)
			if diff := cmp.Diff(tt.keep, string(b.Bytes())); diff != "" {
				t.Errorf("kept (-want +got):\n%s", diff)
			}
			if b.Failed() != tt.failed {
				t.Errorf("Failed() = %v, want %v", b.Failed(), tt.failed)
			}
			var rest []byte
			p := make([]byte, 3)
			for range 100 {
				n, err := b.Read(src, p, tt.max)
				rest = append(rest, p[:n]...)
				if err != nil || n == 0 {
					break
				}
			}
			if diff := cmp.Diff(tt.afterRead, string(rest)); diff != "" {
				t.Errorf("read after the read-ahead (-want +got):\n%s", diff)
			}
		})
	}
}

// TestControlIDs pins the control ids a seed gives: they are in the
// answers the recordings' tests compare.
func TestControlIDs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		seed int64
		want []string
	}{
		{0, []string{"req_c1_9b1gr14x", "req_c2_5engrpio", "req_c3_btoud0kg"}},
		{42, []string{"req_c1_44mkmmc6", "req_c2_afx5nka", "req_c3_6a2pdfxm"}},
	}
	for _, tt := range tests {
		c := NewControlIDs(tt.seed)
		var got []string
		for range tt.want {
			got = append(got, c.Next())
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("seed %d (-want +got):\n%s", tt.seed, diff)
		}
	}
}

func raw(s ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(s))
	for i, v := range s {
		out[i] = json.RawMessage(v)
	}
	return out
}

// TestSummarize holds the stepper's line for each kind of input.
func TestSummarize(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("X", 3600))
	long := `"` + strings.Repeat("x", 70) + `"`
	tests := []struct {
		in   recfile.Input
		want string
	}{
		{recfile.Input{Op: recfile.OpHTTP, Method: "GET", Target: "/v1/a", Header: http.Header{"X-On-Behalf-Of": {"m1"}}}, "GET /v1/a (m1)"},
		{recfile.Input{Op: recfile.OpCall, Call: "Keys.Add", Args: raw(`"k"`, `"id"`, `"key"`)}, `Keys.Add("k", "[redacted]", "[redacted]")`},
		{recfile.Input{Op: recfile.OpCall, Call: "Cards.Set", Args: raw(`{"pin":"1234"}`, long)}, `Cards.Set({"pin":"[redacted]"}, "` + strings.Repeat("x", 56) + `...)`},
		{recfile.Input{Op: recfile.OpAttempt, Delivery: "d1", StatusCode: 200}, "→ 200"},
		{recfile.Input{Op: recfile.OpAttempt, Delivery: "d1", Error: "refused"}, "→ no answer"},
		{recfile.Input{Op: recfile.OpFlushDue}, "webhook flush: pick the due deliveries"},
		{recfile.Input{Op: recfile.OpFlushAbort, Deliveries: []string{"a", "b"}}, "webhook flush cancelled: 2 deliveries back to pending"},
	}
	for _, tt := range tests {
		tt.in.Seq, tt.in.Clock = 7, at
		got := Summarize(&tt.in)
		if got.Seq != 7 || !got.Clock.Equal(at) || got.Clock.Location() != time.UTC || got.Op != tt.in.Op {
			t.Errorf("%s: summary %+v: want seq 7, the clock in UTC and the op", tt.want, got)
		}
		if !strings.HasSuffix(got.Summary, tt.want) {
			t.Errorf("summary %q, want it to end with %q", got.Summary, tt.want)
		}
	}
}

// TestRedact holds what the stepper hides of an input and of an answer.
func TestRedact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"nested", `{"a":{"card_number":"4111","n":1},"l":[{"Api_Key":"k"}]}`, `{"a":{"card_number":"[redacted]","n":1},"l":[{"Api_Key":"[redacted]"}]}`},
		{"empty kept", `{"pin":"","token":null}`, `{"pin":"","token":null}`},
		{"nothing to hide", `{"b": 1}`, `{"b": 1}`},
		{"not JSON", `pin=1234`, `pin=1234`},
		{"empty", ``, ``},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, string(RedactJSON([]byte(tt.in)))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}

	in := &recfile.Input{Op: recfile.OpCall, Call: "Keys.Add", Args: raw(`"k"`, `""`, `"secret"`),
		Header: http.Header{"Authorization": {"Bearer x"}, "X-Nonce": {"n"}, "Accept": {"a"}}, Body: []byte(`{"cvv":"123"}`)}
	var got map[string]any
	if err := json.Unmarshal(RedactInput(in), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"op": "call", "call": "Keys.Add", "args": []any{"k", "", "[redacted]"},
		"header": map[string]any{"Authorization": []any{"[redacted]"}, "X-Nonce": []any{"[redacted]"}, "Accept": []any{"a"}}}
	for k, w := range want {
		if diff := cmp.Diff(w, got[k]); diff != "" {
			t.Errorf("input's %s (-want +got):\n%s", k, diff)
		}
	}
	if in.Header.Get("Authorization") != "Bearer x" || string(in.Args[2]) != `"secret"` {
		t.Errorf("RedactInput changed its input: %+v", in)
	}
}

// TestRefusals holds the answers of an input the data directory could not
// take or make durable: transient, retried after 5 seconds.
func TestRefusals(t *testing.T) {
	t.Parallel()
	cause := errors.New("disk full")
	tests := []struct {
		name string
		got  *api.Error
		msg  string
	}{
		{"not persisted", NotPersisted(cause), "the simulator could not record the request in its data directory; nothing was executed: retry later (disk full)"},
		{"not durable", NotDurable(cause), "the simulator could not make the request durable in its data directory and refuses writes until it restarts; resend with the same idempotency key once it has (disk full)"},
	}
	for _, tt := range tests {
		want := api.NewErr("service_unavailable", tt.msg)
		want.Header = map[string]string{"Retry-After": "5"}
		want.Transient = true
		if diff := cmp.Diff(want, tt.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestSteps holds the stepper's pages: the inputs after a seq, at most a
// limit of them, and whether more remain.
func TestSteps(t *testing.T) {
	t.Parallel()
	var inputs []*recfile.Input
	for i := int64(1); i <= 4; i++ {
		inputs = append(inputs, &recfile.Input{Seq: i, Op: recfile.OpFlushDue})
	}
	tests := []struct {
		name  string
		after int64
		limit int
		seqs  []int64
		more  bool
	}{
		{name: "all", limit: 10, seqs: []int64{1, 2, 3, 4}},
		{name: "a page", limit: 2, seqs: []int64{1, 2}, more: true},
		{name: "the last page", after: 2, limit: 2, seqs: []int64{3, 4}},
		{name: "after the end", after: 4, limit: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, more := Steps(inputs, tt.after, tt.limit)
			var seqs []int64
			for _, s := range out {
				seqs = append(seqs, s.Seq)
			}
			if diff := cmp.Diff(tt.seqs, seqs); diff != "" || more != tt.more {
				t.Errorf("seqs (-want +got):\n%s; more = %v, want %v", diff, more, tt.more)
			}
		})
	}
}
