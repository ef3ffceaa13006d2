package mwotel_test

import (
	"context"
	"fmt"
	"log"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	mwotel "github.com/mwallet/mwallet-go/otel"
	"github.com/mwallet/mwallet-go/simulator"
)

// Tracing and metering a client: install the Observer with
// mwallet.WithObserver (and on a webhook receiver with
// webhooks.WithObserver). In production pass your TracerProvider and
// MeterProvider, or leave the options out to use the global ones.
func Example() {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	obs, err := mwotel.New(mwotel.WithTracerProvider(tp), mwotel.WithMeterProvider(mp))
	if err != nil {
		log.Fatal(err)
	}

	sim, err := simulator.New()
	if err != nil {
		log.Fatal(err)
	}
	defer sim.Close()
	client := sim.Client(mwallet.WithObserver(obs))
	_, err = client.Deposits.Create(context.Background(), "member-1",
		deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("10", 6), Reference: "order-7"})
	if err != nil {
		log.Fatal(err)
	}

	for _, s := range spans.GetSpans() { // in the order they ended
		fmt.Printf("%s (%s)\n", s.Name, s.SpanKind)
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		log.Fatal(err)
	}
	for _, m := range rm.ScopeMetrics[0].Metrics {
		if m.Name == "mwallet.client.calls" {
			for _, p := range m.Data.(metricdata.Sum[int64]).DataPoints {
				op, _ := p.Attributes.Value(mwotel.AttrOperation)
				fmt.Printf("calls{%s} = %d\n", op.AsString(), p.Value)
			}
		}
	}
	// Unordered output:
	// POST /v1/connect/token (client)
	// connect.Token (internal)
	// POST /v1/deposits (client)
	// deposits.Create (internal)
	// calls{connect.Token} = 1
	// calls{deposits.Create} = 1
}
