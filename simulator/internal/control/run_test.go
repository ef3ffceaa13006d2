package control

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// runX is the run of the runner's tests: a counter cell of a kernel, the
// transaction, and what the host saw.
type runX struct {
	h  *fakeHost
	tx *kernel.Tx
}

// fakeHost is a Host that records its calls.
type fakeHost struct {
	k      kernel.Kernel
	count  *kernel.Cell[int]
	calls  []string
	due    int
	logErr error
}

func newFakeHost() *fakeHost {
	h := &fakeHost{}
	h.count = kernel.NewCell(&h.k, "count", 0)
	return h
}

func (h *fakeHost) Tx(x *runX) *kernel.Tx { return x.tx }
func (h *fakeHost) Begin(x *runX, o *Op[*runX]) {
	x.tx = h.k.Begin()
	h.calls = append(h.calls, "begin")
}
func (h *fakeHost) Legacy(*runX) bool        { return false }
func (h *fakeHost) Refused(r *Refusal) error { return errors.New("refused " + r.Field) }
func (h *fakeHost) LogCall(_ *runX, name string, args []any, run func() error) error {
	if h.logErr != nil {
		return h.logErr
	}
	h.calls = append(h.calls, "log "+name)
	return run()
}
func (h *fakeHost) RunDue(*runX) { h.due++ }

// countIn adds N to the counter; the transition refuses (after writing)
// when N is 5.
type countIn struct {
	N int64 `json:"n" dom:"small"`
}

var runDomains = map[string]*Domain[*runX]{"small": IntRange[*runX]("small number", 0, 9)}

func countOp(d Def[*runX, countIn]) *Op[*runX] {
	d.Run = func(x *runX, in *countIn) (any, error) {
		x.h.count.Set(x.tx, x.h.count.Get(x.tx)+int(in.N))
		if in.N == 5 {
			return nil, errors.New("no fives")
		}
		return x.h.count.Get(x.tx), nil
	}
	o := d.Op()
	o.Rules = func(_ *runX, in any) error {
		if in.(*countIn).N == 7 {
			return errors.New("no sevens")
		}
		return nil
	}
	NewRegistry(runDomains, "Action", []*Op[*runX]{o})
	return o
}

// TestInvokeChecksThenRunsInAStep: a Go method's run logs its call, begins
// the transaction, checks the domains and the input's rules before the
// transition, and undoes what a refused transition wrote.
func TestInvokeChecksThenRunsInAStep(t *testing.T) {
	tests := []struct {
		name   string
		n      int64
		logErr error
		want   any
		err    string
		count  int
		calls  []string
	}{
		{name: "runs", n: 2, want: 2, count: 2, calls: []string{"log Count.Add", "begin"}},
		{name: "domain refused", n: 12, err: "refused n", calls: []string{"log Count.Add", "begin"}},
		{name: "rules refused", n: 7, err: "no sevens", calls: []string{"log Count.Add", "begin"}},
		{name: "transition refused, undone", n: 5, err: "no fives", calls: []string{"log Count.Add", "begin"}},
		{name: "log refused", n: 2, logErr: errors.New("disk full"), err: "disk full"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newFakeHost()
			h.logErr = tt.logErr
			o := countOp(Def[*runX, countIn]{Name: "Count.Add", Args: func(in *countIn) []any { return []any{in.N} }})
			out, err := Invoke[*runX](h, &runX{h: h}, o, &countIn{N: tt.n})
			if got := errString(err); got != tt.err {
				t.Fatalf("err = %q, want %q", got, tt.err)
			}
			if diff := cmp.Diff(tt.want, out); diff != "" {
				t.Errorf("out (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.calls, h.calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			tx := h.k.Begin()
			defer tx.End()
			if got := h.count.Get(tx); got != tt.count {
				t.Errorf("count = %d, want %d", got, tt.count)
			}
		})
	}
}

// TestInvokeOfAnOpThatRecordsNoCall runs without logging, and an unlocked
// op without a transaction.
func TestInvokeOfAnOpThatRecordsNoCall(t *testing.T) {
	h := newFakeHost()
	o := countOp(Def[*runX, countIn]{Name: "Count.Add", NoCall: true})
	if _, err := Invoke[*runX](h, &runX{h: h}, o, &countIn{N: 1}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"begin"}, h.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	u := (Def[*runX, NoInput]{Unlocked: true, Run: func(x *runX, _ *NoInput) (any, error) { return x.tx == nil, nil }}).Op()
	NewRegistry(runDomains, "Action", []*Op[*runX]{u})
	out, err := Invoke[*runX](h, &runX{h: h}, u, &NoInput{})
	if err != nil || out != true {
		t.Errorf("unlocked op: out %v, err %v; want true, no transaction", out, err)
	}
}

// TestReplyRunsTheTimersDueOfAWrite: the answer over HTTP is the op's
// reply; a write runs the timers due first, a refusal is the error.
func TestReplyRunsTheTimersDueOfAWrite(t *testing.T) {
	tests := []struct {
		name   string
		n      int64
		derr   error
		write  bool
		status int
		v      any
		err    string
		due    int
	}{
		{name: "write", n: 3, write: true, status: 201, v: 3, due: 1},
		{name: "read", n: 3, status: 201, v: 3},
		{name: "not decoded", derr: errors.New("bad body"), write: true, err: "bad body"},
		{name: "refused", n: 5, write: true, err: "no fives"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newFakeHost()
			o := countOp(Def[*runX, countIn]{Route: "POST /_sim/count", Status: 201})
			x := &runX{h: h}
			var status int
			var v any
			var err error
			InTx[*runX](h, x, o, func() { status, v, err = Reply[*runX](h, x, o, &countIn{N: tt.n}, tt.derr, tt.write) })
			if got := errString(err); got != tt.err {
				t.Fatalf("err = %q, want %q", got, tt.err)
			}
			if status != tt.status || !cmp.Equal(v, tt.v) || h.due != tt.due {
				t.Errorf("status %d, v %v, due %d; want %d, %v, %d", status, v, h.due, tt.status, tt.v, tt.due)
			}
		})
	}
}

