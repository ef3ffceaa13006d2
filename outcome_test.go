package mwallet

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestKeyedWriteErrorPaths covers the ends of a keyed write that the
// simulator's class table (TestKeyedWriteOutcomeClass) does not reach: the
// pending store refusing the record, a 2xx that cannot be read (not the
// result's JSON, too large; after a lost attempt, or resumed: an
// *AnswerError, the write ran, the record goes), answers
// that are 5xx or idempotency_in_progress until the attempts run out, a
// fresh refusal after a lost attempt, a replayed failure after one, and a
// Client.Resume whose token cannot be had. Each one's error carries the key
// (IdempotencyKeyOf), and says unknown exactly when something may have
// run. The pending-store record stays exactly when the outcome is unknown.
func TestKeyedWriteErrorPaths(t *testing.T) {
	t.Parallel()
	type want struct {
		Kind    string // "unknown", "not sent", "answered", "other"
		Code    Code   // the first *Error in the chain
		Advice  string // its Retry
		Pending bool   // the record stays in the pending store
	}
	lost := func(w http.ResponseWriter, r *http.Request) { drop(w, r, false) }
	tests := []struct {
		name    string
		store   PendingStore
		handler func(w http.ResponseWriter, r *http.Request, n int)
		token   func(w http.ResponseWriter, r *http.Request, n int64)
		resume  bool
		cancel  bool // the context has ended before the call
		want    want
	}{
		{name: "context ended before the call", cancel: true,
			want: want{Kind: "not sent", Advice: "-"}},
		{name: "pending store refuses the record", store: failingPending{NewMemoryPendingStore()},
			want: want{Kind: "not sent", Advice: "-"}},
		{name: "2xx that does not decode",
			handler: func(w http.ResponseWriter, _ *http.Request, _ int) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(201)
				_, _ = w.Write([]byte(`{"id": 7}`))
			},
			want: want{Kind: "answer unreadable", Advice: "-"}},
		{name: "2xx too large to read",
			handler: func(w http.ResponseWriter, _ *http.Request, _ int) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(201)
				_, _ = w.Write([]byte(`{"id":"` + strings.Repeat("x", MaxResponseBytes) + `"}`))
			},
			want: want{Kind: "answer unreadable", Advice: "-"}},
		{name: "lost, then a 2xx that does not decode",
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					lost(w, r)
					return
				}
				w.Header().Set("X-Idempotent-Replay", "true")
				writeTestJSON(w, 201, []int{7})
			},
			want: want{Kind: "answer unreadable", Advice: "-"}},
		{name: "Resume answered a 2xx that does not decode", resume: true,
			handler: func(w http.ResponseWriter, _ *http.Request, _ int) {
				w.Header().Set("X-Idempotent-Replay", "true")
				writeTestJSON(w, 201, "not an object")
			},
			want: want{Kind: "answer unreadable", Advice: "-"}},
		{name: "upstream_timeout on every attempt",
			handler: func(w http.ResponseWriter, _ *http.Request, _ int) {
				writeTestJSON(w, 504, errBody("upstream_timeout"))
			},
			want: want{Kind: "unknown", Code: CodeUpstreamTimeout, Advice: "same-key", Pending: true}},
		{name: "idempotency_in_progress on every attempt",
			handler: func(w http.ResponseWriter, _ *http.Request, _ int) {
				writeTestJSON(w, 409, errBody("idempotency_in_progress"))
			},
			want: want{Kind: "unknown", Code: CodeIdempotencyInProgress, Advice: "same-key", Pending: true}},
		{name: "lost, then a fresh refusal (not a replay)",
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					lost(w, r)
					return
				}
				writeTestJSON(w, 403, errBody("merchant_disabled"))
			},
			want: want{Kind: "unknown", Code: CodeMerchantDisabled, Advice: "same-key", Pending: true}},
		{name: "lost, then the replayed failure",
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					lost(w, r)
					return
				}
				w.Header().Set("X-Idempotent-Replay", "true")
				writeTestJSON(w, 400, errBody("insufficient_balance"))
			},
			want: want{Kind: "answered", Code: CodeInsufficientBalance, Advice: "new-key"}},
		{name: "answered a refusal only",
			handler: func(w http.ResponseWriter, _ *http.Request, _ int) {
				writeTestJSON(w, 400, errBody("insufficient_balance"))
			},
			want: want{Kind: "answered", Code: CodeInsufficientBalance, Advice: "new-key"}},
		{name: "Resume whose token is refused", resume: true,
			token: func(w http.ResponseWriter, _ *http.Request, _ int64) {
				writeTestJSON(w, 401, errBody("invalid_credentials"))
			},
			want: want{Kind: "unknown", Code: CodeInvalidCredentials, Advice: "same-key", Pending: true}},
		{name: "first token request refused",
			token: func(w http.ResponseWriter, _ *http.Request, _ int64) {
				writeTestJSON(w, 401, errBody("invalid_credentials"))
			},
			want: want{Kind: "not sent", Code: CodeInvalidCredentials, Advice: "new-key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			if tt.handler != nil {
				f.handler = func(w http.ResponseWriter, r *http.Request, _ []byte, n int) { tt.handler(w, r, n) }
			} else {
				f.handler = func(w http.ResponseWriter, _ *http.Request, _ []byte, _ int) {
					writeTestJSON(w, 201, map[string]any{"id": "x"})
				}
			}
			f.tokenHandler = tt.token
			store := tt.store
			if store == nil {
				store = NewMemoryPendingStore()
			}
			c := f.client(WithPendingStore(store))
			ctx := context.Background()
			callCtx, cancel := context.WithCancel(ctx)
			if tt.cancel {
				if _, err := c.Do(ctx, readReq(), nil); err != nil { // the access token, cached
					t.Fatal(err)
				}
				cancel()
			}
			defer cancel()
			key := NewIdempotencyKey()
			var out struct {
				ID string `json:"id"`
			}
			var err error
			if tt.resume {
				// A record an earlier process left in the store.
				p := PendingRequest{Key: key, ClientID: testClientID, Method: "POST", Path: "/v1/qrpay/payments",
					Member: "member-1", Body: []byte(`{"code_value":"000201"}`), CreatedAt: c.Now().Add(-time.Minute)}
				if err := store.Put(ctx, p); err != nil {
					t.Fatal(err)
				}
				_, err = c.Resume(callCtx, p, &out)
			} else {
				_, err = c.Do(callCtx, postReq(), &out, WithIdempotencyKey(key))
			}
			if err == nil {
				t.Fatal("the call succeeded")
			}
			if got := IdempotencyKeyOf(err); got != key {
				t.Errorf("IdempotencyKeyOf = %q, want %q (err %v)", got, key, err)
			}
			got := want{Kind: "other", Advice: "-"}
			var te *TransportError
			var apiErr *Error
			var ae *AnswerError
			switch {
			case errors.As(err, &ae):
				got.Kind = "answer unreadable"
				if !ae.Executed || !errors.Is(err, ErrAnswerUnreadable) || errors.Is(err, ErrInvalidParam) || errors.As(err, new(*TransportError)) {
					t.Errorf("an *AnswerError that does not say the write executed: %v", err)
				}
			case errors.As(err, &te) && te.NotSent:
				got.Kind = "not sent"
			case errors.As(err, &te):
				got.Kind = "unknown"
			case errors.As(err, &apiErr):
				got.Kind = "answered"
			}
			if errors.Is(err, ErrOutcomeUnknown) != (got.Kind == "unknown") {
				t.Errorf("errors.Is(err, ErrOutcomeUnknown) = %v for %s", !(got.Kind == "unknown"), got.Kind)
			}
			if errors.As(err, &apiErr) {
				got.Code, got.Advice = apiErr.Code, apiErr.Retry().String()
				if apiErr.IdempotencyKey != key || apiErr.OutcomeUnknown != (got.Kind == "unknown") {
					t.Errorf("*Error key %q, OutcomeUnknown %v", apiErr.IdempotencyKey, apiErr.OutcomeUnknown)
				}
			}
			if te != nil && (te.IdempotencyKey != key || !strings.Contains(te.Error(), key)) {
				t.Errorf("*TransportError %v does not carry the key", te)
			}
			if te != nil && te.NotSent && te.Attempts == 0 {
				for _, r := range f.recorded() {
					if r.Method == http.MethodPost {
						t.Errorf("not sent, but the service got %s %s", r.Method, r.URI)
					}
				}
			}
			list, _ := store.List(ctx)
			for _, p := range list {
				got.Pending = got.Pending || p.Key == key
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("err %v (-want +got):\n%s", err, diff)
			}
		})
	}
}

