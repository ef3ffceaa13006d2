package webhooks

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	mwallet "github.com/mwallet/mwallet-go"
)

// DefaultMaxBodyBytes is the default body limit of Handler and ParseEvent.
// Event bodies carry only identifiers and statuses and are far smaller.
const DefaultMaxBodyBytes int64 = 1 << 20

// WithMaxBodyBytes sets the largest body Handler and ParseEvent read
// (default 1 MiB); Handler answers 413 beyond it.
func WithMaxBodyBytes(n int64) Option {
	return optionFunc(func(c *config) {
		if n > 0 {
			c.maxBody = n
		}
	})
}

// WithDeduper sets the Deduper of Handler (default: a MemoryDeduper of
// 100,000 ids kept 24 hours, private to the handler). Pass a shared store
// when several instances receive webhooks.
func WithDeduper(d Deduper) Option {
	return optionFunc(func(c *config) {
		c.deduper = d
		c.noDedupe = d == nil
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

// HandlerFunc processes one verified, decoded, first-seen event. Returning
// nil acknowledges it (2xx); returning an error makes the service retry.
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
//  5. deduplicates by event_id (a duplicate is answered 200 without calling
//     fn; a Deduper error is answered 500);
//  6. calls fn; on success it answers 200; on error or panic it forgets the
//     event_id in the Deduper, so the service's retry is processed, and
//     answers 500 (a panic is re-raised after that).
//
// A nil fn acknowledges every verified first-seen event. Use a Tracker
// inside fn to drop out-of-order events. Handler writes no
// secret, signature or body to its answers or logs. With WithLogger it logs
// every refusal and failure with its reason; without it, it logs nothing,
// and the answer body is the only place the reason appears.
//
// Against the simulator, build the receiver with sim.Webhooks.Handler (or
// pass WithClock(sim.Clock.Now)): the simulator signs with its own clock.
func Handler(secret mwallet.Secret, fn HandlerFunc, opts ...Option) http.Handler {
	c := newConfig(opts)
	if c.deduper == nil && !c.noDedupe {
		c.deduper = NewMemoryDeduper(MemoryDeduperConfig{})
	}
	return &handler{v: NewVerifier(secret, opts...), fn: fn, c: c}
}

type handler struct {
	v  *Verifier
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
	if h.c.deduper != nil {
		first, err := h.c.deduper.FirstSeen(ctx, ev.EventID)
		if err != nil {
			h.log(ctx, slog.LevelError, "webhook dedupe store failed", ev.EventID, string(ev.EventType), err)
			reply(w, http.StatusInternalServerError, "dedupe store unavailable")
			return
		}
		if !first {
			reply(w, http.StatusOK, "duplicate")
			return
		}
	}
	if err := h.call(ctx, ev); err != nil {
		h.log(ctx, slog.LevelError, "webhook processing failed", ev.EventID, string(ev.EventType), err)
		reply(w, http.StatusInternalServerError, "processing failed")
		return
	}
	reply(w, http.StatusOK, "ok")
}

// call runs fn and forgets the event id when fn fails or panics.
func (h *handler) call(ctx context.Context, ev Event) (err error) {
	ok := false
	defer func() {
		if ok || h.c.deduper == nil {
			return
		}
		// Use a context that outlives a cancelled request: the mark must go.
		if ferr := h.c.deduper.Forget(context.WithoutCancel(ctx), ev.EventID); ferr != nil {
			h.log(ctx, slog.LevelError, "webhook dedupe forget failed", ev.EventID, string(ev.EventType), ferr)
		}
	}()
	if h.fn != nil {
		err = h.fn(ctx, ev)
	}
	if err != nil {
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
