package mwallet

import (
	"context"
	"log/slog"
)

// log records the outcome of the latest attempt at debug level: method,
// path (no query), status, code, attempt, request id, idempotency key and
// replay flag. Tokens, keys, signatures, nonces and bodies are never logged.
func (a *attempt) log(ctx context.Context) {
	l := a.c.logger()
	if !l.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := make([]slog.Attr, 0, 10)
	attrs = append(attrs,
		slog.String("method", a.spec.method),
		slog.String("path", a.spec.path),
		slog.Int("attempt", a.attempts),
	)
	if a.status != 0 {
		attrs = append(attrs, slog.Int("status", a.status))
	}
	reqID := ""
	if a.header != nil {
		reqID = a.header.Get("X-Request-Id")
	}
	if a.apiErr != nil {
		attrs = append(attrs, slog.String("code", string(a.apiErr.Code)))
		if reqID == "" {
			reqID = a.apiErr.RequestID
		}
	}
	if reqID != "" {
		attrs = append(attrs, slog.String("request_id", clip(reqID, 256)))
	}
	if a.spec.idemKey != "" {
		attrs = append(attrs, slog.String("idempotency_key", a.spec.idemKey))
	}
	if a.header != nil && isReplay(a.header) {
		attrs = append(attrs, slog.Bool("replayed", true))
	}
	if n := a.sends.Swap(0); n > 1 {
		// net/http sent this attempt more than once by itself (a read
		// whose HTTP/2 stream was refused, or whose kept-alive connection
		// failed); the service may have seen each send.
		attrs = append(attrs, slog.Int64("sends", n))
	}
	switch {
	case a.netErr != nil:
		attrs = append(attrs, slog.String("error", a.netErr.Error()))
	case a.readErr != nil:
		attrs = append(attrs, slog.String("error", a.readErr.Error()))
	}
	msg := "mwallet: response"
	if a.spec.exchange {
		msg = "mwallet: token exchange response"
	}
	l.LogAttrs(ctx, slog.LevelDebug, msg, attrs...)
}

// logRetry records the decision to retry and the wait before it.
func (a *attempt) logRetry(ctx context.Context) {
	l := a.c.logger()
	if !l.Enabled(ctx, slog.LevelDebug) {
		return
	}
	l.LogAttrs(ctx, slog.LevelDebug, "mwallet: retrying",
		slog.String("method", a.spec.method),
		slog.String("path", a.spec.path),
		slog.Int("next_attempt", a.attempts+1),
		slog.String("reason", a.decision.reason),
		slog.Duration("wait", a.decision.wait),
		slog.String("idempotency_key", a.spec.idemKey),
	)
}
