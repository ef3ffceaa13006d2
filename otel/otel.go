// Package mwotel traces and meters the mwallet Go SDK with OpenTelemetry.
// It is a module of its own (github.com/mwallet/mwallet-go/otel), so the
// SDK itself does not depend on OpenTelemetry.
//
// An Observer implements mwallet.Observer and webhooks.Observer; install
// it on the client and on the webhook receiver:
//
//	obs, err := mwotel.New(mwotel.WithTracerProvider(tp), mwotel.WithMeterProvider(mp))
//	client, err := mwclient.New(baseURL, creds, mwallet.WithObserver(obs))
//	http.Handle("/webhooks", webhooks.Handler(secret, handle, webhooks.WithObserver(obs)))
//
// # Spans
//
// One span per logical call (kind internal), named after the SDK method
// ("qrpay.Pay"; "POST /v1/future/{id}" for a path the SDK has no method
// for), with one child span per HTTP attempt (kind client) that follows the
// HTTP client semantic conventions: named "{method} {url.template}", with
// http.request.method, url.template, url.full, server.address,
// server.port, http.response.status_code, http.request.resend_count (from
// the second attempt) and error.type. Both carry the service's attributes:
//
//	mwallet.operation          the SDK method, for example "qrpay.Pay"
//	mwallet.error.code         the service's error code ("step_up_required")
//	mwallet.request_id         X-Request-Id of the answer
//	mwallet.idempotency_key    x-idempotency-key of the call
//	mwallet.replayed           X-Idempotent-Replay: true
//	mwallet.retry.reason       why another attempt follows (attempt spans)
//	mwallet.attempts           the attempts of the call (call spans)
//	mwallet.step_up.wait       seconds between the step_up_required answer
//	                           and the resend (the resend's call span, which
//	                           also links to the refused call's span)
//
// A token exchange is a call span of its own ("connect.Token") under the
// call that needed the token, followed by a span event
// "mwallet.token_exchange" on that call's span. The request's context is
// the attempt span's, so an otelhttp transport under the client records
// its spans under it (and propagates the trace to the service). No
// attribute ever holds a secret: no token, key, signature, nonce, body, PIN,
// CVV or card number; the step-up challenge id is not recorded either.
//
// # Metrics
//
//	mwallet.client.calls                   {call}     mwallet.operation, mwallet.error.code
//	mwallet.client.call.duration           s          mwallet.operation, mwallet.error.code
//	mwallet.client.attempts                {attempt}  mwallet.operation, http.response.status_code (error.type without an answer), mwallet.error.code
//	http.client.request.duration           s          http.request.method, url.template, server.address, http.response.status_code, error.type
//	mwallet.client.retries                 {retry}    mwallet.operation, mwallet.retry.reason
//	mwallet.client.token_exchanges         {exchange} mwallet.token_exchange.result
//	mwallet.client.token_exchange.duration s          mwallet.token_exchange.result
//	mwallet.client.step_up.wait            s          mwallet.operation
//	mwallet.client.clock.skew              s          (gauge: the service's clock minus the client's)
//	mwallet.webhooks.verifications         {verification} mwallet.webhook.result
//
// mwallet.error.code is absent on success. The clock-skew gauge is fed by
// mwallet.Observer.ClockSkew, which the client calls each time the offset
// it measures between its clock and the service's Date header changes
// (the same value as mwallet.Client.ClockSkew); no point is recorded
// before the first change from zero.
package mwotel

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	gotel "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/webhooks"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/mwallet/mwallet-go/otel"

// Attribute keys of the service, beside the semantic conventions' ones.
const (
	AttrOperation      = attribute.Key("mwallet.operation")
	AttrErrorCode      = attribute.Key("mwallet.error.code")
	AttrRequestID      = attribute.Key("mwallet.request_id")
	AttrIdempotencyKey = attribute.Key("mwallet.idempotency_key")
	AttrReplayed       = attribute.Key("mwallet.replayed")
	AttrRetryReason    = attribute.Key("mwallet.retry.reason")
	AttrAttempts       = attribute.Key("mwallet.attempts")
	AttrStepUpWait     = attribute.Key("mwallet.step_up.wait")
	AttrExchangeResult = attribute.Key("mwallet.token_exchange.result")
	AttrWebhookResult  = attribute.Key("mwallet.webhook.result")
)

// Semantic-convention keys of HTTP client spans and metrics.
const (
	keyMethod      = attribute.Key("http.request.method")
	keyTemplate    = attribute.Key("url.template")
	keyURL         = attribute.Key("url.full")
	keyServer      = attribute.Key("server.address")
	keyPort        = attribute.Key("server.port")
	keyStatus      = attribute.Key("http.response.status_code")
	keyResendCount = attribute.Key("http.request.resend_count")
	keyErrorType   = attribute.Key("error.type")
)

