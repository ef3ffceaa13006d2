package mwallet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func payReq() *Request {
	return &Request{Method: http.MethodPost, Path: "/v1/qrpay/payments", MemberScoped: true, Member: "member-1",
		Body: map[string]string{"code_value": "000201", "amount": "12.50"}, Idempotent: true}
}

func TestPendingOutcomes(t *testing.T) {
	t.Parallel()
	// answer scripts the n-th business request.
	type answer func(w http.ResponseWriter, r *http.Request, n int)
	status := func(code int, body map[string]any, replay bool) answer {
		return func(w http.ResponseWriter, _ *http.Request, _ int) {
			if replay {
				w.Header().Set("X-Idempotent-Replay", "true")
			}
			writeTestJSON(w, code, body)
		}
	}
	tests := []struct {
		name     string
		answer   answer
		attempts int
		kept     bool
	}{
		{"created", status(201, map[string]any{"id": "qrp_1"}, false), 3, false},
		{"replayed success", status(201, map[string]any{"id": "qrp_1"}, true), 3, false},
		{"business failure", status(400, errBody("insufficient_balance"), false), 3, false},
		{"replayed 500 business failure", status(500, errBody("api_error"), true), 3, false},
		{"first-attempt rejection before idempotency", status(403, errBody("insufficient_scope"), false), 3, false},
		{"500 after retries", status(500, errBody("api_error"), false), 3, true},
		{"upstream_timeout", status(504, errBody("upstream_timeout"), false), 1, true},
		{"in progress", status(409, errBody("idempotency_in_progress"), false), 1, true},
		{"dropped", func(w http.ResponseWriter, r *http.Request, _ int) { drop(w, r, false) }, 2, true},
		{"dropped then rate limited", func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				drop(w, r, false)
				return
			}
			w.Header().Set("Retry-After", "3600")
			writeTestJSON(w, 429, errBody("rate_limited", "retry_after", 3600))
		}, 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) { tt.answer(w, r, n) }
			store := NewMemoryPendingStore()
			c := f.client(WithPendingStore(store))
			_, callErr := c.Do(context.Background(), payReq(), nil, WithMaxAttempts(tt.attempts))
			list, err := c.PendingRequests(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if kept := len(list) == 1; kept != tt.kept {
				t.Fatalf("kept = %v (%d records) after %v; want %v", kept, len(list), callErr, tt.kept)
			}
			// The record was in the store before the first attempt left.
			reqs := f.recorded()
			if len(reqs) == 0 {
				t.Fatal("nothing sent")
			}
			if tt.kept {
				p := list[0]
				want := PendingRequest{
					Key: reqs[0].Header.Get("X-Idempotency-Key"), ClientID: testClientID, Method: "POST",
					Path: "/v1/qrpay/payments", Member: "member-1", Body: reqs[0].Body, CreatedAt: f.clock.Now(),
				}
				if diff := cmp.Diff(want, p); diff != "" {
					t.Errorf("record (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestResumeReplaysWithTheSameKeyAndBytes(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	executed := 0
	var firstKey string
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		key := r.Header.Get("X-Idempotency-Key")
		if n == 1 {
			executed++
			firstKey = key
			drop(w, r, false) // executed, then the answer is lost
			return
		}
		if key == firstKey {
			w.Header().Set("X-Idempotent-Replay", "true")
			writeTestJSON(w, 201, map[string]any{"id": "qrp_1", "status": "processing"})
			return
		}
		executed++
		writeTestJSON(w, 201, map[string]any{"id": "qrp_2", "status": "processing"})
	}
	store := NewMemoryPendingStore()
	crashed := f.client(WithPendingStore(store))
	_, err := crashed.Do(context.Background(), payReq(), nil, WithMaxAttempts(1), WithStepUp("ch_1"))
	var te *TransportError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v, want a transport error", err)
	}
	// A new process with the same store.
	f.clock.Advance(time.Hour)
	restarted := f.client(WithPendingStore(store))
	list, err := restarted.PendingRequests(context.Background())
	if err != nil || len(list) != 1 {
		t.Fatalf("pending = %v, %v", list, err)
	}
	var out struct{ ID string }
	resp, err := restarted.Resume(context.Background(), list[0], &out)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Replayed || out.ID != "qrp_1" || executed != 1 || resp.IdempotencyKey != firstKey {
		t.Fatalf("resume: replayed %v id %q executed %d key %q", resp.Replayed, out.ID, executed, resp.IdempotencyKey)
	}
	reqs := f.recorded()
	first, again := reqs[0], reqs[1]
	if !bytes.Equal(first.Body, again.Body) || first.URI != again.URI {
		t.Errorf("resent %s %q, first %s %q", again.URI, again.Body, first.URI, first.Body)
	}
	for _, h := range []string{"X-Idempotency-Key", "X-On-Behalf-Of", "X-Step-Up"} {
		if first.Header.Get(h) != again.Header.Get(h) || first.Header.Get(h) == "" {
			t.Errorf("%s: first %q, resent %q", h, first.Header.Get(h), again.Header.Get(h))
		}
	}
	if first.Header.Get("X-Nonce") == again.Header.Get("X-Nonce") {
		t.Error("nonce reused")
	}
	if list, _ := store.List(context.Background()); len(list) != 0 {
		t.Errorf("record kept after the replay: %v", list)
	}
}

func TestResumeRefuses(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	c := f.client(WithPendingStore(NewMemoryPendingStore()))
	now := f.clock.Now()
	ok := PendingRequest{Key: NewIdempotencyKey(), ClientID: testClientID, Method: "POST", Path: "/v1/deposits", Member: "m", Body: []byte(`{}`), CreatedAt: now}
	tests := []struct {
		name  string
		edit  func(p *PendingRequest)
		param string
		is    error
	}{
		{"bad key", func(p *PendingRequest) { p.Key = "k" }, "pending.Key", nil},
		{"other Key", func(p *PendingRequest) { p.ClientID = "client-other" }, "pending.ClientID", nil},
		{"no time", func(p *PendingRequest) { p.CreatedAt = time.Time{} }, "pending.CreatedAt", nil},
		{"not JSON", func(p *PendingRequest) { p.Body = []byte("{") }, "pending.Body", nil},
		{"bad path", func(p *PendingRequest) { p.Path = "no-slash" }, "Path", nil},
		{"expired", func(p *PendingRequest) { p.CreatedAt = now.Add(-PendingResumeWindow - time.Second) }, "", ErrPendingExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ok
			tt.edit(&p)
			_, err := c.Resume(context.Background(), p, nil)
			if tt.is != nil {
				if !errors.Is(err, tt.is) {
					t.Fatalf("err = %v, want %v", err, tt.is)
				}
				return
			}
			var pe *ParamError
			if !errors.As(err, &pe) || pe.Param != tt.param {
				t.Fatalf("err = %v, want a ParamError on %s", err, tt.param)
			}
		})
	}
	if n := len(f.recorded()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// failingPending refuses every Put.
type failingPending struct{ *MemoryPendingStore }

func (failingPending) Put(context.Context, PendingRequest) error { return errStoreDown }

func TestPendingStoreFailureSendsNothing(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	c := f.client(WithPendingStore(failingPending{NewMemoryPendingStore()}))
	_, err := c.Do(context.Background(), payReq(), nil)
	if !errors.Is(err, errStoreDown) || !strings.Contains(err.Error(), "nothing was sent") {
		t.Fatalf("err = %v", err)
	}
	if n := len(f.recorded()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
	// Reads and writes without a key do not touch the store.
	if _, err := c.Do(context.Background(), &Request{Method: http.MethodGet, Path: "/v1/x"}, nil); err != nil {
		t.Fatal(err)
	}
}

func TestSensitiveRequestsAreNotRecorded(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) { drop(w, r, false) }
	store := NewMemoryPendingStore()
	c := f.client(WithPendingStore(store))
	r := &Request{Method: http.MethodPost, Path: "/v1/cards/crd_1/pin", MemberScoped: true, Member: "m",
		Body: map[string]string{"new_pin": "123456", "cvv": "123"}, Idempotent: true, Sensitive: true}
	if _, err := c.Do(context.Background(), r, nil, WithMaxAttempts(1)); err == nil {
		t.Fatal("want a transport error")
	}
	if list, _ := store.List(context.Background()); len(list) != 0 {
		t.Fatalf("a PIN request was recorded: %v", list)
	}
}

func TestPendingRequestNeverPrintsTheBody(t *testing.T) {
	t.Parallel()
	p := PendingRequest{Key: "k", Method: "POST", Path: "/v1/remittances", Body: []byte(`{"account":"SECRET-ACCT"}`), CreatedAt: time.Unix(0, 0)}
	s := fmt.Sprintf("%v %+v %#v %s %q", p, p, p, p, p)
	if strings.Contains(s, "SECRET-ACCT") || !strings.Contains(s, "25 bytes") {
		t.Fatalf("printed %s", s)
	}
	// JSON, which stores use, keeps the exact bytes.
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var back PendingRequest
	if err := json.Unmarshal(b, &back); err != nil || !bytes.Equal(back.Body, p.Body) {
		t.Fatalf("round trip %q, %v", back.Body, err)
	}
}

func TestMemoryPendingStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := NewMemoryPendingStore()
	t0 := time.Unix(1_800_000_000, 0)
	body := []byte(`{"a":1}`)
	for i, k := range []string{"c", "a", "b"} {
		if err := s.Put(ctx, PendingRequest{Key: k, CreatedAt: t0.Add(time.Duration(i%2) * time.Second), Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	body[2] = 'X' // the store kept its own copy
	list, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, p := range list {
		keys = append(keys, p.Key)
		if string(p.Body) != `{"a":1}` {
			t.Errorf("body %q", p.Body)
		}
	}
	if want := []string{"b", "c", "a"}; !cmp.Equal(keys, want) {
		t.Fatalf("order %v, want %v (oldest first, then key)", keys, want)
	}
	if err := s.Delete(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "absent"); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.List(ctx); len(list) != 2 {
		t.Fatalf("after delete: %v", list)
	}
	if err := s.Put(ctx, PendingRequest{}); err == nil {
		t.Fatal("a record without a key was accepted")
	}
}

func TestPendingRequestsWithoutStore(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	if _, err := f.client().PendingRequests(context.Background()); err == nil {
		t.Fatal("want an error without a pending store")
	}
}

func TestWithPendingWrite(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		drop(w, r, false) // the outcome stays unknown: the record stays
	}
	sent := func() int { return len(f.recorded()) }
	store := NewMemoryPendingStore()
	c := f.client(WithPendingStore(store))
	var written []PendingRequest
	write := func(ctx context.Context, p PendingRequest) error {
		written = append(written, p)
		return store.Put(ctx, p) // the caller's own transaction, in a real store
	}
	key := NewIdempotencyKey()
	if _, err := c.Do(context.Background(), payReq(), nil, WithIdempotencyKey(key), WithMaxAttempts(2), WithPendingWrite(write)); err == nil {
		t.Fatal("want a transport error")
	}
	if len(written) != 1 || written[0].Key != key || sent() != 2 {
		t.Fatalf("written %v, sent %d; want one write before two attempts", written, sent())
	}
	if list, _ := store.List(context.Background()); len(list) != 1 || !bytes.Equal(list[0].Body, written[0].Body) {
		t.Fatalf("store holds %v", list)
	}

	// A failing write sends nothing.
	boom := errors.New("tx aborted")
	_, err := c.Do(context.Background(), payReq(), nil, WithPendingWrite(func(context.Context, PendingRequest) error { return boom }))
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "nothing was sent") || sent() != 2 {
		t.Fatalf("err = %v, sent %d", err, sent())
	}
	// Refused when nothing would be recorded.
	var pe *ParamError
	if _, err := f.client().Do(context.Background(), payReq(), nil, WithPendingWrite(write)); !errors.As(err, &pe) || pe.Param != "WithPendingWrite" {
		t.Fatalf("without a store: %v", err)
	}
	unkeyed := payReq()
	unkeyed.Idempotent = false
	if _, err := c.Do(context.Background(), unkeyed, nil, WithPendingWrite(write)); !errors.As(err, &pe) {
		t.Fatalf("without a key: %v", err)
	}
	if sent() != 2 {
		t.Fatalf("%d requests sent", sent())
	}
}
