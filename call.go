package mwallet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/hashicorp/go-retryablehttp"
)

// ownedHeaders are set by the client; WithHeader cannot override them.
var ownedHeaders = map[string]bool{
	"X-Auth-Token": true, "Authorization": true, "X-Client-Id": true, "X-Api-Key": true,
	"X-Timestamp": true, "X-Nonce": true, "X-Signature": true, "X-Idempotency-Key": true,
	"X-On-Behalf-Of": true, "X-Step-Up": true, "Content-Type": true, "Content-Length": true,
	"Host": true, "User-Agent": true,
}

// Do sends one logical call: it validates the request, encodes the body
// once, and runs the attempts with token, signature, idempotency key and
// retries; a 2xx JSON body is decoded into out when out is non-nil (and
// read by out's ReadAnswer when out is an AnswerReader; an answer that
// cannot be read is an *AnswerError: the call ran), and out's Response is
// set when it embeds Meta. Every method of the product
// packages goes through it; call it directly (or through Call, Iterate and
// Pages) for endpoints the SDK has no method for.
//
// The Response is returned whenever something was sent, also with an error.
func (c *Client) Do(ctx context.Context, r *Request, out any, opts ...CallOption) (*Response, error) {
	o := applyCallOptions(opts)
	resp, err := c.do(ctx, r, out, o)
	o.deliver(out, resp, err)
	return resp, err
}

func (c *Client) do(ctx context.Context, r *Request, out any, o callOptions) (*Response, error) {
	key, err := callKey(r, o)
	if err != nil {
		return nil, err // the caller's key is refused: there is no key to carry
	}
	sp, err := c.prepareCall(ctx, r, o, key)
	if err != nil {
		return nil, refusedBeforeSend(err, key)
	}
	return c.run(ctx, sp, out, o)
}

// callKey returns the idempotency key of a call, drawn before anything
// else is checked so that every error of a keyed write carries it: the
// caller's (WithIdempotencyKey, refused when it is not UUID-shaped), or a
// new one for an Idempotent request; "" for a call without a key.
func callKey(r *Request, o callOptions) (string, error) {
	if o.idempotencyKeySet || o.idempotencyKey != "" {
		if !ValidIdempotencyKey(o.idempotencyKey) {
			reason := "must be UUID-shaped (8-4-4-4-12 hex digits)"
			if o.idempotencyKey == "" {
				reason = "is empty; it " + reason + ": pass the key stored with your record, or leave the option out to have one generated"
			}
			return "", &ParamError{Param: "idempotency key", Reason: reason, Code: CodeIdempotencyKeyInvalid}
		}
		return o.idempotencyKey, nil
	}
	if r != nil && r.Idempotent {
		return uuid.NewString(), nil
	}
	return "", nil
}

// prepareCall checks everything about a call that can be checked before
// sending (the input its method refused, Request.Invalid, first) and
// builds its callSpec with key. Nothing is sent.
func (c *Client) prepareCall(ctx context.Context, r *Request, o callOptions, key string) (*callSpec, error) {
	if ctx == nil {
		return nil, &ParamError{Param: "ctx", Reason: "a context is required", Code: ""}
	}
	if r == nil {
		return nil, &ParamError{Param: "request", Reason: "a request is required", Code: ""}
	}
	if o.refuse != nil {
		return nil, o.refuse
	}
	if r.Invalid != nil {
		if errors.As(r.Invalid, new(*ParamError)) {
			return nil, r.Invalid
		}
		return nil, &ParamError{Param: "request", Reason: r.Invalid.Error(), Err: r.Invalid}
	}
	sp, err := c.spec(r, o, key)
	if err != nil {
		return nil, err
	}
	for _, x := range r.Amounts {
		if err := c.checkAssetAmount(ctx, x); err != nil {
			if ctx.Err() == nil {
				return nil, err
			}
			// The context ended while the asset catalogue loaded: the
			// write itself never left. The catalogue read's own error is
			// kept as text only: it is not the write's outcome.
			return nil, &TransportError{Method: sp.method, Path: sp.path, IdempotencyKey: key, NotSent: true,
				Err: fmt.Errorf("the context ended before attempt 1 was sent (checking %s: %v): %w", x.Param, err, ctx.Err())}
		}
	}
	if err := c.attachPending(sp, r, o); err != nil {
		return nil, err
	}
	return sp, nil
}

