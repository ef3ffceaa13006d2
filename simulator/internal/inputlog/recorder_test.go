package inputlog

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

type testConfig struct {
	Seed int64 `json:"seed"`
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// logged is what the tests compare of a logged input.
type logged struct {
	Seq   int64
	Op    string
	Rules int
	URL   string
}

func summary(ins []*recfile.Input) []logged {
	var out []logged
	for _, in := range ins {
		out = append(out, logged{in.Seq, in.Op, in.Rules, in.URL})
	}
	return out
}

// TestRecorderLog holds the numbering, the rules an input is logged with,
// the base_url input a change of address logs first, the clock the log
// holds and the in-memory recording's limit.
func TestRecorderLog(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		limit   int64
		urls    []string // the address before each input ("" for none)
		ops     []string
		want    []logged
		seq     int64
		dropped int64
	}{
		{
			name: "no address", limit: 1 << 20,
			ops:  []string{recfile.OpHTTP, recfile.OpCall},
			want: []logged{{1, recfile.OpHTTP, 5, ""}, {2, recfile.OpCall, 5, ""}},
			seq:  2,
		},
		{
			name: "an address change is logged once, before the input", limit: 1 << 20,
			urls: []string{"http://a", "http://a", "http://b"},
			ops:  []string{recfile.OpHTTP, recfile.OpHTTP, recfile.OpAdvance},
			want: []logged{
				{1, recfile.OpBase, 0, "http://a"}, {2, recfile.OpHTTP, 5, ""}, {3, recfile.OpHTTP, 5, ""},
				{4, recfile.OpBase, 0, "http://b"}, {5, recfile.OpAdvance, 5, ""},
			},
			seq: 5,
		},
		{
			name: "past the limit the recording is let go", limit: 1,
			ops: []string{recfile.OpHTTP, recfile.OpHTTP},
			seq: 2, dropped: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := NewRecorder(testConfig{Seed: 7}, 7, tt.limit, 5)
			url := ""
			if tt.urls != nil {
				r.SetBase(func() string { return url })
			}
			for i, op := range tt.ops {
				if tt.urls != nil {
					url = tt.urls[i]
				}
				if _, err := r.Log(&recfile.Input{Op: op, Clock: t0.Add(time.Duration(i) * time.Second)}); err != nil {
					t.Fatal(err)
				}
			}
			got, err := r.MemInputs()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, summary(got)); diff != "" {
				t.Errorf("logged (-want +got):\n%s", diff)
			}
			p := r.Point()
			if p.Seq != tt.seq || p.Dropped != tt.dropped || r.Seq() != tt.seq {
				t.Errorf("seq %d (point %d), dropped %d; want %d, %d", r.Seq(), p.Seq, p.Dropped, tt.seq, tt.dropped)
			}
			full := errors.New("full")
			if ins, err := p.Inputs(full); tt.dropped > 0 {
				if err != full {
					t.Errorf("Point.Inputs of a log past its limit: %v, want %v", err, full)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if diff := cmp.Diff(tt.want, summary(ins)); diff != "" {
				t.Errorf("Point.Inputs (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(recfile.Header[testConfig]{Format: recfile.Format, Version: recfile.Version, Config: testConfig{Seed: 7}}, p.Header); diff != "" {
				t.Errorf("header (-want +got):\n%s", diff)
			}
			last := t0.Add(time.Duration(len(tt.ops)-1) * time.Second)
			if r.Behind(last) || !r.Behind(last.Add(time.Nanosecond)) {
				t.Errorf("the log's clock is not %v", last)
			}
		})
	}
}

// TestRecorderRules holds the rules of the input running (Undo,
// RunningRules) and whether the last input ran under earlier argument
// rules (LegacyRules).
func TestRecorderRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		rules          int
		running        *recfile.Input // set before, if any
		undo, legacy   bool
		runningRules   int
		logBeforeCheck bool
	}{
		{name: "this build's rules", rules: 5, undo: true, runningRules: 5, logBeforeCheck: true},
		{name: "rules 3 keep a refusal's writes", rules: 3, undo: false, legacy: false, runningRules: 3, logBeforeCheck: true},
		{name: "a replayed input of rules 2", rules: 5, running: &recfile.Input{Op: recfile.OpHTTP, Rules: 2}, undo: false, runningRules: 2},
		{name: "base_url leaves the rules", rules: 4, running: &recfile.Input{Op: recfile.OpBase}, undo: true, runningRules: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := NewRecorder(testConfig{}, 1, 1<<20, tt.rules)
			if tt.logBeforeCheck {
				if _, err := r.Log(&recfile.Input{Op: recfile.OpCall}); err != nil {
					t.Fatal(err)
				}
			}
			if tt.running != nil {
				r.SetRunning(tt.running)
			}
			if r.Undo() != tt.undo || r.RunningRules() != tt.runningRules {
				t.Errorf("undo %v, running %d; want %v, %d", r.Undo(), r.RunningRules(), tt.undo, tt.runningRules)
			}
			if tt.logBeforeCheck && r.LegacyRules() != tt.legacy {
				t.Errorf("legacy rules %v, want %v", r.LegacyRules(), tt.legacy)
			}
		})
	}
}