// Option configures New.
type Option func(*config)

type config struct {
	tp trace.TracerProvider
	mp metric.MeterProvider
}

// WithTracerProvider sets the TracerProvider (default: the global one,
// otel.GetTracerProvider).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) {
		if tp != nil {
			c.tp = tp
		}
	}
}

// WithMeterProvider sets the MeterProvider (default: the global one,
// otel.GetMeterProvider).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) {
		if mp != nil {
			c.mp = mp
		}
	}
}

// Observer turns the SDK's observations into spans and metrics. It
// implements mwallet.Observer and webhooks.Observer and is safe for
// concurrent use. Create it with New.
type Observer struct {
	tracer trace.Tracer

	calls, attempts, retries, exchanges, verifications metric.Int64Counter
	callDur, attemptDur, exchangeDur, stepUpWait       metric.Float64Histogram
	skew                                               metric.Float64Gauge

	challenges challenges

	serversMu sync.Mutex
	servers   map[string]server
}

var (
	_ mwallet.Observer  = (*Observer)(nil)
	_ webhooks.Observer = (*Observer)(nil)
)

// New returns an Observer that records on the given providers (the
// global ones by default). It fails only when the meter cannot create an
// instrument.
func New(opts ...Option) (*Observer, error) {
	c := config{tp: gotel.GetTracerProvider(), mp: gotel.GetMeterProvider()}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	m := c.mp.Meter(ScopeName)
	o := &Observer{tracer: c.tp.Tracer(ScopeName), challenges: challenges{m: map[string]challenge{}}, servers: map[string]server{}}
	var errs []error
	counter := func(name, unit, desc string) metric.Int64Counter {
		x, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return x
	}
	histogram := func(name, desc string) metric.Float64Histogram {
		x, err := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc))
		errs = append(errs, err)
		return x
	}
	o.calls = counter("mwallet.client.calls", "{call}", "Logical calls of the SDK, by operation and error code.")
	o.attempts = counter("mwallet.client.attempts", "{attempt}", "HTTP attempts of the SDK's calls.")
	o.retries = counter("mwallet.client.retries", "{retry}", "Retries of the SDK's calls, by reason.")
	o.exchanges = counter("mwallet.client.token_exchanges", "{exchange}", "Token exchanges (POST /v1/connect/token), by result.")
	o.verifications = counter("mwallet.webhooks.verifications", "{verification}", "Webhook signature verifications, by result.")
	o.callDur = histogram("mwallet.client.call.duration", "Duration of the SDK's logical calls, retries and waits included.")
	o.attemptDur = histogram("http.client.request.duration", "Duration of HTTP client requests.")
	o.exchangeDur = histogram("mwallet.client.token_exchange.duration", "Duration of token exchanges.")
	o.stepUpWait = histogram("mwallet.client.step_up.wait", "Time between a step_up_required answer and the resend with its challenge.")
	var err error
	o.skew, err = m.Float64Gauge("mwallet.client.clock.skew", metric.WithUnit("s"),
		metric.WithDescription("Offset of the service's clock from the client's, as last measured (positive: the service is ahead)."))
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return o, nil
}

// CallStart starts the call's span; a step-up resend records its wait and
// links to the refused call.
func (o *Observer) CallStart(ctx context.Context, c *mwallet.CallInfo) context.Context {
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs, keyMethod.String(c.Method), keyTemplate.String(c.Route))
	if c.Operation != "" {
		attrs = append(attrs, AttrOperation.String(c.Operation))
	}
	if c.IdempotencyKey != "" {
		attrs = append(attrs, AttrIdempotencyKey.String(c.IdempotencyKey))
	}
	var links []trace.Link
	if c.StepUpChallengeID != "" {
		if ch, ok := o.challenges.take(c.StepUpChallengeID); ok {
			wait := c.Start.Sub(ch.at)
			attrs = append(attrs, AttrStepUpWait.Float64(wait.Seconds()))
			links = append(links, trace.Link{SpanContext: ch.span})
			o.stepUpWait.Record(ctx, wait.Seconds(), metric.WithAttributes(AttrOperation.String(c.Operation)))
		}
	}
	ctx, span := o.tracer.Start(ctx, callName(c), trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithTimestamp(c.Start), trace.WithAttributes(attrs...), trace.WithLinks(links...))
	return context.WithValue(ctx, callSpanKey{}, span.SpanContext())
}

// callSpanContext returns the span context of the call span of an
// attempt's context.
func callSpanContext(ctx context.Context) trace.SpanContext {
	sc, _ := ctx.Value(callSpanKey{}).(trace.SpanContext)
	return sc
}