// spec validates a request and builds its callSpec: method, path, member,
// idempotency key (from callKey), step-up and the body encoded once.
func (c *Client) spec(r *Request, o callOptions, key string) (*callSpec, error) {
	method := strings.ToUpper(strings.TrimSpace(r.Method))
	if method == "" || strings.ContainsAny(method, " \t\r\n") {
		return nil, &ParamError{Param: "Method", Reason: "an HTTP method is required", Code: ""}
	}
	if !strings.HasPrefix(r.Path, "/") || strings.ContainsAny(r.Path, "?#") || hasCtl(r.Path) {
		return nil, &ParamError{Param: "Path", Reason: "must be an escaped path beginning with / and carry no query", Code: ""}
	}
	sp := &callSpec{method: method, path: r.Path, stepUp: strings.TrimSpace(o.stepUp), idemKey: key, keyed: key != ""}
	if r.MemberScoped {
		sp.member = strings.TrimSpace(r.Member)
		if sp.member == "" {
			return nil, &ParamError{Param: "member", Reason: "a member identifier (external_member_id or mem_ id) is required", Code: CodeMemberContextRequired}
		}
		if hasCtl(sp.member) {
			return nil, &ParamError{Param: "member", Reason: "contains control characters", Code: CodeMemberContextRequired}
		}
	}
	if hasCtl(sp.stepUp) {
		return nil, &ParamError{Param: "step-up challenge id", Reason: "contains control characters", Code: ""}
	}
	if r.Body != nil {
		b, err := encodeBody(r.Body)
		if err != nil {
			return nil, err
		}
		sp.body, sp.hasBody = b, true
	}
	if len(r.Query) > 0 {
		sp.query = r.Query.Encode()
	}
	sp.extra = o.header
	return sp, nil
}

