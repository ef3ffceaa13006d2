package mwallet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// IdempotencyWindow is how long the service keeps an idempotency record:
// within it a resend with the same key and body replays the first result;
// after it the same key is a new request.
const IdempotencyWindow = 24 * time.Hour

// PendingResumeWindow is the age up to which Client.Resume resends a pending
// request: the idempotency window less a 5-minute margin for clock
// differences. An older request could execute a second time, so Resume
// refuses it with ErrPendingExpired.
const PendingResumeWindow = IdempotencyWindow - 5*time.Minute

// ErrPendingExpired is returned (wrapped) by Client.Resume for a pending
// request older than PendingResumeWindow. Its outcome must be reconciled by
// other means (read the object, or list by reference), then the request
// deleted from the store.
var ErrPendingExpired = errors.New("mwallet: pending request older than the idempotency window; resending it could execute it twice")

// PendingRequest is an idempotent write recorded in a PendingStore before it
// was sent: everything needed to resend it byte for byte. Its String and
// Format never show the body.
type PendingRequest struct {
	// Key is the x-idempotency-key (the store's key of the record).
	Key string `json:"key"`
	// ClientID is the client id of the Key that sent it; only a Client of
	// the same Key may resume it (idempotency keys are per Key).
	ClientID string `json:"client_id"`
	// Method and Path (escaped) of the endpoint; Query is the encoded query
	// string, if any.
	Method string `json:"method"`
	Path   string `json:"path"`
	Query  string `json:"query,omitempty"`
	// Member is the x-on-behalf-of of a member-scoped endpoint.
	Member string `json:"member,omitempty"`
	// StepUp is the x-step-up challenge id the request carried, if any.
	StepUp string `json:"step_up,omitempty"`
	// Body is the exact request body sent (signed and hashed by the
	// service's idempotency check); nil when the request had none.
	Body []byte `json:"body,omitempty"`
	// CreatedAt is when the request was first recorded (client clock); a
	// resend keeps it.
	CreatedAt time.Time `json:"created_at"`
}

// String describes the request without its body.
func (p PendingRequest) String() string {
	var b strings.Builder
	b.WriteString("mwallet.PendingRequest{key:")
	b.WriteString(p.Key)
	b.WriteString(" client_id:")
	b.WriteString(p.ClientID)
	b.WriteString(" ")
	b.WriteString(p.Method)
	b.WriteString(" ")
	b.WriteString(p.Path)
	if p.Member != "" {
		b.WriteString(" member:")
		b.WriteString(p.Member)
	}
	b.WriteString(" body:")
	b.WriteString(strconv.Itoa(len(p.Body)))
	b.WriteString(" bytes created_at:")
	b.WriteString(p.CreatedAt.UTC().Format(time.RFC3339))
	b.WriteString("}")
	return b.String()
}

// GoString is String.
func (p PendingRequest) GoString() string { return p.String() }

// Operation returns the SDK method that made the request, such as
// "qrpay.Pay" or "cards.TopUp" (the same names Observer reports), or "" for
// an endpoint the SDK has no method for. The product packages' typed
// resumes (qrpay.Client.ResumePay, ...) and mwclient.Client.Resume read it.
func (p PendingRequest) Operation() string {
	_, op := routeOf(p.Method, p.Path)
	return op
}

// Format writes String for every verb (quoted for %q).
func (p PendingRequest) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		fmt.Fprintf(f, "%q", p.String())
		return
	}
	_, _ = f.Write([]byte(p.String()))
}

// LogValue makes slog print the request without its body.
func (p PendingRequest) LogValue() slog.Value {
	return slog.GroupValue(slog.String("key", p.Key), slog.String("method", p.Method), slog.String("path", p.Path),
		slog.String("member", p.Member), slog.Int("body_bytes", len(p.Body)), slog.Time("created_at", p.CreatedAt))
}