// callName names the call's span: the operation, or "{method} {route}".
func callName(c *mwallet.CallInfo) string {
	if c.Operation != "" {
		return c.Operation
	}
	return c.Method + " " + c.Route
}

// AttemptStart starts the attempt's HTTP client span.
func (o *Observer) AttemptStart(ctx context.Context, c *mwallet.CallInfo, a *mwallet.AttemptInfo) context.Context {
	attrs := make([]attribute.KeyValue, 0, 8)
	attrs = append(attrs, keyMethod.String(c.Method), keyTemplate.String(c.Route), keyURL.String(c.URL))
	if host, port := o.serverOf(c.URL); host != "" {
		attrs = append(attrs, keyServer.String(host))
		if port > 0 {
			attrs = append(attrs, keyPort.Int(port))
		}
	}
	if a.Number > 1 {
		attrs = append(attrs, keyResendCount.Int(a.Number-1))
	}
	if c.IdempotencyKey != "" {
		attrs = append(attrs, AttrIdempotencyKey.String(c.IdempotencyKey))
	}
	ctx, _ = o.tracer.Start(ctx, c.Method+" "+c.Route, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(a.Start), trace.WithAttributes(attrs...))
	return ctx
}

// AttemptEnd ends the attempt's span and records the attempt metrics.
func (o *Observer) AttemptEnd(ctx context.Context, c *mwallet.CallInfo, a *mwallet.AttemptInfo) {
	span := trace.SpanFromContext(ctx)
	attrs := answerAttrs(a.StatusCode, a.Code, a.RequestID, a.Replayed)
	errType := errorType(a.StatusCode, a.Err)
	if errType != "" {
		attrs = append(attrs, keyErrorType.String(errType))
		span.SetStatus(codes.Error, errType)
	}
	if a.RetryReason != "" {
		attrs = append(attrs, AttrRetryReason.String(a.RetryReason))
	}
	if a.ChallengeID != "" {
		o.challenges.put(a.ChallengeID, challenge{at: a.Start.Add(a.Duration), expires: a.ChallengeExpiresAt,
			span: callSpanContext(ctx)})
	}
	span.SetAttributes(attrs...)
	span.End(trace.WithTimestamp(a.Start.Add(a.Duration)))

	op := AttrOperation.String(c.Operation)
	set := []attribute.KeyValue{op}
	if a.StatusCode != 0 {
		set = append(set, keyStatus.Int(a.StatusCode))
	} else if errType != "" {
		set = append(set, keyErrorType.String(errType))
	}
	if a.Code != "" {
		set = append(set, AttrErrorCode.String(string(a.Code)))
	}
	o.attempts.Add(ctx, 1, metric.WithAttributes(set...))
	dur := []attribute.KeyValue{keyMethod.String(c.Method), keyTemplate.String(c.Route)}
	if host, _ := o.serverOf(c.URL); host != "" {
		dur = append(dur, keyServer.String(host))
	}
	if a.StatusCode != 0 {
		dur = append(dur, keyStatus.Int(a.StatusCode))
	}
	if errType != "" {
		dur = append(dur, keyErrorType.String(errType))
	}
	o.attemptDur.Record(ctx, a.Duration.Seconds(), metric.WithAttributes(dur...))
	if a.RetryReason != "" {
		o.retries.Add(ctx, 1, metric.WithAttributes(op, AttrRetryReason.String(a.RetryReason)))
	}
}

// callSpanKey keys the call's span in the contexts of its attempts.
type callSpanKey struct{}

// CallEnd ends the call's span and records the call metrics.
func (o *Observer) CallEnd(ctx context.Context, c *mwallet.CallInfo) {
	span := trace.SpanFromContext(ctx)
	attrs := answerAttrs(c.StatusCode, c.Code, c.RequestID, c.Replayed)
	attrs = append(attrs, AttrAttempts.Int(c.Attempts))
	if c.Err != nil {
		errType := errorType(c.StatusCode, c.Err)
		attrs = append(attrs, keyErrorType.String(errType))
		span.SetStatus(codes.Error, errType)
	}
	span.SetAttributes(attrs...)
	span.End(trace.WithTimestamp(c.Start.Add(c.Duration)))

	set := []attribute.KeyValue{AttrOperation.String(c.Operation)}
	if c.Code != "" {
		set = append(set, AttrErrorCode.String(string(c.Code)))
	} else if c.Err != nil {
		set = append(set, AttrErrorCode.String(errorType(c.StatusCode, c.Err)))
	}
	m := metric.WithAttributeSet(attribute.NewSet(set...))
	o.calls.Add(ctx, 1, m)
	o.callDur.Record(ctx, c.Duration.Seconds(), m)
}