// encodeBody encodes the request body once per logical call. A
// json.RawMessage is sent byte for byte.
//
// The encoding is compact and does not escape <, > and & (json.Marshal
// would write \u003c ...), so the bytes are those JSON.stringify writes: a
// gateway or validating proxy that parses and re-serialises the body keeps
// the signed bytes. (U+2028 and U+2029 are still escaped by encoding/json.)
func encodeBody(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		if !json.Valid(raw) {
			return nil, &ParamError{Param: "body", Reason: "not valid JSON", Code: CodeInvalidRequest}
		}
		return raw, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, &ParamError{Param: "body", Reason: "cannot be encoded as JSON: " + err.Error(), Code: CodeInvalidRequest}
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// callSpec is one logical call, fixed across its attempts.
type callSpec struct {
	method   string
	path     string // escaped path, for logs
	query    string // encoded query
	body     []byte
	hasBody  bool
	member   string
	idemKey  string
	keyed    bool // sends an idempotency key (or is safe to resend as if it did)
	stepUp   string
	exchange bool // token exchange: credential headers, no token, no signature
	extra    http.Header
	// pending is the PendingStore record of the call, nil when not recorded;
	// writePending writes it instead of the store's Put (WithPendingWrite).
	pending      *PendingRequest
	writePending func(context.Context, PendingRequest) error
	// resumed marks Client.Resume: an earlier process may have sent it.
	resumed bool
}

// signed reports whether the call carries a signature.
func (s *callSpec) signed() bool {
	return !s.exchange && s.method != http.MethodGet && s.method != http.MethodHead
}

// safeToResend reports whether an attempt that may have reached the service
// can be sent again: reads, and writes with an idempotency key.
func (s *callSpec) safeToResend() bool {
	return s.keyed || s.method == http.MethodGet || s.method == http.MethodHead
}

// attempt is the state of one logical call across its HTTP attempts.
type attempt struct {
	c           *Client
	ctx         context.Context // the call's
	spec        *callSpec
	requestURI  string
	maxAttempts int

	attempts        int
	sends           atomic.Int64 // net/http's sends of the current attempt (counted only for the debug log of unsigned calls)
	retries         int
	spent           int // retry budget taken
	reauthed        bool
	apiErrorRetried bool
	skewRetried     bool          // timestamp_out_of_range sent again with the corrected clock
	sentAt          time.Time     // when the current attempt left, on the client's own clock
	sentSkew        time.Duration // the clock correction the current attempt was signed with
	tokenValue      string
	decision        retryDecision
	prepareErr      error
	// uncertain is set once an attempt may have executed without a final
	// answer (network error, cut answer, 5xx, idempotency_in_progress), or
	// from the start for Client.Resume; uncertainAt is that attempt (0 for
	// Resume) and uncertainWhy says why (see outcome.go).
	uncertain    bool
	uncertainAt  int
	uncertainWhy string
	// ctxBeforeSend: prepareErr is the context, ended before an attempt of
	// a keyed write was sent.
	ctxBeforeSend bool

	// Outcome of the latest attempt.
	status  int
	header  http.Header
	body    []byte
	apiErr  *Error
	netErr  error
	readErr error
	// bodyErr is the error of reading the body of a 2xx answer that is
	// otherwise complete (over MaxResponseBytes): the answer arrived, its
	// body cannot be read.
	bodyErr error

	// obs is the call's Observer state; nil without an Observer.
	obs *observedCall
}

// prepare sets the per-attempt headers: token, timestamp, nonce, signature.
func (a *attempt) prepare(req *http.Request) error {
	if a.spec.keyedWrite() {
		// A keyed write whose context has ended is not sent: its error
		// then says so, where a send would only fail with the context's
		// error and leave the outcome looking unknown.
		if err := a.ctx.Err(); err != nil {
			a.prepareErr, a.ctxBeforeSend = err, true
			return err
		}
	}
	h := req.Header
	if !a.spec.exchange {
		// The call's context, not the request's, which may carry the
		// trace of this call's sends.
		tok, err := a.c.auth.token(a.ctx)
		if err != nil {
			a.prepareErr = err
			return err
		}
		a.tokenValue = tok.value
		h.Set("X-Auth-Token", tok.header)
	}
	a.sentSkew = a.c.skew.get()
	a.sentAt = a.c.clock.Now()
	if a.spec.signed() {
		ts := strconv.FormatInt(a.sentAt.Add(a.sentSkew).Unix(), 10)
		nonce := uuid.NewString()
		h.Set("X-Timestamp", ts)
		h.Set("X-Nonce", nonce)
		h.Set("X-Signature", a.c.signer.sign(a.spec.method, a.requestURI, ts, nonce, a.spec.body))
	}
	if a.obs != nil {
		a.startAttempt(req)
	}
	return nil
}

// run sends the attempts of one call through retryablehttp and turns the
// outcome into a Response and an error.
func (c *Client) run(ctx context.Context, sp *callSpec, out any, o callOptions) (*Response, error) {
	if c.cfg.observer != nil {
		return c.runObserved(ctx, sp, out, o)
	}
	return c.send(ctx, sp, out, o, nil)
}

// send is run; oc is the call's Observer state, nil without an Observer.
func (c *Client) send(ctx context.Context, sp *callSpec, out any, o callOptions, oc *observedCall) (*Response, error) {
	target := c.base + sp.path
	if sp.query != "" {
		target += "?" + sp.query
	}
	var rawBody any
	if sp.hasBody {
		rawBody = sp.body
	} else if sp.signed() {
		rawBody = []byte{}
	}
	a := &attempt{c: c, ctx: ctx, spec: sp, maxAttempts: c.cfg.maxAttempts, obs: oc}
	if sp.resumed {
		a.markUncertain("it was recorded as pending")
	}
	reqCtx := ctx
	if !sp.signed() && c.logger().Enabled(ctx, slog.LevelDebug) {
		// net/http may send a request without a body again by itself (see
		// below); count the sends of each attempt for the log.
		reqCtx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteHeaders: func() { a.sends.Add(1) }})
	}
	if oc != nil {
		oc.ctx = reqCtx
	}
	req, err := retryablehttp.NewRequestWithContext(reqCtx, sp.method, target, rawBody)
	if err != nil {
		return nil, &ParamError{Param: "request", Reason: "cannot build the HTTP request: " + err.Error()}
	}
	a.requestURI = req.URL.RequestURI()
	if sp.signed() {
		// net/http sends a request again by itself, with the same headers
		// and so the same nonce, when it can rewind the body (GetBody set,
		// or no body): over HTTP/1.1 when a kept-alive connection fails and
		// the request is idempotent, which a request carrying
		// X-Idempotency-Key is to net/http; over HTTP/2 on a refused stream,
		// a GOAWAY or a PROTOCOL_ERROR reset. A signed request always has a
		// body (empty when there is none), and without GetBody net/http
		// never sends it again, except on an HTTP/2 connection found
		// unusable before anything was written. The retry loop resends it
		// instead, with a new nonce, counted in Attempts.
		req.GetBody = nil
	}
	if o.maxAttempts > 0 {
		a.maxAttempts = o.maxAttempts
	}
	h := req.Header
	for k, vs := range sp.extra {
		if ck := http.CanonicalHeaderKey(k); !ownedHeaders[ck] {
			for _, v := range vs {
				h.Add(ck, v)
			}
		}
	}
	h.Set("Accept", "application/json")
	h.Set("User-Agent", c.userAgent)
	if sp.hasBody {
		h.Set("Content-Type", "application/json")
	}
	if sp.exchange {
		h.Set("X-Client-Id", c.creds.ClientID)
		h.Set("X-Api-Key", c.creds.APIKey.Reveal())
	}
	if sp.member != "" {
		h.Set("X-On-Behalf-Of", sp.member)
	}
	if sp.idemKey != "" {
		h.Set("X-Idempotency-Key", sp.idemKey)
	}
	if sp.stepUp != "" {
		h.Set("X-Step-Up", sp.stepUp)
	}
	if err := a.prepare(req.Request); err != nil {
		if sp.keyedWrite() {
			return nil, a.conclude(ctx, nil)
		}
		return nil, err
	}
	if sp.pending != nil {
		if err := c.recordPending(ctx, sp); err != nil {
			return nil, a.conclude(ctx, err)
		}
	}
	hc := c.http
	if o.attemptTimeout > 0 {
		cp := *c.http
		cp.Timeout = o.attemptTimeout
		hc = &cp
	}
	rc := &retryablehttp.Client{
		HTTPClient:   hc,
		Logger:       nil, // the client logs by itself, without secrets
		RetryWaitMin: c.cfg.minBackoff,
		RetryWaitMax: c.cfg.maxBackoff,
		// checkRetry decides; this bound only keeps the loop finite.
		RetryMax:     a.maxAttempts + 1,
		CheckRetry:   a.checkRetry,
		Backoff:      a.backoffHook,
		PrepareRetry: a.prepareRetry,
		ErrorHandler: a.errorHandler,
	}
	if oc != nil {
		rc.CheckRetry = a.checkObserved
	}
	resp, err := rc.Do(req)
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	meta, err := a.outcome(ctx, err, out)
	if sp.pending != nil {
		c.settlePending(ctx, sp, a)
	}
	return meta, err
}