// PendingStore records idempotent writes whose outcome is not decided yet
// (WithPendingStore). The Client puts a request before sending it, so a
// process that dies at any point leaves it for Client.Resume, and deletes it
// when the outcome is decided: a 2xx, a replayed answer, or a definite
// failure that the same key would only repeat. The record stays while a
// resend with the same key could still execute the request: after a network
// error or timeout, a 5xx or an unknown code, idempotency_in_progress, and
// the refusals the service answers before its idempotency check that clear
// by themselves or once the same Key is fixed. Kept after a first answer of:
// idempotency_in_progress, invalid_token, invalid_signature,
// signature_required, timestamp_out_of_range, nonce_reused, rate_limited and
// every 5xx. The other refusals answered before the idempotency check
// (insufficient_scope, ip_not_allowed, merchant_disabled, member_not_found,
// environment_mismatch, ...) delete the record after a first answer. After
// an attempt of the call that may have executed, and in Client.Resume,
// every answer but a 2xx or a replay keeps it: it says nothing about that
// attempt, and the call's error says the outcome is unknown
// (ErrOutcomeUnknown).
//
// A kept record means the request may still execute: Client.Resume resends
// it with its key, and the service executes it at most once. To give up on
// it, reconcile and Delete it. PendingTable lists the rule for every code
// and transport outcome, with the reason; docs/operations.md shows it.
//
// Bodies are stored as sent: amounts, member identifiers and payer data, but
// never card PINs or CVVs (those requests are not recorded). Implementations
// must be safe for concurrent use and honour ctx; package redisstore keeps
// them in Redis, package sqlstore in PostgreSQL or SQLite (and can write the
// record inside the caller's own transaction).
type PendingStore interface {
	// Put records p under p.Key, replacing any record of that key.
	Put(ctx context.Context, p PendingRequest) error
	// Delete removes the record of key; an absent record is not an error.
	Delete(ctx context.Context, key string) error
	// List returns every record, oldest first.
	List(ctx context.Context) ([]PendingRequest, error)
}

// MemoryPendingStore is a PendingStore in process memory. It survives a
// Client but not the process: use it to find requests that timed out
// within a process, and a shared store (package redisstore) to survive
// crashes. It is safe for concurrent use.
type MemoryPendingStore struct {
	mu   sync.Mutex
	reqs map[string]PendingRequest
}

// NewMemoryPendingStore returns an empty MemoryPendingStore.
func NewMemoryPendingStore() *MemoryPendingStore {
	return &MemoryPendingStore{reqs: map[string]PendingRequest{}}
}

// Put implements PendingStore; it keeps a copy of the body.
func (m *MemoryPendingStore) Put(_ context.Context, p PendingRequest) error {
	if p.Key == "" {
		return errors.New("mwallet: pending request without a key")
	}
	p.Body = bytes.Clone(p.Body)
	m.mu.Lock()
	m.reqs[p.Key] = p
	m.mu.Unlock()
	return nil
}

// Delete implements PendingStore.
func (m *MemoryPendingStore) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	delete(m.reqs, key)
	m.mu.Unlock()
	return nil
}

// List implements PendingStore; the records are copies.
func (m *MemoryPendingStore) List(context.Context) ([]PendingRequest, error) {
	m.mu.Lock()
	out := make([]PendingRequest, 0, len(m.reqs))
	for _, p := range m.reqs {
		p.Body = bytes.Clone(p.Body)
		out = append(out, p)
	}
	m.mu.Unlock()
	SortPending(out)
	return out, nil
}

// SortPending sorts records oldest first (then by key), the order
// PendingStore.List returns.
func SortPending(ps []PendingRequest) {
	slices.SortFunc(ps, func(a, b PendingRequest) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
}

// PendingRequests lists the requests of this client's Key recorded in its
// PendingStore, oldest first: requests whose outcome was not known when
// their process stopped waiting. Call it at start-up and Resume each.
func (c *Client) PendingRequests(ctx context.Context) ([]PendingRequest, error) {
	if c.cfg.pending == nil {
		return nil, errors.New("mwallet: no pending store configured (WithPendingStore)")
	}
	all, err := c.cfg.pending.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("mwallet: pending store: list: %w", err)
	}
	out := all[:0]
	for _, p := range all {
		if p.ClientID == c.creds.ClientID {
			out = append(out, p)
		}
	}
	return out, nil
}