// TestRecorderReplay holds the check of a replay's inputs against the
// recording: a divergence refuses the input and every one after it.
func TestRecorderReplay(t *testing.T) {
	t.Parallel()
	r := NewRecorder(testConfig{}, 1, 1<<20, 5)
	want := &recfile.Input{Seq: 1, Op: recfile.OpAdvance, To: t0, Rules: 4}
	if err := r.Expect(want); err != nil || !r.Replaying() {
		t.Fatalf("expect: %v, replaying %v", err, r.Replaying())
	}
	got := &recfile.Input{Op: recfile.OpAdvance, To: t0}
	if _, err := r.Log(got); err != nil {
		t.Fatal(err)
	}
	if err := r.Logged(want, nil); err != nil {
		t.Fatal(err)
	}
	if got.Rules != 4 || r.RunningRules() != 4 {
		t.Errorf("a replayed input runs under its recorded rules: got %d, running %d", got.Rules, r.RunningRules())
	}
	if err := r.Expect(&recfile.Input{Seq: 2, Op: recfile.OpCall, Call: "Cards.Ship"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Log(&recfile.Input{Op: recfile.OpCall, Call: "Cards.Freeze"}); err == nil {
		t.Fatal("a diverging input was logged")
	}
	if err := r.Expect(&recfile.Input{Seq: 2, Op: recfile.OpCall}); err == nil {
		t.Error("the divergence was forgotten")
	}
	r.EndReplay()
	if r.Replaying() || r.Seq() != 1 {
		t.Errorf("after the replay: replaying %v, seq %d", r.Replaying(), r.Seq())
	}
}

// TestRecorderWithoutStore holds what a recorder without a data directory
// does with durability, failures, restarts and parked requests.
func TestRecorderWithoutStore(t *testing.T) {
	t.Parallel()
	r := NewRecorder(testConfig{}, 1, 1<<20, 5)
	if err := r.Durable(10); err != nil || r.Store() != nil {
		t.Errorf("durable without a store: %v", err)
	}
	r.Fail(errors.New("disk gone")) // no store: nothing to refuse
	r.StartAt(41)
	r.NotInMemory()
	if _, err := r.Log(&recfile.Input{Op: recfile.OpHTTP}); err != nil {
		t.Fatal(err)
	}
	mem, _ := r.MemInputs()
	if r.Seq() != 42 || len(mem) != 0 {
		t.Errorf("seq %d, %d inputs in memory; want 42, 0", r.Seq(), len(mem))
	}
	r.Park()
	r.Park()
	r.Unpark()
	if r.Parked() != 1 {
		t.Errorf("parked %d, want 1", r.Parked())
	}
	if a, b := r.ControlID(), r.ControlID(); a == b {
		t.Errorf("control ids repeat: %s", a)
	}
}

// TestCallError holds the wording and the HTTP answer of a Go control call
// the data directory refused.
func TestCallError(t *testing.T) {
	t.Parallel()
	disk := errors.New("disk full")
	tests := []struct {
		err       *CallError
		msg, code string
	}{
		{&CallError{Call: "Cards.Ship", Err: disk}, "simulator: Cards.Ship not executed: disk full", "service_unavailable"},
		{&CallError{Call: "Cards.Ship", Ran: true, Err: disk}, "simulator: Cards.Ship ran but is not durable: disk full", "service_unavailable"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.msg {
			t.Errorf("Error() = %q, want %q", got, tt.msg)
		}
		if !errors.Is(tt.err, disk) {
			t.Errorf("%v does not wrap the store's error", tt.err)
		}
		a := tt.err.Answer()
		want := NotPersisted(disk)
		if tt.err.Ran {
			want = NotDurable(disk)
		}
		if diff := cmp.Diff(want.Error(), a.Error()); diff != "" || a.Code != tt.code {
			t.Errorf("answer %s (-want +got):\n%s", a.Code, diff)
		}
	}
}