// outcome turns the last attempt into the call's Response and error, and
// reads a 2xx answer into out (readAnswer: an *AnswerError when it cannot).
func (a *attempt) outcome(ctx context.Context, err error, out any) (*Response, error) {
	sp := a.spec
	meta := a.response()
	if err != nil || a.netErr != nil || a.readErr != nil || a.apiErr != nil {
		if sp.keyedWrite() {
			return meta, a.conclude(ctx, err)
		}
		if a.apiErr != nil && err == nil {
			return meta, a.apiErr
		}
		return meta, a.failure(ctx, err)
	}
	if a.status < 200 || a.status > 299 {
		return meta, decodeError(a.status, a.header, a.body, a.c.Now())
	}
	return meta, a.readAnswer(ctx, meta, out, a.bodyErr)
}

// response builds the metadata of the last attempt; nil when nothing was
// answered.
func (a *attempt) response() *Response {
	if a.attempts == 0 {
		return nil
	}
	r := &Response{StatusCode: a.status, IdempotencyKey: a.spec.idemKey, Attempts: a.attempts, Header: a.header}
	if a.header != nil {
		r.RequestID = a.header.Get("X-Request-Id")
		r.Replayed = isReplay(a.header)
	}
	if r.RequestID == "" && a.apiErr != nil {
		r.RequestID = a.apiErr.RequestID
	}
	return r
}

// failure builds the error of a call that ended without a usable answer.
func (a *attempt) failure(ctx context.Context, err error) error {
	if a.prepareErr != nil {
		if a.apiErr != nil && ctx.Err() == nil {
			return fmt.Errorf("%w (after %w)", a.prepareErr, a.apiErr)
		}
		return a.prepareErr
	}
	if ctx.Err() != nil && a.apiErr != nil {
		// The context ended while waiting to retry: report both.
		return fmt.Errorf("mwallet: %s %s: %w", a.spec.method, a.spec.path, a.noAnswer(ctx, err))
	}
	return &TransportError{
		Method: a.spec.method, Path: a.spec.path, Attempts: a.attempts,
		IdempotencyKey: a.spec.idemKey, NotSent: a.attempts > 0 && !a.uncertain,
		Err: a.noAnswer(ctx, err),
	}
}