// Resume resends a pending request with its idempotency key, member,
// step-up and exact body bytes, so the service replays the first result
// (Response.Replayed true) when the request had executed, and executes it
// once when it had not. The 2xx body is decoded into out (for example the
// result type of the method that made the request, or json.RawMessage)
// and read as Do reads it (AnswerReader, *AnswerError).
// The store's record is deleted when the answer is final, as for any call.
// Two instances resuming the same record at once is safe: the service
// executes at most once and the second gets idempotency_in_progress (retried)
// or the replay.
//
// Resume refuses a request recorded by another Key, and one older than
// PendingResumeWindow (ErrPendingExpired), which the service would no longer
// recognise. opts may bound the call (WithMaxAttempts, WithAttemptTimeout,
// WithStepUp for a request that needs a new challenge); the idempotency key
// is always the record's.
func (c *Client) Resume(ctx context.Context, p PendingRequest, out any, opts ...CallOption) (*Response, error) {
	if !ValidIdempotencyKey(p.Key) {
		return nil, &ParamError{Param: "pending.Key", Reason: "must be UUID-shaped (8-4-4-4-12 hex digits)", Code: CodeIdempotencyKeyInvalid}
	}
	o := applyCallOptions(opts)
	o.idempotencyKey, o.idempotencyKeySet = p.Key, true
	if o.stepUp == "" {
		o.stepUp = p.StepUp
	}
	sp, err := c.resumeSpec(ctx, p, o)
	if err != nil {
		return nil, refusedBeforeSend(err, p.Key)
	}
	resp, err := c.run(ctx, sp, out, o)
	o.deliver(out, resp, err)
	return resp, err
}

// resumeSpec checks a record for Resume and builds its call. Nothing is
// sent.
func (c *Client) resumeSpec(ctx context.Context, p PendingRequest, o callOptions) (*callSpec, error) {
	if ctx == nil {
		return nil, &ParamError{Param: "ctx", Reason: "a context is required", Code: ""}
	}
	if o.refuse != nil {
		return nil, o.refuse
	}
	if p.ClientID != "" && p.ClientID != c.creds.ClientID {
		return nil, &ParamError{Param: "pending.ClientID", Reason: "recorded by the Key " + p.ClientID + "; resume it with a client of that Key", Code: ""}
	}
	if p.CreatedAt.IsZero() {
		return nil, &ParamError{Param: "pending.CreatedAt", Reason: "required", Code: ""}
	}
	if age := c.Now().Sub(p.CreatedAt); age > PendingResumeWindow {
		return nil, fmt.Errorf("%w (%s %s, recorded %s ago)", ErrPendingExpired, p.Method, p.Path, age.Round(time.Second))
	}
	if p.Body != nil && !json.Valid(p.Body) {
		return nil, &ParamError{Param: "pending.Body", Reason: "not valid JSON", Code: CodeInvalidRequest}
	}
	r := &Request{Method: p.Method, Path: p.Path, Idempotent: true}
	if p.Member != "" {
		r.MemberScoped, r.Member = true, p.Member
	}
	if p.Body != nil {
		r.Body = json.RawMessage(p.Body)
	}
	sp, err := c.spec(r, o, p.Key)
	if err != nil {
		return nil, err
	}
	sp.query = p.Query
	sp.resumed = true
	if c.cfg.pending != nil {
		rec := c.pendingOf(sp)
		rec.CreatedAt = p.CreatedAt
		sp.pending = &rec
	}
	return sp, nil
}

