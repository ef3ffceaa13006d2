package mwotel_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	mwotel "github.com/mwallet/mwallet-go/otel"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
	"github.com/mwallet/mwallet-go/simulator/simtest"
	"github.com/mwallet/mwallet-go/webhooks"
)

// harness is a simulator, a client and a webhook receiver observed by one
// Observer that records into OpenTelemetry's in-memory exporter and a
// manual metric reader.
type harness struct {
	sim    *simulator.Simulator
	client *mwclient.Client
	obs    *mwotel.Observer
	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{sim: simtest.Start(t), spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(h.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(h.reader))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	obs, err := mwotel.New(mwotel.WithTracerProvider(tp), mwotel.WithMeterProvider(mp))
	if err != nil {
		t.Fatal(err)
	}
	h.obs = obs
	h.client = h.sim.Client(mwallet.WithObserver(obs), mwallet.WithRetryBackoff(time.Millisecond, 5*time.Millisecond))
	return h
}

// shownAttrs are the span attributes the trace tree prints (the others
// vary between runs: request ids, keys, addresses, durations).
var shownAttrs = []attribute.Key{
	"http.response.status_code", "http.request.resend_count", "mwallet.error.code", "mwallet.replayed",
	"mwallet.retry.reason", "mwallet.attempts", "error.type",
}

// tree renders the recorded spans as an indented tree, children in start
// order, with the shown attributes, span events and links.
func (h *harness) tree() string {
	stubs := h.spans.GetSpans()
	children := map[string][]tracetest.SpanStub{}
	ids := map[string]bool{}
	for _, s := range stubs {
		ids[s.SpanContext.SpanID().String()] = true
	}
	var roots []tracetest.SpanStub
	for _, s := range stubs {
		if p := s.Parent.SpanID().String(); s.Parent.IsValid() && ids[p] {
			children[p] = append(children[p], s)
		} else {
			roots = append(roots, s)
		}
	}
	var b strings.Builder
	var walk func(list []tracetest.SpanStub, depth int)
	walk = func(list []tracetest.SpanStub, depth int) {
		sort.SliceStable(list, func(i, j int) bool { return list[i].StartTime.Before(list[j].StartTime) })
		for _, s := range list {
			fmt.Fprintf(&b, "%s%s [%s]", strings.Repeat("  ", depth), s.Name, s.SpanKind)
			for _, k := range shownAttrs {
				for _, kv := range s.Attributes {
					if kv.Key == k {
						fmt.Fprintf(&b, " %s=%s", k, kv.Value.Emit())
					}
				}
			}
			if s.Status.Code == codes.Error {
				b.WriteString(" status=Error")
			}
			for _, e := range s.Events {
				fmt.Fprintf(&b, " event=%s", e.Name)
				for _, kv := range e.Attributes {
					if kv.Key == mwotel.AttrExchangeResult {
						fmt.Fprintf(&b, "(%s)", kv.Value.Emit())
					}
				}
			}
			if len(s.Links) > 0 {
				fmt.Fprintf(&b, " links=%d", len(s.Links))
			}
			b.WriteString("\n")
			walk(children[s.SpanContext.SpanID().String()], depth+1)
		}
	}
	walk(roots, 0)
	return b.String()
}

// attr returns the value of key on the first span named name.
func (h *harness) attr(name string, key attribute.Key) (attribute.Value, bool) {
	for _, s := range h.spans.GetSpans() {
		if s.Name != name {
			continue
		}
		for _, kv := range s.Attributes {
			if kv.Key == key {
				return kv.Value, true
			}
		}
	}
	return attribute.Value{}, false
}

// metrics collects the data points as "name{k=v,...}" to a count (sums and
// histogram counts) or a value (gauges).
func (h *harness) metrics(t *testing.T) map[string]float64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := h.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	key := func(name string, set attribute.Set) string {
		var kv []string
		for _, a := range set.ToSlice() {
			if a.Key == "server.address" || a.Key == "url.template" && !strings.HasPrefix(name, "http.") {
				continue
			}
			kv = append(kv, string(a.Key)+"="+a.Value.Emit())
		}
		return name + "{" + strings.Join(kv, ",") + "}"
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out[key(m.Name, p.Attributes)] += float64(p.Value)
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out[key(m.Name, p.Attributes)] += float64(p.Count)
				}
			case metricdata.Gauge[float64]:
				for _, p := range d.DataPoints {
					out[key(m.Name, p.Attributes)] = p.Value
				}
			}
		}
	}
	return out
}

