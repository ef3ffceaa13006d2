package mwallet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/money"
)

// reader is a result whose reading ends with the error of its test.
type reader struct {
	ID  string `json:"id"`
	err func(ctx context.Context, c *Client) error
}

func (r *reader) ReadAnswer(ctx context.Context, c *Client) error { return r.err(ctx, c) }

// item is a list item that reads itself: an id "bad" fails.
type item struct {
	ID string `json:"id"`
}

func (i *item) ReadAnswer(context.Context, *Client) error {
	if i.ID == "bad" {
		return fmt.Errorf("item %s: %w", i.ID, &ParamError{Param: "amount", Reason: `"1.5" is not at scale 0`, Code: CodeInvalidRequest, Err: money.ErrPrecision})
	}
	i.ID = strings.ToUpper(i.ID)
	return nil
}

// TestAnswerErrorCause: whatever fails while a success answer is read (its
// reading by an AnswerReader included, with the SDK's own error kinds in
// the chain), the call's error is an *AnswerError with the call's key and
// request id, whose chain keeps the cause but matches neither
// ErrInvalidParam, nor ErrOutcomeUnknown, nor another call's code, and
// whose text never says nothing was sent. The pending-store record goes:
// the write ran.
func TestAnswerErrorCause(t *testing.T) {
	t.Parallel()
	paramErr := &ParamError{Param: "amount", Reason: `"1.0000001" has more decimals than the ledger scale (6) of USDT; amounts are never rounded`,
		Code: CodeInvalidRequest, Err: &money.ParseError{Input: "1.0000001", Scale: 6, Err: money.ErrPrecision}, IdempotencyKey: "k"}
	type want struct {
		Text   []string // in the error's text
		Target error    // errors.Is(err, Target)
	}
	tests := []struct {
		name string
		err  func(ctx context.Context, c *Client) error
		want want
	}{
		{name: "an amount beyond the catalogue's scale (a *ParamError of ParseAmount)",
			err: func(context.Context, *Client) error { return fmt.Errorf("qrpay: order customer_total: %w", paramErr) },
			want: want{Text: []string{`qrpay: order customer_total: amount: "1.0000001" has more decimals than the ledger scale (6) of USDT`},
				Target: money.ErrPrecision}},
		{name: "the catalogue read's unknown outcome",
			err: func(context.Context, *Client) error {
				return fmt.Errorf("loading the catalogue: %w", &TransportError{Method: "GET", Path: "/v1/assets", Attempts: 1, Err: context.Canceled})
			},
			want: want{Text: []string{"loading the catalogue: mwallet: GET /v1/assets: no answer after 1 attempt(s): context canceled"}, Target: context.Canceled}},
		{name: "the catalogue read's refusal",
			err: func(context.Context, *Client) error {
				return &Error{HTTPStatus: 403, Code: CodeInsufficientScope, Message: "no merchant:read", RequestID: "req_cat"}
			},
			want: want{Text: []string{"insufficient_scope (HTTP 403): no merchant:read request_id=req_cat"}}},
		{name: "several, joined",
			err: func(context.Context, *Client) error {
				return errors.Join(paramErr, &TransportError{Method: "GET", Path: "/v1/assets", Attempts: 1, Err: context.DeadlineExceeded})
			},
			want: want{Text: []string{`amount: "1.0000001" has more decimals`, "context deadline exceeded"}, Target: money.ErrPrecision}},
		{name: "a plain error",
			err:  func(context.Context, *Client) error { return money.ErrPrecision },
			want: want{Text: []string{money.ErrPrecision.Error()}, Target: money.ErrPrecision}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			f.handler = func(w http.ResponseWriter, _ *http.Request, _ []byte, _ int) {
				w.Header().Set("X-Request-Id", "req_answer")
				writeTestJSON(w, 201, map[string]any{"id": "qrp_1"})
			}
			store := NewMemoryPendingStore()
			c := f.client(WithPendingStore(store))
			key := NewIdempotencyKey()
			out := &reader{err: tt.err}
			var seen *Response
			_, err := c.Do(context.Background(), postReq(), out, WithIdempotencyKey(key), WithResponse(&seen))
			var ae *AnswerError
			if !errors.As(err, &ae) {
				t.Fatalf("err %v, want an *AnswerError", err)
			}
			type got struct {
				Unreadable, Invalid, Unknown, AnotherCall, Target bool
				Key, RequestID, Method, Path                      string
				Executed                                          bool
				Status                                            int
				Body                                              string
			}
			g := got{
				Unreadable: errors.Is(err, ErrAnswerUnreadable), Invalid: errors.Is(err, ErrInvalidParam),
				Unknown: errors.Is(err, ErrOutcomeUnknown), AnotherCall: errors.As(err, new(*Error)) || CodeOf(err) != "",
				Key: IdempotencyKeyOf(err), RequestID: ae.RequestID, Method: ae.Method, Path: ae.Path,
				Executed: ae.Executed, Status: ae.StatusCode, Body: string(ae.Body),
			}
			g.Target = tt.want.Target == nil || errors.Is(err, tt.want.Target)
			w := got{Unreadable: true, Target: true, Key: key, RequestID: "req_answer", Method: "POST", Path: "/v1/qrpay/payments",
				Executed: true, Status: 201, Body: `{"id":"qrp_1"}`}
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("err %v (-want +got):\n%s", err, diff)
			}
			text := err.Error()
			for _, s := range append(tt.want.Text, "executed (HTTP 201, request_id req_answer, idempotency key "+key+"), but its answer could not be read") {
				if !strings.Contains(text, s) {
					t.Errorf("the text does not say %q: %s", s, text)
				}
			}
			if strings.Contains(text, "nothing was sent") || strings.Contains(text, "invalid amount") {
				t.Errorf("the text says the input was refused: %s", text)
			}
			if seen == nil || seen.StatusCode != 201 || out.ID != "qrp_1" {
				t.Errorf("WithResponse %+v, out %+v", seen, out)
			}
			if list, _ := store.List(context.Background()); len(list) != 0 {
				t.Errorf("the write ran, yet its record stays: %+v", list)
			}
			if paramErr.IdempotencyKey != "k" || paramErr.Error() == "" {
				t.Error("the reader's *ParamError was changed")
			}
		})
	}
}

