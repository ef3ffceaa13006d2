package simulator

import (
	"crypto/sha256"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// idemAnswer is what idemStore.check decided, for comparing.
type idemAnswer struct {
	Replay          bool   // a kept answer is replayed
	Status          int    // its status
	RequestID       string // the request that stored it
	Code            string // the refusal, "" when none
	RetryAfter      string // the refusal's Retry-After, if any
	Records, Queued int
}

func checkIdem(tx *kernel.Tx, st *idemStore, recKey, endpoint string, hash [sha256.Size]byte, now time.Time, capacity int) idemAnswer {
	rec, ae := st.check(tx, recKey, endpoint, hash, now, capacity)
	a := idemAnswer{Records: st.len(tx), Queued: st.queue.Len(tx)}
	if ae != nil {
		a.Code, a.RetryAfter = ae.Code, ae.Header["Retry-After"]
	}
	if rec != nil {
		a.Replay, a.Status, a.RequestID = true, rec.Status, rec.RequestID
	}
	return a
}

// newTestIdemStore is a store on a kernel of its own, with the
// transaction its test writes in.
func newTestIdemStore(t *testing.T) (*kernel.Tx, idemStore) {
	t.Helper()
	k := new(kernel.Kernel)
	tx := k.BeginSetup()
	t.Cleanup(tx.End)
	return tx, newIdemStore(k)
}

// TestIdemStoreLifecycle walks one key through the store: executed, kept,
// replayed, refused for another body or endpoint, expired and swept, and
// keys of two merchants kept apart.
func TestIdemStoreLifecycle(t *testing.T) {
	t.Parallel()
	tx, st := newTestIdemStore(t)
	t0 := DefaultStart
	body, other := sha256.Sum256([]byte("a")), sha256.Sum256([]byte("b"))
	k := idemKey("mch_1", "k1")
	const ep = "POST /v1/cards"
	type step struct {
		name string
		do   func() idemAnswer
		want idemAnswer
	}
	var rec idemRow
	steps := []step{
		{"a fresh key executes", func() idemAnswer { return checkIdem(tx, &st, k, ep, body, t0, 10) }, idemAnswer{}},
		{"started: the same request is in progress", func() idemAnswer {
			rec = st.start(tx, k, ep, body, t0)
			return checkIdem(tx, &st, k, ep, body, t0, 10)
		}, idemAnswer{Code: "idempotency_in_progress", Records: 1}},
		{"started: another body reuses the key", func() idemAnswer { return checkIdem(tx, &st, k, ep, other, t0, 10) },
			idemAnswer{Code: "idempotency_key_reused", Records: 1}},
		{"kept: replayed to the same request", func() idemAnswer {
			st.end(tx, k, rec, response{status: 201, header: http.Header{"X-A": {"1"}}, body: []byte(`{}`)}, "req_1")
			return checkIdem(tx, &st, k, ep, body, t0.Add(idempotencyWindow-time.Nanosecond), 10)
		}, idemAnswer{Replay: true, Status: 201, RequestID: "req_1", Records: 1, Queued: 1}},
		{"kept: another endpoint reuses the key", func() idemAnswer { return checkIdem(tx, &st, k, "POST /v1/remittances", body, t0, 10) },
			idemAnswer{Code: "idempotency_key_reused", Records: 1, Queued: 1}},
		{"kept: a full store still replays it", func() idemAnswer { return checkIdem(tx, &st, k, ep, body, t0, 1) },
			idemAnswer{Replay: true, Status: 201, RequestID: "req_1", Records: 1, Queued: 1}},
		{"another merchant's key is another record", func() idemAnswer { return checkIdem(tx, &st, idemKey("mch_2", "k1"), ep, body, t0, 10) },
			idemAnswer{Records: 1, Queued: 1}},
		{"expired, not yet swept: the key executes again", func() idemAnswer { return checkIdem(tx, &st, k, ep, other, t0.Add(idempotencyWindow), 10) },
			idemAnswer{Records: 1, Queued: 1}},
		{"swept inside the window: nothing goes", func() idemAnswer {
			st.sweep(tx, t0.Add(idempotencyWindow-time.Nanosecond))
			return idemAnswer{Records: st.len(tx), Queued: st.queue.Len(tx)}
		}, idemAnswer{Records: 1, Queued: 1}},
		{"swept at the window's end: gone", func() idemAnswer {
			st.sweep(tx, t0.Add(idempotencyWindow))
			return idemAnswer{Records: st.len(tx), Queued: st.queue.Len(tx)}
		}, idemAnswer{}},
	}
	for _, s := range steps {
		if diff := cmp.Diff(s.want, s.do()); diff != "" {
			t.Fatalf("%s (-want +got):\n%s", s.name, diff)
		}
	}
	// The kept header is a copy.
	tx2, st2 := newTestIdemStore(t)
	h := http.Header{"X-A": {"1"}}
	r := st2.start(tx2, k, ep, body, t0)
	st2.end(tx2, k, r, response{status: 200, header: h}, "req_2")
	h.Set("X-A", "2")
	if kept, _ := st2.records.Get(tx2, k); kept.header().Get("X-A") != "1" {
		t.Errorf("kept header follows the caller's: %q", kept.header().Get("X-A"))
	}
}

// TestIdemStoreNotKept: every answer notStoredCodes lists, and a transient
// refusal, removes the record instead of keeping it, so the resend
// executes; any other answer is kept.
func TestIdemStoreNotKept(t *testing.T) {
	t.Parallel()
	codes := make([]string, 0, len(notStoredCodes)+2)
	for c := range notStoredCodes {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	codes = append(codes, "service_unavailable (transient)", "insufficient_balance", "")
	t0 := DefaultStart
	for _, code := range codes {
		tx, st := newTestIdemStore(t)
		k := idemKey("mch_1", "k")
		rec := st.start(tx, k, "POST /v1/x", [sha256.Size]byte{}, t0)
		resp := response{status: 400, code: code}
		if code == "service_unavailable (transient)" {
			resp.code, resp.transient = "service_unavailable", true
		}
		st.end(tx, k, rec, resp, "req")
		_, kept := notStoredCodes[resp.code]
		kept = !kept && !resp.transient
		if got := st.len(tx) == 1 && st.queue.Len(tx) == 1; got != kept {
			t.Errorf("%q: kept %v, want %v (%d records, %d queued)", code, got, kept, st.len(tx), st.queue.Len(tx))
		}
	}
}

// TestIdemStoreCapacity: a full store refuses a new key (400
// service_unavailable, transient, Retry-After the seconds until the oldest
// kept record leaves), and an expired record not yet swept still counts.
func TestIdemStoreCapacity(t *testing.T) {
	t.Parallel()
	t0 := DefaultStart
	tx, st := newTestIdemStore(t)
	for i, at := range []time.Duration{0, time.Hour} {
		k := idemKey("mch_1", string(rune('a'+i)))
		rec := st.start(tx, k, "POST /v1/x", [sha256.Size]byte{}, t0.Add(at))
		st.end(tx, k, rec, response{status: 200}, "req")
	}
	for _, tc := range []struct {
		at       time.Duration
		capacity int
		want     idemAnswer
	}{
		{0, 3, idemAnswer{Records: 2, Queued: 2}},
		{0, 2, idemAnswer{Code: "service_unavailable", RetryAfter: "86400", Records: 2, Queued: 2}},
		{idempotencyWindow - 1500*time.Millisecond, 2, idemAnswer{Code: "service_unavailable", RetryAfter: "2", Records: 2, Queued: 2}},
		{idempotencyWindow, 2, idemAnswer{Code: "service_unavailable", RetryAfter: "1", Records: 2, Queued: 2}},
	} {
		got := checkIdem(tx, &st, idemKey("mch_1", "new"), "POST /v1/x", [sha256.Size]byte{}, t0.Add(tc.at), tc.capacity)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("at +%v, capacity %d (-want +got):\n%s", tc.at, tc.capacity, diff)
		}
	}
	if _, ae := st.check(tx, idemKey("mch_1", "new"), "POST /v1/x", [sha256.Size]byte{}, t0, 2); ae == nil || !ae.Transient || ae.Status != 400 {
		t.Errorf("full store refusal %+v: want a transient 400", ae)
	}
}

// TestIdemStoreStaged: a record StartInProgress stages holds its key until
// its time runs out, then is dropped on lookup, unqueued, so the next
// request executes; a key that holds a record cannot be staged.
func TestIdemStoreStaged(t *testing.T) {
	t.Parallel()
	t0 := DefaultStart
	tx, st := newTestIdemStore(t)
	k := idemKey("mch_1", "k")
	h := sha256.Sum256([]byte("body"))
	if err := st.stage(tx, k, "POST /v1/x", h, t0, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		got  func() any
		want any
	}{
		{"staged: the request is in progress", func() any { return checkIdem(tx, &st, k, "POST /v1/x", h, t0.Add(59*time.Second), 10) },
			idemAnswer{Code: "idempotency_in_progress", Records: 1}},
		{"staged: staged again is refused", func() any { return st.stage(tx, k, "POST /v1/x", h, t0, t0.Add(time.Minute)).(*apiError).Code },
			"state_invalid"},
		{"time out: dropped, the request executes", func() any { return checkIdem(tx, &st, k, "POST /v1/x", h, t0.Add(time.Minute), 10) },
			idemAnswer{}},
		{"dropped: staged anew", func() any { return st.stage(tx, k, "POST /v1/x", h, t0.Add(time.Minute), t0.Add(2*time.Minute)) == nil },
			true},
		{"a kept answer cannot be staged over", func() any {
			k2 := idemKey("mch_1", "k2")
			rec := st.start(tx, k2, "POST /v1/x", h, t0)
			st.end(tx, k2, rec, response{status: 200}, "req")
			return st.stage(tx, k2, "POST /v1/x", h, t0, t0.Add(time.Minute)).(*apiError).Code
		}, "state_invalid"},
	} {
		if diff := cmp.Diff(tc.want, tc.got()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	// A record still running after its window is looked at again a minute
	// later, not deleted.
	tx3, st3 := newTestIdemStore(t)
	k3 := idemKey("mch_1", "held")
	rec := st3.start(tx3, k3, "POST /v1/x", h, t0)
	st3.queue.Push(tx3, k3, rec.ExpiresAt)
	st3.sweep(tx3, t0.Add(idempotencyWindow))
	if it, ok := st3.queue.Peek(tx3); st3.len(tx3) != 1 || !ok || !it.At.Equal(t0.Add(idempotencyWindow+time.Minute)) {
		t.Errorf("a held record past its window: %d records, queue head %v %v", st3.len(tx3), it, ok)
	}
}