// noSecrets fails when a span attribute, event or status holds a secret
// or the step-up challenge id.
func (h *harness) noSecrets(t *testing.T, more ...string) {
	t.Helper()
	creds := h.sim.Credentials()
	secrets := append([]string{creds.APIKey, creds.SigningKey, creds.WebhookSecret, "tok_", "Bearer"}, more...)
	for _, s := range h.spans.GetSpans() {
		text := fmt.Sprintf("%s %v %v %v", s.Name, s.Attributes, s.Events, s.Status)
		for _, secret := range secrets {
			if secret != "" && strings.Contains(text, secret) {
				t.Errorf("span %s carries a secret (%.6s...)", s.Name, secret)
			}
		}
	}
}

// A step-up QR payment: the first Pay is refused with step_up_required,
// the end user completes the challenge, the resend with the same key
// succeeds; the order completes upstream and its webhook delivery is
// verified by a receiver observed by the same Observer. The trace tree is
// printed.
func TestStepUpPaymentAndWebhookTraced(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	var verified atomic.Int32
	srv := httptest.NewServer(h.sim.Webhooks.Handler(func(context.Context, webhooks.Event) error { verified.Add(1); return nil },
		webhooks.WithObserver(h.obs)))
	t.Cleanup(srv.Close)
	if _, _, err := h.sim.Webhooks.AddEndpoint(srv.URL, "qrpay.order.completed"); err != nil {
		t.Fatal(err)
	}

	p := qrpay.PayParams{CodeValue: sampleqr.PromptPay, PreferredAsset: "USDT"}
	_, err := h.client.QRPay.Pay(ctx, simulator.DefaultMemberExternalID, p)
	su, ok := mwallet.AsStepUp(err)
	if !ok {
		t.Fatalf("Pay: %v, want step_up_required", err)
	}
	if err := h.sim.StepUp.Complete(su.ChallengeID); err != nil {
		t.Fatal(err)
	}
	order, err := h.client.QRPay.Pay(ctx, simulator.DefaultMemberExternalID, p, su.Options()...)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.sim.QRPay.Complete(order.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.sim.Webhooks.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// A forged delivery without a signature.
	forged := httptest.NewRecorder()
	h.sim.Webhooks.Handler(nil, webhooks.WithObserver(h.obs)).ServeHTTP(forged, httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}")))
	if verified.Load() != 1 || forged.Code != http.StatusBadRequest {
		t.Fatalf("verified %d deliveries, forged answered %d; want 1 and 400", verified.Load(), forged.Code)
	}

	tree := h.tree()
	t.Logf("trace tree:\n%s", tree)
	want := `qrpay.Pay [internal] http.response.status_code=400 mwallet.error.code=step_up_required mwallet.attempts=1 error.type=400 status=Error event=mwallet.token_exchange(ok)
  connect.Token [internal] http.response.status_code=200 mwallet.attempts=1
    POST /v1/connect/token [client] http.response.status_code=200
  POST /v1/qrpay/payments [client] http.response.status_code=400 mwallet.error.code=step_up_required error.type=400 status=Error
qrpay.Pay [internal] http.response.status_code=201 mwallet.attempts=1 links=1
  POST /v1/qrpay/payments [client] http.response.status_code=201
  mwallet.Assets [internal] http.response.status_code=200 mwallet.attempts=1
    GET /v1/assets [client] http.response.status_code=200
`
	if diff := cmp.Diff(want, tree); diff != "" {
		t.Errorf("trace tree (-want +got):\n%s", diff)
	}
	// The resend links to the refused call and carries the step-up wait.
	var refused, resend tracetest.SpanStub
	for _, s := range h.spans.GetSpans() {
		if s.Name == "qrpay.Pay" && len(s.Links) == 0 {
			refused = s
		} else if s.Name == "qrpay.Pay" {
			resend = s
		}
	}
	if i := slices.IndexFunc(resend.Attributes, func(kv attribute.KeyValue) bool { return kv.Key == mwotel.AttrStepUpWait }); i < 0 {
		t.Errorf("the resend has no %s attribute", mwotel.AttrStepUpWait)
	}
	if resend.Links[0].SpanContext.SpanID() != refused.SpanContext.SpanID() {
		t.Errorf("the resend links to %v, want the refused call %v", resend.Links[0].SpanContext.SpanID(), refused.SpanContext.SpanID())
	}
	keys := map[string]bool{}
	for _, s := range h.spans.GetSpans() {
		for _, kv := range s.Attributes {
			if kv.Key == mwotel.AttrIdempotencyKey {
				keys[kv.Value.AsString()] = true
			}
			if kv.Key == mwotel.AttrStepUpWait && (s.Name != "qrpay.Pay" || kv.Value.AsFloat64() < 0) {
				t.Errorf("%s: step-up wait %v", s.Name, kv.Value.Emit())
			}
		}
	}
	if len(keys) != 1 || !keys[su.IdempotencyKey] {
		t.Errorf("idempotency keys on the spans %v, want only the payment's %s", keys, su.IdempotencyKey)
	}
	if v, ok := h.attr("POST /v1/qrpay/payments", "mwallet.request_id"); !ok || v.AsString() == "" {
		t.Errorf("the attempt span has no request id")
	}
	if v, ok := h.attr("POST /v1/qrpay/payments", "url.template"); !ok || v.AsString() != "/v1/qrpay/payments" {
		t.Errorf("url.template = %v", v.Emit())
	}
	h.noSecrets(t, su.ChallengeID)

	got := h.metrics(t)
	want2 := map[string]float64{
		"mwallet.client.calls{mwallet.error.code=step_up_required,mwallet.operation=qrpay.Pay}":                                               1,
		"mwallet.client.calls{mwallet.operation=qrpay.Pay}":                                                                                   1,
		"mwallet.client.calls{mwallet.operation=connect.Token}":                                                                               1,
		"mwallet.client.calls{mwallet.operation=mwallet.Assets}":                                                                              1,
		"mwallet.client.call.duration{mwallet.error.code=step_up_required,mwallet.operation=qrpay.Pay}":                                       1,
		"mwallet.client.call.duration{mwallet.operation=qrpay.Pay}":                                                                           1,
		"mwallet.client.call.duration{mwallet.operation=connect.Token}":                                                                       1,
		"mwallet.client.call.duration{mwallet.operation=mwallet.Assets}":                                                                      1,
		"mwallet.client.attempts{http.response.status_code=400,mwallet.error.code=step_up_required,mwallet.operation=qrpay.Pay}":              1,
		"mwallet.client.attempts{http.response.status_code=201,mwallet.operation=qrpay.Pay}":                                                  1,
		"mwallet.client.attempts{http.response.status_code=200,mwallet.operation=connect.Token}":                                              1,
		"mwallet.client.attempts{http.response.status_code=200,mwallet.operation=mwallet.Assets}":                                             1,
		"http.client.request.duration{error.type=400,http.request.method=POST,http.response.status_code=400,url.template=/v1/qrpay/payments}": 1,
		"http.client.request.duration{http.request.method=POST,http.response.status_code=201,url.template=/v1/qrpay/payments}":                1,
		"http.client.request.duration{http.request.method=POST,http.response.status_code=200,url.template=/v1/connect/token}":                 1,
		"http.client.request.duration{http.request.method=GET,http.response.status_code=200,url.template=/v1/assets}":                         1,
		"mwallet.client.token_exchanges{mwallet.token_exchange.result=ok}":                                                                    1,
		"mwallet.client.token_exchange.duration{mwallet.token_exchange.result=ok}":                                                            1,
		"mwallet.client.step_up.wait{mwallet.operation=qrpay.Pay}":                                                                            1,
		"mwallet.webhooks.verifications{mwallet.webhook.result=verified}":                                                                     1,
		"mwallet.webhooks.verifications{mwallet.webhook.result=missing_header}":                                                               1,
	}
	if diff := cmp.Diff(want2, got); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}

// A write whose answer is dropped after it ran (drop_after fault) is sent
// again with the same key and answered with the stored result, flagged as
// a replay.
func TestRetriedWriteTraced(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if err := h.sim.Faults.Inject(simulator.Fault{Method: http.MethodPost, Path: "/v1/deposits", Kind: simulator.FaultDropAfter}); err != nil {
		t.Fatal(err)
	}
	dep, err := h.client.Deposits.Create(context.Background(), simulator.DefaultMemberExternalID,
		deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("2", 6), Reference: "otel-1"})
	if err != nil {
		t.Fatal(err)
	}
	tree := h.tree()
	t.Logf("trace tree:\n%s", tree)
	want := `deposits.Create [internal] http.response.status_code=201 mwallet.replayed=true mwallet.attempts=2 event=mwallet.token_exchange(ok)
  connect.Token [internal] http.response.status_code=200 mwallet.attempts=1
    POST /v1/connect/token [client] http.response.status_code=200
  POST /v1/deposits [client] mwallet.retry.reason=network error error.type=network_error status=Error
  POST /v1/deposits [client] http.response.status_code=201 http.request.resend_count=1 mwallet.replayed=true
`
	if diff := cmp.Diff(want, tree); diff != "" {
		t.Errorf("trace tree (-want +got):\n%s", diff)
	}
	for _, s := range h.spans.GetSpans() {
		if s.Name != "POST /v1/deposits" {
			continue
		}
		i := slices.IndexFunc(s.Attributes, func(kv attribute.KeyValue) bool { return kv.Key == mwotel.AttrIdempotencyKey })
		if i < 0 || s.Attributes[i].Value.AsString() != dep.Response.IdempotencyKey {
			t.Errorf("attempt span without the call's idempotency key %s: %v", dep.Response.IdempotencyKey, s.Attributes)
		}
	}
	h.noSecrets(t)
	got := h.metrics(t)
	for k, v := range map[string]float64{
		"mwallet.client.calls{mwallet.operation=deposits.Create}":                                                   1,
		"mwallet.client.attempts{error.type=network_error,mwallet.operation=deposits.Create}":                       1,
		"mwallet.client.attempts{http.response.status_code=201,mwallet.operation=deposits.Create}":                  1,
		"mwallet.client.retries{mwallet.operation=deposits.Create,mwallet.retry.reason=network error}":              1,
		"http.client.request.duration{error.type=network_error,http.request.method=POST,url.template=/v1/deposits}": 1,
	} {
		if got[k] != v {
			t.Errorf("%s = %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
}

// The clock-skew gauge holds the offset a client measured: a client whose
// clock is 301 seconds behind the simulator's reports 301 s after its first
// answer (and its signed write succeeds at once); then the last offset
// reported directly.
func TestClockSkewGauge(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	c := h.sim.Client(mwallet.WithObserver(h.obs), mwallet.WithClockOffset(-301*time.Second), mwallet.WithLogger(slog.New(slog.DiscardHandler)))
	dep, err := c.Deposits.Create(ctx, simulator.DefaultMemberExternalID, deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("1", 6), Reference: "skew-1"})
	if err != nil || dep.Response.Attempts != 1 {
		t.Fatalf("deposit: %v, %+v", err, dep)
	}
	if got := h.metrics(t)["mwallet.client.clock.skew{}"]; got != 301 {
		t.Errorf("gauge %v after a client 301 s behind, want 301", got)
	}
	for _, d := range []time.Duration{-time.Hour, 0} {
		h.obs.ClockSkew(ctx, d)
		if got := h.metrics(t)["mwallet.client.clock.skew{}"]; got != d.Seconds() {
			t.Errorf("gauge %v after ClockSkew(%v)", got, d)
		}
	}
}

// A path the SDK has no method for (Client.Do) is named by its method and
// a template without its identifiers, on the call span, the attempt span
// and the latency metric.
func TestUnknownPathNamedByTemplate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	_, err := h.client.Do(context.Background(), &mwallet.Request{Method: http.MethodGet, Path: "/v1/future/things/thg_0f5c2f7e-1111"}, nil)
	if err == nil {
		t.Fatal("the simulator answered an unknown path")
	}
	want := `GET /v1/future/things/{id} [internal] http.response.status_code=404 mwallet.error.code=not_found mwallet.attempts=1 error.type=404 status=Error event=mwallet.token_exchange(ok)
  connect.Token [internal] http.response.status_code=200 mwallet.attempts=1
    POST /v1/connect/token [client] http.response.status_code=200
  GET /v1/future/things/{id} [client] http.response.status_code=404 mwallet.error.code=not_found error.type=404 status=Error
`
	if diff := cmp.Diff(want, h.tree()); diff != "" {
		t.Errorf("trace tree (-want +got):\n%s", diff)
	}
	if v, _ := h.attr("GET /v1/future/things/{id}", "url.full"); !strings.HasSuffix(v.AsString(), "/v1/future/things/thg_0f5c2f7e-1111") {
		t.Errorf("url.full = %q, want the path as sent", v.AsString())
	}
	host, _ := h.attr("GET /v1/future/things/{id}", "server.address")
	port, _ := h.attr("GET /v1/future/things/{id}", "server.port")
	if wantHost, wantPort, _ := strings.Cut(strings.TrimPrefix(h.sim.URL(), "http://"), ":"); host.AsString() != wantHost || strconv.FormatInt(port.AsInt64(), 10) != wantPort {
		t.Errorf("server.address %q, server.port %d; want those of %s", host.AsString(), port.AsInt64(), h.sim.URL())
	}
	got := h.metrics(t)
	if k := "http.client.request.duration{error.type=404,http.request.method=GET,http.response.status_code=404,url.template=/v1/future/things/{id}}"; got[k] != 1 {
		t.Errorf("%s = %v (all: %v)", k, got[k], got)
	}
}
