package mwallet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/money"
)

// TestRefusalBeforeSendCarriesKey covers every way the client itself stops
// a keyed write before sending (the product packages' refusals are
// TestKeyedWriteRefusalCarriesKey's): each gives its error with the
// write's key, the caller's or the one drawn for the call, and sends
// nothing. Only a refused key carries none.
func TestRefusalBeforeSendCarriesKey(t *testing.T) {
	t.Parallel()
	type want struct {
		Kind  string // "param" (*ParamError), "not sent" (*TransportError, NotSent, Attempts 0), "other"
		Param string // the *ParamError's Param
		Key   string // "caller's", "drawn", "record's", "error's", "none"
		// UnknownOutcome is whose key the *ParamError's UnknownOutcomeKey
		// is: "error's" (StepUpResend given an error whose outcome is
		// unknown), or "" when it is empty.
		UnknownOutcome string
	}
	anotherCall := NewIdempotencyKey()
	var nilCtx context.Context
	original := &ParamError{Param: "Reference", Reason: "required", Code: CodeInvalidRequest}
	tests := []struct {
		name   string
		req    func() *Request
		opts   []CallOption
		client []Option
		ctx    context.Context
		// resume, when set, resumes this record instead of calling Do.
		resume func(p *PendingRequest)
		// as: resume with ResumeAs for another operation.
		as     bool
		keyed  bool // the caller gives a key (WithIdempotencyKey)
		want   want
		target error // errors.Is(err, target) holds, when set
		// notTarget: errors.Is(err, notTarget) does not hold: the error
		// given to StepUpResend is another call's, not the refusal's cause.
		notTarget error
	}{
		{name: "blank member", req: func() *Request { r := postReq(); r.Member = " "; return r },
			want: want{Kind: "param", Param: "member", Key: "drawn"}},
		{name: "member with a control character", keyed: true, req: func() *Request { r := postReq(); r.Member = "m\n1"; return r },
			want: want{Kind: "param", Param: "member", Key: "caller's"}},
		{name: "body that is not JSON", req: func() *Request { r := postReq(); r.Body = map[string]any{"f": func() {}}; return r },
			want: want{Kind: "param", Param: "body", Key: "drawn"}},
		{name: "step-up id with a control character", keyed: true, req: postReq, opts: []CallOption{WithStepUp("ch\r1")},
			want: want{Kind: "param", Param: "step-up challenge id", Key: "caller's"}},
		{name: "no path", req: func() *Request { r := postReq(); r.Path = "v1/x"; return r },
			want: want{Kind: "param", Param: "Path", Key: "drawn"}},
		{name: "no context", ctx: nilCtx, req: postReq,
			want: want{Kind: "param", Param: "ctx", Key: "drawn"}},
		{name: "WithPendingWrite without a PendingStore", keyed: true, req: postReq,
			opts: []CallOption{WithPendingWrite(func(context.Context, PendingRequest) error { return nil })},
			want: want{Kind: "param", Param: "WithPendingWrite", Key: "caller's"}},
		{name: "amount beyond the ledger scale", req: func() *Request {
			r := postReq()
			r.Amounts = []AssetAmount{{Param: "Amount", Asset: "USDT", Amount: money.MustParse("1.0000001", 7)}}
			return r
		}, want: want{Kind: "param", Param: "Amount", Key: "drawn"}, target: money.ErrPrecision},
		{name: "Request.Invalid, a *ParamError", keyed: true, req: func() *Request { r := postReq(); r.Invalid = original; return r },
			want: want{Kind: "param", Param: "Reference", Key: "caller's"}},
		{name: "Request.Invalid, a wrapped *ParamError", req: func() *Request {
			r := postReq()
			r.Invalid = fmt.Errorf("deposit: %w", original)
			return r
		}, want: want{Kind: "param", Param: "Reference", Key: "drawn"}},
		{name: "Request.Invalid, another error", req: func() *Request { r := postReq(); r.Invalid = errStoreDown; return r },
			want: want{Kind: "param", Param: "request", Key: "drawn"}, target: errStoreDown},
		{name: "Request.Invalid wins over the method's other checks", req: func() *Request {
			return &Request{Method: http.MethodPost, Path: "", MemberScoped: true, Idempotent: true, Invalid: original}
		}, want: want{Kind: "param", Param: "Reference", Key: "drawn"}},
		{name: "StepUpResend of an error without a key", req: postReq, opts: StepUpResend(errStoreDown),
			want: want{Kind: "param", Param: "StepUpResend", Key: "drawn"}, notTarget: errStoreDown},
		{name: "StepUpResend of another call's unknown outcome: that call's key", req: postReq,
			opts: StepUpResend(&TransportError{Method: "POST", Path: "/v1/qrpay/payments", Attempts: 1, IdempotencyKey: anotherCall}),
			want: want{Kind: "param", Param: "StepUpResend", Key: "error's", UnknownOutcome: "error's"}, notTarget: ErrOutcomeUnknown},
		{name: "StepUpResend of another call's unknown outcome, with a key given", keyed: true, req: postReq,
			opts: StepUpResend(&TransportError{Method: "POST", Path: "/v1/qrpay/payments", Attempts: 1, IdempotencyKey: anotherCall}),
			want: want{Kind: "param", Param: "StepUpResend", Key: "caller's", UnknownOutcome: "error's"}, notTarget: ErrOutcomeUnknown},
		{name: "StepUpResend of another call's definite failure", req: postReq,
			opts: StepUpResend(&Error{Code: CodeInsufficientBalance, HTTPStatus: 400, IdempotencyKey: anotherCall}),
			want: want{Kind: "param", Param: "StepUpResend", Key: "error's"}, notTarget: &Error{Code: CodeInsufficientBalance}},
		{name: "StepUpResend of another call's not-sent error", req: postReq,
			opts: StepUpResend(&TransportError{Method: "POST", Path: "/v1/qrpay/payments", NotSent: true, IdempotencyKey: anotherCall}),
			want: want{Kind: "param", Param: "StepUpResend", Key: "error's"}, notTarget: ErrOutcomeUnknown},
		{name: "context ended while the asset catalogue loads", req: func() *Request {
			r := postReq()
			r.Amounts = []AssetAmount{{Param: "Amount", Asset: "USDT", Amount: money.MustParse("1.5", 1)}}
			return r
		}, ctx: nil, want: want{Kind: "not sent", Key: "drawn"}, target: context.Canceled},
		{name: "refused key", req: postReq, opts: []CallOption{WithIdempotencyKey("")},
			want: want{Kind: "param", Param: "idempotency key", Key: "none"}},
		{name: "Resume of another Key's record", resume: func(p *PendingRequest) { p.ClientID = "client-other" },
			want: want{Kind: "param", Param: "pending.ClientID", Key: "record's"}},
		{name: "Resume of a record without a time", resume: func(p *PendingRequest) { p.CreatedAt = time.Time{} },
			want: want{Kind: "param", Param: "pending.CreatedAt", Key: "record's"}},
		{name: "Resume of a record whose body is not JSON", resume: func(p *PendingRequest) { p.Body = []byte("{") },
			want: want{Kind: "param", Param: "pending.Body", Key: "record's"}},
		{name: "Resume of a record with a blank member", resume: func(p *PendingRequest) { p.Member = "\t" },
			want: want{Kind: "param", Param: "member", Key: "record's"}},
		{name: "Resume of an expired record", resume: func(p *PendingRequest) { p.CreatedAt = p.CreatedAt.Add(-PendingResumeWindow - time.Second) },
			want: want{Kind: "other", Key: "record's"}, target: ErrPendingExpired},
		{name: "Resume with StepUpResend of an error without a key", resume: func(*PendingRequest) {}, opts: StepUpResend(nil),
			want: want{Kind: "param", Param: "StepUpResend", Key: "record's"}},
		{name: "ResumeAs of another operation's record", resume: func(*PendingRequest) {}, as: true,
			want: want{Kind: "param", Param: "pending", Key: "record's"}},
		{name: "Resume of a record with a refused key", resume: func(p *PendingRequest) { p.Key = "k" },
			want: want{Kind: "param", Param: "pending.Key", Key: "none"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, loads := assetsAPI(t)
			ctx := tt.ctx
			if ctx == nil && tt.want.Param != "ctx" {
				ctx = context.Background()
			}
			if tt.target == context.Canceled {
				// The catalogue read arrives; the caller gives up on it.
				// The read is the client's, shared by its callers: it
				// goes on, answered once the test is over.
				cctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				var once sync.Once
				release := make(chan struct{})
				t.Cleanup(func() { close(release) })
				f.handler = func(w http.ResponseWriter, r *http.Request, _ []byte, _ int) {
					loads.Add(1)
					once.Do(cancel)
					select {
					case <-release:
					case <-r.Context().Done():
					}
					writeTestJSON(w, 200, json.RawMessage(catalogueJSON))
				}
				ctx = cctx
			}
			c := f.client(tt.client...)
			key := NewIdempotencyKey()
			opts := tt.opts
			if tt.keyed {
				opts = append(append([]CallOption(nil), opts...), WithIdempotencyKey(key))
			}
			var err error
			record := PendingRequest{Key: key, ClientID: testClientID, Method: http.MethodPost, Path: "/v1/qrpay/payments",
				Member: "member-1", Body: []byte(`{"code_value":"000201"}`), CreatedAt: f.clock.Now()}
			switch {
			case tt.resume != nil && tt.as:
				_, err = ResumeAs[struct{}](ctx, c, record, "cards.TopUp", opts...)
			case tt.resume != nil:
				tt.resume(&record)
				_, err = c.Resume(ctx, record, nil, opts...)
			default:
				_, err = c.Do(ctx, tt.req(), nil, opts...)
			}
			if err == nil {
				t.Fatal("the call succeeded")
			}
			got := want{Kind: "other", Key: "none"}
			var pe *ParamError
			var te *TransportError
			switch {
			case errors.As(err, &pe):
				got.Kind, got.Param = "param", pe.Param
				if !errors.Is(err, ErrInvalidParam) || errors.Is(err, ErrOutcomeUnknown) ||
					!strings.Contains(err.Error(), "nothing was sent") {
					t.Errorf("a *ParamError that does not say nothing was sent: %v", err)
				}
				switch pe.UnknownOutcomeKey {
				case "":
				case anotherCall:
					got.UnknownOutcome = "error's"
					if !strings.Contains(err.Error(), "the earlier call with idempotency key "+anotherCall+" may have executed: its outcome is unknown") {
						t.Errorf("the refusal does not say the earlier call's outcome is unknown: %v", err)
					}
				default:
					got.UnknownOutcome = "?" + pe.UnknownOutcomeKey
				}
				if pe.IdempotencyKey != IdempotencyKeyOf(err) {
					t.Errorf("ParamError.IdempotencyKey %q, IdempotencyKeyOf %q", pe.IdempotencyKey, IdempotencyKeyOf(err))
				}
			case errors.As(err, &te) && te.NotSent && te.Attempts == 0:
				got.Kind = "not sent"
				if errors.Is(err, ErrOutcomeUnknown) || te.IdempotencyKey != IdempotencyKeyOf(err) {
					t.Errorf("a not-sent *TransportError that says unknown, or whose key differs: %v", err)
				}
			}
			switch k := IdempotencyKeyOf(err); {
			case k == "":
			case k == key && tt.keyed:
				got.Key = "caller's"
			case k == key && tt.resume != nil:
				got.Key = "record's"
			case k == anotherCall:
				got.Key = "error's"
			case ValidIdempotencyKey(k) && k != key:
				got.Key = "drawn"
			default:
				got.Key = "?" + k
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("err %v (-want +got):\n%s", err, diff)
			}
			if tt.target != nil && !errors.Is(err, tt.target) {
				t.Errorf("errors.Is(err, %v) is false: %v", tt.target, err)
			}
			if tt.notTarget != nil && errors.Is(err, tt.notTarget) {
				t.Errorf("errors.Is(err, %v) is true: %v", tt.notTarget, err)
			}
			for _, r := range f.recorded() {
				if r.Method != http.MethodGet {
					t.Errorf("sent %s %s", r.Method, r.URI)
				}
			}
			if n := f.exchanges.Load(); n != 0 && loads.Load() == 0 {
				t.Errorf("%d token exchanges for a call refused before sending", n)
			}
		})
	}
	if original.IdempotencyKey != "" {
		t.Errorf("the method's *ParamError was changed: key %q", original.IdempotencyKey)
	}
}

// TestStepUpResendRefusalIsNotShared: the options of one StepUpResend
// refusal, used by two calls, give each call's error its own key; the
// refusal itself is left alone.
func TestStepUpResendRefusalIsNotShared(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	c := f.client()
	opts := StepUpResend(errStoreDown)
	_, err1 := c.Do(context.Background(), postReq(), nil, opts...)
	_, err2 := c.Do(context.Background(), postReq(), nil, opts...)
	k1, k2 := IdempotencyKeyOf(err1), IdempotencyKeyOf(err2)
	if !ValidIdempotencyKey(k1) || !ValidIdempotencyKey(k2) || k1 == k2 {
		t.Fatalf("keys %q and %q, want two drawn keys", k1, k2)
	}
	var pe1, pe2 *ParamError
	if !errors.As(err1, &pe1) || !errors.As(err2, &pe2) || pe1 == pe2 {
		t.Fatalf("errors %v / %v: one shared *ParamError", err1, err2)
	}
	if n := len(f.recorded()) + int(f.exchanges.Load()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
