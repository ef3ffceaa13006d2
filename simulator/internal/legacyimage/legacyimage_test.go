package legacyimage

import (
	"crypto/sha256"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/idempotency"
	"github.com/mwallet/mwallet-go/simulator/internal/ids"
	"github.com/mwallet/mwallet-go/simulator/internal/image"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/outcomes"
	"github.com/mwallet/mwallet-go/simulator/internal/windows"
)

// clock answers the kernel's Now; nothing else of the services is used.
type clock struct {
	kernel.Services
	now time.Time
}

func (c *clock) Now() time.Time { return c.now }

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// TestQueue: a queue never used is the zero image; a used one keeps its
// items and head, a popped item cleared in its place (as the slice of
// those builds held it).
func TestQueue(t *testing.T) {
	t.Parallel()
	k := new(kernel.Kernel)
	unused, used := windows.NewExpiryQueue(k, "q.unused"), windows.NewExpiryQueue(k, "q.used")
	tx := k.BeginSetup()
	defer tx.End()
	used.Push(tx, "a", t0)
	used.Push(tx, "b", t0.Add(time.Minute))
	if _, ok := used.Pop(tx, t0); !ok {
		t.Fatal("a is due at t0")
	}
	for _, tt := range []struct {
		name string
		q    windows.ExpiryQueue
		want image.ExpiryQueue
	}{
		{"unused", unused, image.ExpiryQueue{}},
		{"used", used, image.ExpiryQueue{Items: []image.Expiring{{}, {Key: "b", At: t0.Add(time.Minute)}}, Head: 1}},
	} {
		got := Queue(tx, tt.q)
		items, head, _ := tt.q.Kept(tx)
		if len(items) != len(tt.want.Items) || head != tt.want.Head {
			t.Errorf("%s: kept %d items, head %d; the test expects %d, %d", tt.name, len(items), head, len(tt.want.Items), tt.want.Head)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestIdem: a record in progress is in the image under its key, with its
// endpoint, body hash and window, beside the store's queue.
func TestIdem(t *testing.T) {
	t.Parallel()
	k := new(kernel.Kernel)
	st := idempotency.New(k)
	tx := k.BeginSetup()
	defer tx.End()
	hash := sha256.Sum256([]byte("{}"))
	rec := st.Start(tx, idempotency.Key("mch_1", "key-1"), "POST /v1/deposits", hash, t0)
	got := Idem(tx, st)
	want := image.IdemStore{
		Records: map[string]*image.IdemRecord{idempotency.Key("mch_1", "key-1"): {
			Endpoint: "POST /v1/deposits", BodyHash: hash, ExpiresAt: rec.ExpiresAt, InProgress: true,
			Header: rec.KeptHeader(), Body: rec.KeptBody(),
		}},
		Queue: Queue(tx, st.Queue),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Idem (-want +got):\n%s", diff)
	}
}

// TestTimers: the clock's reading and pending timers, and the outcome
// modes by collection and by object.
func TestTimers(t *testing.T) {
	t.Parallel()
	k := new(kernel.Kernel)
	k.Provide(&clock{now: t0})
	tm := outcomes.New(outcomes.Clock{Now: func() time.Time { return t0 }, Set: func(time.Time) {}})
	tm.Register(k)
	tm.On("things", func(*kernel.Tx, string) error { return nil })
	tx := k.BeginSetup()
	defer tx.End()
	c, os := Timers(tm, tx)
	if diff := cmp.Diff(&image.Clock{Now: t0}, c); diff != "" {
		t.Errorf("clock before any timer (-want +got):\n%s", diff)
	}
	none := &image.OutcomeState{ByCollection: map[string]image.OutcomeMode{}, ByObject: map[string]image.OutcomeMode{}, Pending: map[string]string{}}
	if diff := cmp.Diff(none, os); diff != "" {
		t.Errorf("outcome modes before any (-want +got):\n%s", diff)
	}
	tm.SetCollection(tx, "things", outcomes.Mode{Kind: outcomes.After, After: time.Minute})
	tm.SetObject(tx, "held", outcomes.Mode{Kind: outcomes.Manual})
	tm.InFlight(tx, "things", "a")
	c, os = Timers(tm, tx)
	wantClock := &image.Clock{Now: t0, Seq: 1, Timers: image.TimerHeap{{At: t0.Add(time.Minute), Seq: 1, Id: "a"}}}
	if diff := cmp.Diff(wantClock, c); diff != "" {
		t.Errorf("clock (-want +got):\n%s", diff)
	}
	wantModes := &image.OutcomeState{
		ByCollection: map[string]image.OutcomeMode{"things": {Kind: outcomes.After, After: time.Minute}},
		ByObject:     map[string]image.OutcomeMode{"held": {Kind: outcomes.Manual}},
		Pending:      map[string]string{"a": "things"},
	}
	if diff := cmp.Diff(wantModes, os); diff != "" {
		t.Errorf("outcome modes (-want +got):\n%s", diff)
	}
}

// TestRand: the image's generator is the generator's source, shared with
// the second result, and draws as the generator does.
func TestRand(t *testing.T) {
	t.Parallel()
	k := new(kernel.Kernel)
	g := ids.New(k, "ids.test", 1, 2)
	tx := k.BeginSetup()
	defer tx.End()
	r, p := Rand(g, tx)
	if r.Src != p {
		t.Fatal("the image's source is not the PCG returned")
	}
	if got, want := p.Uint64(), g.Uint64(tx); got != want {
		t.Errorf("the copy draws %d, the generator %d", got, want)
	}
}
