package webhooks

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/control/controltest"
)

// publicConfig stands for the declaring package's public copy of a
// configuration.
type publicConfig EndpointConfig

// TestEndpointOps: adding an endpoint answers its id and secret (and the
// endpoint to the control API), a refused URL answers as the line refuses
// it, the Go calls take the public configuration, and the lists answer the
// public copies in order, as the control API's envelope.
func TestEndpointOps(t *testing.T) {
	t.Parallel()
	l, _, _, tx := newLine(t, "sandbox")
	ops := NewEndpointOps(controltest.At[Line], func(in EndpointIn) any { return publicConfig(in) },
		func(v EndpointView) string { return v.URL }, func(v DeliveryView) string { return v.ID })
	if diff := cmp.Diff([]controltest.Decl{
		{Name: "Webhooks.AddEndpoint"},
		{Route: "POST /_sim/webhooks/endpoints", Name: "Webhooks.AddEndpointConfig"},
		{Route: "GET /_sim/webhooks/endpoints", Name: "Webhooks.Endpoints"},
		{Route: "GET /_sim/webhooks/deliveries", Name: "Webhooks.Deliveries"},
	}, controltest.Decls(ops.AddEndpoint, ops.AddEndpointConfig, ops.Endpoints, ops.Deliveries)); diff != "" {
		t.Errorf("declarations (-want +got):\n%s", diff)
	}
	x := opRun{Line: l, Tx: tx}
	tests := []struct {
		name string
		in   EndpointIn
		args []any
		code string
	}{
		{name: "by URL", in: EndpointIn{URL: "https://a.example/hook", Events: []string{"card.status.updated"}},
			args: []any{"https://a.example/hook", []string{"card.status.updated"}}},
		{name: "by configuration", in: EndpointIn{URL: "https://b.example/hook", Environment: "production", Secret: "s3cret"},
			args: []any{publicConfig{URL: "https://b.example/hook", Environment: "production", Secret: "s3cret"}}},
		{name: "not a URL", in: EndpointIn{URL: "ftp://c.example"}, code: "invalid_fields"},
	}
	for i, tt := range tests {
		op := ops.AddEndpoint
		if i > 0 {
			op = ops.AddEndpointConfig
		}
		if _, args, _ := op.Call(&tt.in); tt.args != nil && !cmp.Equal(args, tt.args) {
			t.Errorf("%s: recorded call %v, want %v", tt.name, args, tt.args)
		}
		out, err := op.Run(x, &tt.in)
		if got := controltest.Outcome(nil, err).Code; got != tt.code {
			t.Errorf("%s: refusal %q, want %q", tt.name, got, tt.code)
		}
		if added := out.(EndpointAdded); tt.code == "" && (added.ID == "" || added.ID != added.View.ID || added.Secret == "") {
			t.Errorf("%s: added %+v", tt.name, added)
		}
		if i == 1 {
			status, body := op.Reply(x, &tt.in, out)
			m := body.(map[string]any)
			if status != http.StatusCreated || m["secret"] != "s3cret" || m["environment"] != "production" || m["url"] != tt.in.URL {
				t.Errorf("%s: reply %d %v", tt.name, status, m)
			}
		}
	}
	out, _ := ops.Endpoints.Run(x, &control.NoInput{})
	if diff := cmp.Diff([]string{"https://a.example/hook", "https://b.example/hook"}, out); diff != "" {
		t.Errorf("endpoints (-want +got):\n%s", diff)
	}
	if _, body := ops.Endpoints.Reply(x, &control.NoInput{}, out); !cmp.Equal(body, api.ListEnvelope{Data: out.([]string)}) {
		t.Errorf("endpoints' envelope %v", body)
	}
	out, _ = ops.Deliveries.Run(x, &control.NoInput{})
	if _, body := ops.Deliveries.Reply(x, &control.NoInput{}, out); !cmp.Equal(body, api.ListEnvelope{Data: []string{}}) {
		t.Errorf("deliveries' envelope %#v", body)
	}
}
