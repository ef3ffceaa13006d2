package webhooks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
)

// DefaultMaxBodyBytes is the default body limit of Handler.
// Event bodies carry only identifiers and statuses and are far smaller.
const DefaultMaxBodyBytes int64 = 1 << 20

// WithMaxBodyBytes sets the largest body Handler reads
// (default 1 MiB); Handler answers 413 beyond it.
func WithMaxBodyBytes(n int64) Option {
	return optionFunc(func(c *config) {
		if n > 0 {
			c.maxBody = n
		}
	})
}

// WithDeduper sets the Deduper of Handler (default: a MemoryDeduper of
// 100,000 ids, done ids kept 24 hours, private to the handler). Pass a
// persistent, shared one (packages redisstore, sqlstore) when the receiver
// restarts or several instances receive webhooks.
func WithDeduper(d Deduper) Option {
	return optionFunc(func(c *config) {
		c.deduper = d
		c.noDedupe = d == nil
	})
}

// WithLease sets how long Handler claims an event id while its function runs
// (default DefaultLease, 5 minutes), on the handler's clock (WithClock).
// Another delivery of the id meanwhile is answered 409 and retried by the
// service; after the lease lapses a delivery takes the claim over, which is
// how an event whose receiver died mid-way is processed after all. Make it
// longer than the function's longest run: a lease that lapses while the
// function still runs lets a retry process the event a second time.
func WithLease(d time.Duration) Option {
	return optionFunc(func(c *config) {
		if d > 0 {
			c.lease = d
		}
	})
}

// WithoutDedupe makes Handler call the function for every verified
// delivery, duplicates included; the function must then be idempotent.
func WithoutDedupe() Option {
	return optionFunc(func(c *config) { c.deduper, c.noDedupe = nil, true })
}

// WithLogger makes Handler log rejected and failed deliveries (at Warn and
// Error) to l: the outcome, event id and type, and the error. Secrets,
// signatures and bodies are never logged. The default logs nothing.
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(c *config) { c.logger = l })
}

// HandlerFunc processes one verified, decoded event that Handler claimed.
// Returning nil acknowledges it (2xx); returning an error makes the service
// retry.
type HandlerFunc func(ctx context.Context, ev Event) error

// Handler returns an http.Handler receiving webhook deliveries. For each
// request it:
//
//  1. refuses methods other than POST (405);
//  2. reads the body up to the limit (WithMaxBodyBytes, default 1 MiB;
//     413 beyond);
//  3. verifies z-signature over the raw body with secret (and WithSecrets;
//     400 on any failure: missing, malformed, mismatch, out of range, with
//     the reason in the answer body, for example "invalid signature:
//     webhooks: signature timestamp out of range: timestamp stale by
//     7844h0m0s (tolerance 5m0s)");
//  4. decodes the event (400 when malformed);
//  5. claims the event_id in the Deduper for the lease (WithLease, default
//     5 minutes, on the handler's clock): a done id is answered 200
//     "duplicate" without calling fn; an id another delivery holds is
//     answered 409 "in progress" (the service retries later; a claim whose
//     lease lapsed is taken over); a Deduper error is answered 500;
//  6. calls fn; on success it records the id as done and answers 200; on
//     error or panic it releases the claim, so the service's retry is
//     processed at once, and answers 500 (a panic is re-raised after that).
//
// So an event is processed at least once whatever the receiver does: a
// process that dies before fn returned leaves a claim that lapses, and the
// retry processes the event. Each event is processed exactly once unless the
// process dies after fn succeeded and before the Deduper recorded it as
// done; the retry after the lease then processes it again. With a
// MemoryDeduper, which a restart empties, a retry that arrives after a
// restart is processed again too; see Deduper.
//
// A nil fn acknowledges every verified, claimed event. Use a Tracker inside
// fn to drop out-of-order events. Handler writes no secret, signature or body
// to its answers or logs. With WithLogger it logs every refusal and failure
// with its reason; without it, it logs nothing, and the answer body is the
// only place the reason appears.
//
// Against the simulator, build the receiver with sim.Webhooks.Handler (or
// pass WithClock(sim.Clock.Now)): the simulator signs with its own clock.
func Handler(secret mwallet.Secret, fn HandlerFunc, opts ...Option) http.Handler {
	c := newConfig(opts)
	if c.deduper == nil && !c.noDedupe {
		c.deduper = NewMemoryDeduper(MemoryDeduperConfig{})
	}
	return &handler{v: newVerifier(secret, opts...), fn: fn, c: c}
}

