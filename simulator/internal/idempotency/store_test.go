package idempotency

import (
	"crypto/sha256"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// t0 is the instant the tests start at.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// idemAnswer is what Store.Check decided, for comparing.
type idemAnswer struct {
	Replay          bool    // a kept answer is replayed
	Status          int     // its status
	RequestID       string  // the request that stored it
	Refusal         Refusal // the refusal, None when none
	Records, Queued int
}

func checkIdem(tx *kernel.Tx, st *Store, recKey, endpoint string, hash [sha256.Size]byte, now time.Time, capacity int) idemAnswer {
	rec, why := st.Check(tx, recKey, endpoint, hash, now, capacity)
	a := idemAnswer{Refusal: why, Records: st.Len(tx), Queued: st.Queue.Len(tx)}
	if rec != nil {
		a.Replay, a.Status, a.RequestID = true, rec.Status, rec.RequestID
	}
	return a
}

// newTestStore is a store on a kernel of its own, with the
// transaction its test writes in.
func newTestStore(t *testing.T) (*kernel.Tx, Store) {
	t.Helper()
	k := new(kernel.Kernel)
	tx := k.BeginSetup()
	t.Cleanup(tx.End)
	return tx, New(k)
}

// TestStoreLifecycle walks one key through the store: executed, kept,
// replayed, refused for another body or endpoint, expired and swept, and
// keys of two merchants kept apart.
func TestStoreLifecycle(t *testing.T) {
	t.Parallel()
	tx, st := newTestStore(t)
	body, other := sha256.Sum256([]byte("a")), sha256.Sum256([]byte("b"))
	k := Key("mch_1", "k1")
	const ep = "POST /v1/cards"
	type step struct {
		name string
		do   func() idemAnswer
		want idemAnswer
	}
	var rec Record
	steps := []step{
		{"a fresh key executes", func() idemAnswer { return checkIdem(tx, &st, k, ep, body, t0, 10) }, idemAnswer{}},
		{"started: the same request is in progress", func() idemAnswer {
			rec = st.Start(tx, k, ep, body, t0)
			return checkIdem(tx, &st, k, ep, body, t0, 10)
		}, idemAnswer{Refusal: InProgress, Records: 1}},
		{"started: another body reuses the key", func() idemAnswer { return checkIdem(tx, &st, k, ep, other, t0, 10) },
			idemAnswer{Refusal: Reused, Records: 1}},
		{"kept: replayed to the same request", func() idemAnswer {
			st.End(tx, k, rec, Answer{Status: 201, Header: http.Header{"X-A": {"1"}}, Body: []byte(`{}`)}, "req_1")
			return checkIdem(tx, &st, k, ep, body, t0.Add(Window-time.Nanosecond), 10)
		}, idemAnswer{Replay: true, Status: 201, RequestID: "req_1", Records: 1, Queued: 1}},
		{"kept: another endpoint reuses the key", func() idemAnswer { return checkIdem(tx, &st, k, "POST /v1/remittances", body, t0, 10) },
			idemAnswer{Refusal: Reused, Records: 1, Queued: 1}},
		{"kept: a full store still replays it", func() idemAnswer { return checkIdem(tx, &st, k, ep, body, t0, 1) },
			idemAnswer{Replay: true, Status: 201, RequestID: "req_1", Records: 1, Queued: 1}},
		{"another merchant's key is another record", func() idemAnswer { return checkIdem(tx, &st, Key("mch_2", "k1"), ep, body, t0, 10) },
			idemAnswer{Records: 1, Queued: 1}},
		{"expired, not yet swept: the key executes again", func() idemAnswer { return checkIdem(tx, &st, k, ep, other, t0.Add(Window), 10) },
			idemAnswer{Records: 1, Queued: 1}},
		{"swept inside the window: nothing goes", func() idemAnswer {
			st.Sweep(tx, t0.Add(Window-time.Nanosecond))
			return idemAnswer{Records: st.Len(tx), Queued: st.Queue.Len(tx)}
		}, idemAnswer{Records: 1, Queued: 1}},
		{"swept at the window's end: gone", func() idemAnswer {
			st.Sweep(tx, t0.Add(Window))
			return idemAnswer{Records: st.Len(tx), Queued: st.Queue.Len(tx)}
		}, idemAnswer{}},
	}
	for _, s := range steps {
		if diff := cmp.Diff(s.want, s.do()); diff != "" {
			t.Fatalf("%s (-want +got):\n%s", s.name, diff)
		}
	}
	// The kept header is a copy.
	tx2, st2 := newTestStore(t)
	h := http.Header{"X-A": {"1"}}
	r := st2.Start(tx2, k, ep, body, t0)
	st2.End(tx2, k, r, Answer{Status: 200, Header: h}, "req_2")
	h.Set("X-A", "2")
	if kept, _ := st2.Records.Get(tx2, k); kept.KeptHeader().Get("X-A") != "1" {
		t.Errorf("kept header follows the caller's: %q", kept.KeptHeader().Get("X-A"))
	}
}

// TestStoreNotKept: every answer NotKept lists, and a transient
// refusal, removes the record instead of keeping it, so the resend
// executes; any other answer is kept.
func TestStoreNotKept(t *testing.T) {
	t.Parallel()
	codes := make([]string, 0, len(NotKept)+2)
	for c := range NotKept {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	codes = append(codes, "service_unavailable (transient)", "insufficient_balance", "")
	for _, code := range codes {
		tx, st := newTestStore(t)
		k := Key("mch_1", "k")
		rec := st.Start(tx, k, "POST /v1/x", [sha256.Size]byte{}, t0)
		resp := Answer{Status: 400, Code: code}
		if code == "service_unavailable (transient)" {
			resp.Code, resp.Transient = "service_unavailable", true
		}
		st.End(tx, k, rec, resp, "req")
		_, kept := NotKept[resp.Code]
		kept = !kept && !resp.Transient
		if got := st.Len(tx) == 1 && st.Queue.Len(tx) == 1; got != kept {
			t.Errorf("%q: kept %v, want %v (%d records, %d queued)", code, got, kept, st.Len(tx), st.Queue.Len(tx))
		}
	}
}

// TestStoreCapacity: a full store refuses a new key (Full), and an expired
// record not yet swept still counts.
func TestStoreCapacity(t *testing.T) {
	t.Parallel()
	tx, st := newTestStore(t)
	for i, at := range []time.Duration{0, time.Hour} {
		k := Key("mch_1", string(rune('a'+i)))
		rec := st.Start(tx, k, "POST /v1/x", [sha256.Size]byte{}, t0.Add(at))
		st.End(tx, k, rec, Answer{Status: 200}, "req")
	}
	for _, tc := range []struct {
		at       time.Duration
		capacity int
		want     idemAnswer
	}{
		{0, 3, idemAnswer{Records: 2, Queued: 2}},
		{0, 2, idemAnswer{Refusal: Full, Records: 2, Queued: 2}},
		{Window, 2, idemAnswer{Refusal: Full, Records: 2, Queued: 2}},
	} {
		got := checkIdem(tx, &st, Key("mch_1", "new"), "POST /v1/x", [sha256.Size]byte{}, t0.Add(tc.at), tc.capacity)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("at +%v, capacity %d (-want +got):\n%s", tc.at, tc.capacity, diff)
		}
	}
}

// TestStoreStaged: a record StartInProgress stages holds its key until
// its time runs out, then is dropped on lookup, unqueued, so the next
// request executes; a key that holds a record cannot be staged.
func TestStoreStaged(t *testing.T) {
	t.Parallel()
	tx, st := newTestStore(t)
	k := Key("mch_1", "k")
	h := sha256.Sum256([]byte("body"))
	if !st.Stage(tx, k, "POST /v1/x", h, t0, t0.Add(time.Minute)) {
		t.Fatal("a fresh key is not staged")
	}
	for _, tc := range []struct {
		name string
		got  func() any
		want any
	}{
		{"staged: the request is in progress", func() any { return checkIdem(tx, &st, k, "POST /v1/x", h, t0.Add(59*time.Second), 10) },
			idemAnswer{Refusal: InProgress, Records: 1}},
		{"staged: staged again is refused", func() any { return st.Stage(tx, k, "POST /v1/x", h, t0, t0.Add(time.Minute)) },
			false},
		{"time out: dropped, the request executes", func() any { return checkIdem(tx, &st, k, "POST /v1/x", h, t0.Add(time.Minute), 10) },
			idemAnswer{}},
		{"dropped: staged anew", func() any { return st.Stage(tx, k, "POST /v1/x", h, t0.Add(time.Minute), t0.Add(2*time.Minute)) },
			true},
		{"a kept answer cannot be staged over", func() any {
			k2 := Key("mch_1", "k2")
			rec := st.Start(tx, k2, "POST /v1/x", h, t0)
			st.End(tx, k2, rec, Answer{Status: 200}, "req")
			return st.Stage(tx, k2, "POST /v1/x", h, t0, t0.Add(time.Minute))
		}, false},
	} {
		if diff := cmp.Diff(tc.want, tc.got()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	// A record still running after its window is looked at again a minute
	// later, not deleted.
	tx3, st3 := newTestStore(t)
	k3 := Key("mch_1", "held")
	rec := st3.Start(tx3, k3, "POST /v1/x", h, t0)
	st3.Queue.Push(tx3, k3, rec.ExpiresAt)
	st3.Sweep(tx3, t0.Add(Window))
	if it, ok := st3.Queue.Peek(tx3); st3.Len(tx3) != 1 || !ok || !it.At.Equal(t0.Add(Window+time.Minute)) {
		t.Errorf("a held record past its window: %d records, queue head %v %v", st3.Len(tx3), it, ok)
	}
}