// TestAnswerReaderOfPageItems: a Page reads each item that is an
// AnswerReader, inside the call; one that fails fails the call with an
// *AnswerError naming the item. Do reads any out value that is one.
func TestAnswerReaderOfPageItems(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, _ []byte, _ int) {
		ids := []string{"a", "b"}
		if r.URL.Query().Get("cursor") == "bad" {
			ids = []string{"a", "bad"}
		}
		var data []map[string]string
		for _, id := range ids {
			data = append(data, map[string]string{"id": id})
		}
		writeTestJSON(w, 200, map[string]any{"data": data, "has_more": false})
	}
	c := f.client()
	items, err := Collect(Iterate[item](context.Background(), c, Request{Method: http.MethodGet, Path: "/v1/deposits"}, ListParams{}))
	if err != nil || len(items) != 2 || items[0].ID != "A" || items[1].ID != "B" {
		t.Fatalf("items %+v, %v: want A and B, read by the items", items, err)
	}
	_, err = Collect(Iterate[item](context.Background(), c, Request{Method: http.MethodGet, Path: "/v1/deposits"}, ListParams{Cursor: "bad"}))
	var ae *AnswerError
	if !errors.As(err, &ae) || ae.Executed || ae.IdempotencyKey != "" || errors.Is(err, ErrInvalidParam) || !errors.Is(err, money.ErrPrecision) ||
		!strings.Contains(err.Error(), "item 1: item bad: amount:") || !json.Valid(ae.Body) {
		t.Errorf("err %v, want an *AnswerError of a read naming item 1", err)
	}
}

// TestAnswerBodyKeptOnlyWhereSafe: the *AnswerError of a route whose
// request or answer carries a secret, or of a path the SDK does not list,
// has no Body; a listed route's has the answer as received.
func TestAnswerBodyKeptOnlyWhereSafe(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, _ *http.Request, _ []byte, _ int) {
		writeTestJSON(w, 200, map[string]any{"id": 7, "token": "sst_secret"})
	}
	c := f.client()
	for _, tt := range []struct {
		path string
		kept bool
	}{
		{"/v1/cards/crd_1/secure-session", false},
		{"/v1/kyc/profile-sessions", false},
		{"/v1/cards/crd_1/pin", false},
		{"/v1/cards/crd_1/activate", false},
		{"/v1/not/listed", false},
		{"/v1/cards/crd_1/freeze", true},
	} {
		var out struct {
			ID string `json:"id"`
		}
		_, err := c.Do(context.Background(), &Request{Method: http.MethodPost, Path: tt.path, Body: struct{}{}, Idempotent: true}, &out)
		var ae *AnswerError
		if !errors.As(err, &ae) || (len(ae.Body) > 0) != tt.kept {
			t.Errorf("%s: err %v, body kept %v, want %v", tt.path, err, ae != nil && len(ae.Body) > 0, tt.kept)
		}
		if strings.Contains(fmt.Sprintf("%v %+v %s", err, err, err), "sst_secret") {
			t.Errorf("%s: the error's text shows the answer: %v", tt.path, err)
		}
	}
}

// TestAnswerErrorOfTheTokenExchange: an unreadable token answer is the
// exchange's, which precedes the write: the write is not sent, and no
// *AnswerError says it executed.
func TestAnswerErrorOfTheTokenExchange(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.tokenHandler = func(w http.ResponseWriter, _ *http.Request, _ int64) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"auth_token": 7`))
	}
	c := f.client()
	key := NewIdempotencyKey()
	_, err := c.Do(context.Background(), postReq(), nil, WithIdempotencyKey(key))
	var te *TransportError
	if !errors.As(err, &te) || !te.NotSent || te.IdempotencyKey != key || errors.Is(err, ErrAnswerUnreadable) || errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("err %v, want the write not sent with its key", err)
	}
	for _, r := range f.recorded() {
		if r.Method == http.MethodPost {
			t.Errorf("sent %s %s", r.Method, r.URI)
		}
	}
}