type handler struct {
	v  *verifier
	fn HandlerFunc
	c  config
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		reply(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	body, err := readBody(r.Body, h.c.maxBody)
	if err != nil {
		if errors.Is(err, ErrBodyTooLarge) {
			h.log(r.Context(), slog.LevelWarn, "webhook body too large", "", "", err)
			reply(w, http.StatusRequestEntityTooLarge, "body too large")
			return
		}
		h.log(r.Context(), slog.LevelWarn, "webhook body unreadable", "", "", err)
		reply(w, http.StatusBadRequest, "body unreadable")
		return
	}
	err = h.v.verify(body, r.Header.Get(SignatureHeader))
	if h.v.observer != nil {
		h.v.observer.WebhookVerification(r.Context(), ResultOf(err))
	}
	if err != nil {
		h.log(r.Context(), slog.LevelWarn, "webhook signature rejected", r.Header.Get(EventIDHeader), r.Header.Get(EventTypeHeader), err)
		// The reason is safe to show (a *VerifyError never holds a secret,
		// a signature or the body) and tells the sender what to fix, for
		// example a clock that is off.
		reply(w, http.StatusBadRequest, "invalid signature: "+err.Error())
		return
	}
	ev, err := DecodeEvent(body)
	if err != nil {
		h.log(r.Context(), slog.LevelWarn, "webhook body malformed", r.Header.Get(EventIDHeader), r.Header.Get(EventTypeHeader), err)
		reply(w, http.StatusBadRequest, "malformed event")
		return
	}
	ctx := r.Context()
	if h.c.deduper == nil {
		if err := h.call(ctx, ev); err != nil {
			h.log(ctx, slog.LevelError, "webhook processing failed", ev.EventID, string(ev.EventType), err)
			reply(w, http.StatusInternalServerError, "processing failed")
			return
		}
		reply(w, http.StatusOK, "ok")
		return
	}
	claim, err := h.c.deduper.Claim(ctx, ev.EventID, h.c.now(), h.c.lease)
	if err != nil {
		h.log(ctx, slog.LevelError, "webhook dedupe store failed", ev.EventID, string(ev.EventType), err)
		reply(w, http.StatusInternalServerError, "dedupe store unavailable")
		return
	}
	switch claim.State {
	case ClaimDone:
		reply(w, http.StatusOK, "duplicate")
		return
	case ClaimHeld:
		if wait := claim.Until.Sub(h.c.now()); wait > 0 {
			w.Header().Set("Retry-After", strconv.FormatInt(int64((wait+time.Second-1)/time.Second), 10))
		}
		reply(w, http.StatusConflict, "in progress")
		return
	case ClaimAcquired:
	default:
		h.log(ctx, slog.LevelError, "webhook dedupe store failed", ev.EventID, string(ev.EventType), fmt.Errorf("Claim answered %s", claim.State))
		reply(w, http.StatusInternalServerError, "dedupe store unavailable")
		return
	}
	if err := h.callClaimed(ctx, ev, claim.Token); err != nil {
		h.log(ctx, slog.LevelError, "webhook processing failed", ev.EventID, string(ev.EventType), err)
		reply(w, http.StatusInternalServerError, "processing failed")
		return
	}
	// Use a context that outlives a cancelled request: fn succeeded, so the
	// id must be recorded as done.
	if err := h.c.deduper.Done(context.WithoutCancel(ctx), ev.EventID, h.c.now()); err != nil {
		// The event was processed: acknowledge it. The claim lapses after
		// the lease; only a later redelivery would process it again.
		h.log(ctx, slog.LevelError, "webhook dedupe done failed", ev.EventID, string(ev.EventType), err)
	}
	reply(w, http.StatusOK, "ok")
}

// call runs fn.
func (h *handler) call(ctx context.Context, ev Event) error {
	if h.fn == nil {
		return nil
	}
	return h.fn(ctx, ev)
}

// callClaimed runs fn and releases the claim when fn fails or panics.
func (h *handler) callClaimed(ctx context.Context, ev Event, token string) (err error) {
	ok := false
	defer func() {
		if ok {
			return
		}
		// Use a context that outlives a cancelled request: the claim must go.
		if rerr := h.c.deduper.Release(context.WithoutCancel(ctx), ev.EventID, token); rerr != nil {
			h.log(ctx, slog.LevelError, "webhook dedupe release failed", ev.EventID, string(ev.EventType), rerr)
		}
	}()
	if err = h.call(ctx, ev); err != nil {
		return err
	}
	ok = true
	return nil
}

func (h *handler) log(ctx context.Context, level slog.Level, msg, eventID, eventType string, err error) {
	if h.c.logger == nil {
		return
	}
	h.c.logger.LogAttrs(ctx, level, msg,
		slog.String("event_id", eventID),
		slog.String("event_type", eventType),
		slog.String("error", err.Error()))
}

func reply(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(msg + "\n"))
}