// TestTokenExchangeErrorIsNotShared: the *Error of a token exchange that
// several keyed writes waited on is copied for each, with its own key; the
// original is not changed.
func TestTokenExchangeErrorIsNotShared(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.tokenHandler = func(w http.ResponseWriter, _ *http.Request, _ int64) {
		writeTestJSON(w, 401, errBody("invalid_credentials"))
	}
	c := f.client()
	k1, k2 := NewIdempotencyKey(), NewIdempotencyKey()
	_, err1 := c.Do(context.Background(), postReq(), nil, WithIdempotencyKey(k1))
	_, err2 := c.Do(context.Background(), postReq(), nil, WithIdempotencyKey(k2))
	if IdempotencyKeyOf(err1) != k1 || IdempotencyKeyOf(err2) != k2 {
		t.Fatalf("keys %q %q, want %q %q", IdempotencyKeyOf(err1), IdempotencyKeyOf(err2), k1, k2)
	}
	var e1, e2 *Error
	if !errors.As(err1, &e1) || !errors.As(err2, &e2) || e1 == e2 || e1.IdempotencyKey != k1 || e2.IdempotencyKey != k2 {
		t.Fatalf("errors %v / %v", err1, err2)
	}
	// A read's error is the exchange's own, without a key.
	_, err := c.Do(context.Background(), readReq(), nil)
	var e *Error
	if !errors.As(err, &e) || e.IdempotencyKey != "" || CodeOf(err) != CodeInvalidCredentials {
		t.Fatalf("read: %v", err)
	}
}
