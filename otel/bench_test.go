package mwotel_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	mwallet "github.com/mwallet/mwallet-go"
	mwotel "github.com/mwallet/mwallet-go/otel"
)

// benchServer answers the token exchange and every payment like the root
// package's BenchmarkSignedPOST server, over plain HTTP/1.1.
func benchServer(b *testing.B) *httptest.Server {
	b.Helper()
	tok := []byte(`{"auth_token":"tok_bench","expired_at":` + strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10) + `,"token_type":"Bearer","scopes":[]}`)
	order := []byte(`{"id":"qrp_0f5c2f7e-1111-4a53-9b0e-8a6c2b3d4e5f","status":"pending","amount":"12.500000"}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req_bench")
		if r.URL.Path == "/v1/connect/token" {
			_, _ = w.Write(tok)
			return
		}
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(order)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// inMemory serves the handler of an httptest.Server without a network:
// the cost of the client and its Observer stands out of the loopback's.
type inMemory struct{ h http.Handler }

func (m inMemory) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body == nil {
		r.Body = http.NoBody // as a server request always has one
	}
	rec := httptest.NewRecorder()
	m.h.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// benchSignedPOST sends one signed, idempotent, member-scoped POST per
// iteration through Client.Do, as the root package's BenchmarkSignedPOST;
// over loopback HTTP/1.1, or in memory when inMem is set.
func benchSignedPOST(b *testing.B, inMem bool, opts ...mwallet.Option) {
	srv := benchServer(b)
	hc := srv.Client()
	if inMem {
		hc = &http.Client{Transport: inMemory{srv.Config.Handler}}
	}
	c, err := mwallet.New(srv.URL, mwallet.Credentials{ClientID: "cli_bench", APIKey: "key_bench", SigningKey: "sig_bench"},
		append(opts, mwallet.WithHTTPClient(hc))...)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	body := map[string]string{"code_value": "00020101021226300014A000000677010111011300660000000005204000053037645406100.005802TH6304ABCD", "preferred_asset": "USDT", "amount": "12.5"}
	b.ReportAllocs()
	for b.Loop() {
		var out struct {
			ID string `json:"id"`
		}
		_, err := c.Do(ctx, &mwallet.Request{Method: http.MethodPost, Path: "/v1/qrpay/payments", MemberScoped: true, Member: "member-1",
			Body: body, Idempotent: true}, &out)
		if err != nil || out.ID == "" {
			b.Fatal(err)
		}
	}
}

// BenchmarkSignedPOSTNoObserver is the baseline of
// BenchmarkSignedPOSTOTelObserver: the same call without an Observer.
func BenchmarkSignedPOSTNoObserver(b *testing.B) { benchSignedPOST(b, false) }

// BenchmarkSignedPOSTInMemoryNoObserver is BenchmarkSignedPOSTNoObserver
// without the network: the baseline of
// BenchmarkSignedPOSTInMemoryOTelObserver.
func BenchmarkSignedPOSTInMemoryNoObserver(b *testing.B) { benchSignedPOST(b, true) }

// BenchmarkSignedPOSTInMemoryOTelObserver is
// BenchmarkSignedPOSTOTelObserver without the network.
func BenchmarkSignedPOSTInMemoryOTelObserver(b *testing.B) {
	benchSignedPOST(b, true, mwallet.WithObserver(benchObserver(b)))
}

// BenchmarkSignedPOSTOTelObserver is the same call with the OpenTelemetry
// Observer installed, every span sampled and exported (synchronously, to
// an exporter that drops them) and every metric recorded by the SDK's
// aggregations (a manual reader).
func BenchmarkSignedPOSTOTelObserver(b *testing.B) {
	benchSignedPOST(b, false, mwallet.WithObserver(benchObserver(b)))
}

// benchObserver records every span (exported synchronously to an exporter
// that drops them) and every metric (a manual reader).
func benchObserver(b *testing.B) *mwotel.Observer {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	obs, err := mwotel.New(mwotel.WithTracerProvider(tp), mwotel.WithMeterProvider(mp))
	if err != nil {
		b.Fatal(err)
	}
	return obs
}

// BenchmarkObserverCall is the Observer's own work for one logical call of
// one attempt (CallStart, AttemptStart, AttemptEnd, CallEnd) with the same
// providers, without the client: its cost per call in isolation.
func BenchmarkObserverCall(b *testing.B) {
	obs := benchObserver(b)
	ctx := context.Background()
	call := &mwallet.CallInfo{Operation: "qrpay.Pay", Method: "POST", Route: "/v1/qrpay/payments",
		URL: "https://api.example.com/v1/qrpay/payments", IdempotencyKey: "3f0e1f0c-7d0c-4a53-9b0e-8a6c2b3d4e5f"}
	b.ReportAllocs()
	for b.Loop() {
		call.Start = time.Now()
		cctx := obs.CallStart(ctx, call)
		at := &mwallet.AttemptInfo{Number: 1, Start: call.Start}
		actx := obs.AttemptStart(cctx, call, at)
		at.StatusCode, at.RequestID, at.Duration = 201, "req_bench", time.Millisecond
		obs.AttemptEnd(actx, call, at)
		call.Attempts, call.StatusCode, call.RequestID, call.Duration = 1, 201, "req_bench", time.Millisecond
		obs.CallEnd(cctx, call)
	}
}