// TokenExchange records the exchange's metrics and an event on the span of
// the call that needed the token.
func (o *Observer) TokenExchange(ctx context.Context, x *mwallet.TokenExchangeInfo) {
	res := AttrExchangeResult.String(x.Result)
	m := metric.WithAttributeSet(attribute.NewSet(res))
	o.exchanges.Add(ctx, 1, m)
	o.exchangeDur.Record(ctx, x.Duration.Seconds(), m)
	trace.SpanFromContext(ctx).AddEvent("mwallet.token_exchange", trace.WithTimestamp(x.Start.Add(x.Duration)),
		trace.WithAttributes(res, attribute.Float64("mwallet.token_exchange.duration", x.Duration.Seconds())))
}

// ClockSkew sets the clock-skew gauge.
func (o *Observer) ClockSkew(ctx context.Context, offset time.Duration) {
	o.skew.Record(ctx, offset.Seconds())
}

// WebhookVerification counts a webhook verification by result.
func (o *Observer) WebhookVerification(ctx context.Context, r webhooks.Result) {
	o.verifications.Add(ctx, 1, metric.WithAttributes(AttrWebhookResult.String(string(r))))
}

// answerAttrs are the attributes of an answer.
func answerAttrs(status int, code mwallet.Code, requestID string, replayed bool) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 8)
	if status != 0 {
		attrs = append(attrs, keyStatus.Int(status))
	}
	if code != "" {
		attrs = append(attrs, AttrErrorCode.String(string(code)))
	}
	if requestID != "" {
		attrs = append(attrs, AttrRequestID.String(requestID))
	}
	if replayed {
		attrs = append(attrs, AttrReplayed.Bool(true))
	}
	return attrs
}

// errorType is the semantic conventions' error.type: the status code of a
// 4xx or 5xx answer, "answer_unreadable" for a success answer that could
// not be read (mwallet.ErrAnswerUnreadable: the call ran), else the kind
// of error without an answer; "" on success.
func errorType(status int, err error) string {
	switch {
	case status >= 400:
		return strconv.Itoa(status)
	case err == nil:
		return ""
	case errors.Is(err, mwallet.ErrAnswerUnreadable):
		return "answer_unreadable"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	var pe *mwallet.ParamError
	var te *mwallet.TransportError
	switch {
	case errors.As(err, &pe):
		return "param_error"
	case errors.As(err, &te):
		return "transport_error"
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return "network_error"
	}
	return "_OTHER"
}

// serverOf returns the host and port of an absolute URL (the port is the
// scheme's default when the URL names none), parsed once per origin.
func (o *Observer) serverOf(raw string) (string, int) {
	origin := raw
	if i := strings.Index(raw, "://"); i >= 0 {
		if j := strings.IndexByte(raw[i+3:], '/'); j >= 0 {
			origin = raw[:i+3+j]
		}
	}
	o.serversMu.Lock()
	defer o.serversMu.Unlock()
	if s, ok := o.servers[origin]; ok {
		return s.host, s.port
	}
	var s server
	if u, err := url.Parse(origin); err == nil {
		s.host = u.Hostname()
		s.port, _ = strconv.Atoi(u.Port())
		if s.port == 0 {
			switch u.Scheme {
			case "https":
				s.port = 443
			case "http":
				s.port = 80
			}
		}
	}
	if len(o.servers) < maxServers {
		o.servers[origin] = s
	}
	return s.host, s.port
}

// server is the server.address and server.port of an origin.
type server struct {
	host string
	port int
}

// maxServers bounds the origins whose address is kept parsed (a client
// calls one).
const maxServers = 64

// challenge is a step_up_required answer waiting for its resend.
type challenge struct {
	at      time.Time
	expires time.Time
	span    trace.SpanContext
}

// maxChallenges bounds the challenges kept; beyond it, expired ones are
// dropped first and then new ones are not kept (their resends are not
// measured).
const maxChallenges = 10000

// challenges maps challenge ids to their step_up_required answer.
type challenges struct {
	mu sync.Mutex
	m  map[string]challenge
}

func (cs *challenges) put(id string, c challenge) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if len(cs.m) >= maxChallenges {
		now := time.Now()
		for k, v := range cs.m {
			if !v.expires.IsZero() && v.expires.Before(now) || v.expires.IsZero() && now.Sub(v.at) > time.Hour {
				delete(cs.m, k)
			}
		}
		if len(cs.m) >= maxChallenges {
			return
		}
	}
	cs.m[id] = c
}

func (cs *challenges) take(id string) (challenge, bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c, ok := cs.m[id]
	delete(cs.m, id)
	return c, ok
}