// TestRunActionAnswersJSON: an object action runs as its route, with the
// timers due after it, and answers {"ok": true} when its route has no body.
func TestRunActionAnswersJSON(t *testing.T) {
	h := newFakeHost()
	o := countOp(Def[*runX, countIn]{Action: "count/add"})
	none := (Def[*runX, NoInput]{Action: "none", Run: func(*runX, *NoInput) (any, error) { return nil, nil }}).Op()
	NewRegistry(runDomains, "Action", []*Op[*runX]{none})
	tests := []struct {
		name string
		o    *Op[*runX]
		body string
		want string
		err  string
	}{
		{name: "answer", o: o, body: `{"n": 4}`, want: "4"},
		{name: "no answer", o: none, want: `{"ok":true}`},
		{name: "unknown field", o: o, body: `{"m": 1}`, err: "invalid_request"},
		{name: "refused", o: o, body: `{"n": 5}`, err: "no fives"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := &runX{h: h}
			var out []byte
			var err error
			InTx[*runX](h, x, tt.o, func() { out, err = RunAction[*runX](h, x, tt.o, "id", []byte(tt.body)) })
			if got := errString(err); tt.err == "" && got != "" || tt.err != "" && !strings.Contains(got, tt.err) {
				t.Fatalf("err = %q, want %q", got, tt.err)
			}
			if string(out) != tt.want {
				t.Errorf("out = %s, want %s", out, tt.want)
			}
		})
	}
}

// TestActionKeysAndList: the actions' keys sorted, and a nil list as [].
func TestActionKeysAndList(t *testing.T) {
	ops := []*Op[*runX]{
		(Def[*runX, NoInput]{Action: "b/x"}).Op(),
		(Def[*runX, NoInput]{Action: "a/y"}).Op(),
		(Def[*runX, NoInput]{Route: "GET /_sim/z"}).Op(),
	}
	r := NewRegistry(runDomains, "Action", ops)
	if diff := cmp.Diff([]string{"a/y", "b/x"}, r.ActionKeys()); diff != "" {
		t.Errorf("ActionKeys (-want +got):\n%s", diff)
	}
	if got := List[string](nil).Data; !cmp.Equal(got, []string{}) {
		t.Errorf("List(nil).Data = %#v, want []string{}", got)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