// ResumeAs is Client.Resume decoding the 2xx answer into a new T, for the
// product packages' typed resumes (qrpay.Client.ResumePay, cards.Client.ResumeTopUp,
// ...). operation is the SDK method whose records it accepts
// (PendingRequest.Operation, for example "cards.TopUp"); a record of any
// other is refused with a *ParamError before anything is sent. The
// Response is in T's Meta when T embeds one.
func ResumeAs[T any](ctx context.Context, c *Client, p PendingRequest, operation string, opts ...CallOption) (*T, error) {
	if op := p.Operation(); op != operation {
		err := &ParamError{Param: "pending", Reason: fmt.Sprintf("a record of %s %s (%q), not of %s", p.Method, p.Path, op, operation)}
		if ValidIdempotencyKey(p.Key) {
			err.IdempotencyKey = p.Key
		}
		return nil, err
	}
	out := new(T)
	if _, err := c.Resume(ctx, p, out, opts...); err != nil {
		return nil, err
	}
	return out, nil
}

// pendingOf builds the record of a call.
func (c *Client) pendingOf(sp *callSpec) PendingRequest {
	p := PendingRequest{
		Key: sp.idemKey, ClientID: c.creds.ClientID, Method: sp.method, Path: sp.path, Query: sp.query,
		Member: sp.member, StepUp: sp.stepUp, CreatedAt: c.Now(),
	}
	if sp.hasBody {
		p.Body = sp.body
	}
	return p
}

// attachPending gives a recorded call its PendingStore record: an
// idempotent write with a key and without a PIN or CVV, on a client with a
// PendingStore.
func (c *Client) attachPending(sp *callSpec, r *Request, o callOptions) error {
	recorded := c.cfg.pending != nil && r.Idempotent && !r.Sensitive && sp.idemKey != ""
	if o.writePending != nil && !recorded {
		reason := "the call is not recorded (no idempotency key, or it carries a card PIN or CVV)"
		if c.cfg.pending == nil {
			reason = "the client has no PendingStore (WithPendingStore)"
		}
		return &ParamError{Param: "WithPendingWrite", Reason: reason, Code: ""}
	}
	if recorded {
		p := c.pendingOf(sp)
		sp.pending, sp.writePending = &p, o.writePending
	}
	return nil
}

// recordPending puts the call's record before the first attempt.
func (c *Client) recordPending(ctx context.Context, sp *callSpec) error {
	put := c.cfg.pending.Put
	if sp.writePending != nil {
		put = sp.writePending
	}
	if err := put(ctx, *sp.pending); err != nil {
		return fmt.Errorf("mwallet: %s %s: pending store: recording the request failed, nothing was sent: %w", sp.method, sp.path, err)
	}
	return nil
}

// settlePending deletes the call's record when its outcome is final.
func (c *Client) settlePending(ctx context.Context, sp *callSpec, a *attempt) {
	if !a.outcomeFinal() {
		c.logger().LogAttrs(ctx, slog.LevelDebug, "mwallet: outcome unknown; the request stays in the pending store",
			slog.String("method", sp.method), slog.String("path", sp.path), slog.String("idempotency_key", sp.idemKey))
		return
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeCallTimeout)
	defer cancel()
	if err := c.cfg.pending.Delete(dctx, sp.idemKey); err != nil {
		// A stale record only costs a replay when resumed.
		c.logger().LogAttrs(ctx, slog.LevelWarn, "mwallet: pending store delete failed",
			slog.String("idempotency_key", sp.idemKey), slog.String("error", err.Error()))
	}
}

// outcomeFinal reports whether the call's outcome is decided, so its
// PendingStore record goes: see pendingRule and PendingStore.
func (a *attempt) outcomeFinal() bool {
	if a.attempts == 0 {
		return !a.spec.resumed // nothing was sent by this call
	}
	if a.netErr != nil || a.readErr != nil || a.prepareErr != nil {
		return false
	}
	if a.status >= 200 && a.status <= 299 {
		return true
	}
	e := a.apiErr
	if e == nil {
		return false
	}
	keep, _ := pendingRule(e.Code, e.HTTPStatus, e.Replayed, a.uncertain || a.spec.resumed)
	return !keep
}
