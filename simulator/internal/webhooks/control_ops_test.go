package webhooks

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/simulator/internal/control/controltest"
)

// opRun is the test's run of one op: the line and the transaction.
type opRun = controltest.Run[Line]

// TestControlOps: disabling, enabling and removing an endpoint, automatic
// delivery, and an unknown endpoint refused as not found.
func TestControlOps(t *testing.T) {
	t.Parallel()
	l, _, _, tx := newLine(t, "sandbox")
	id := addEndpoint(t, l, tx, EndpointConfig{URL: "https://example.com/hook"})
	ops := NewControlOps(controltest.At[Line], func(v EndpointView) any { return v.Disabled },
		func(_ opRun, id string) (any, error) { return "redelivered " + id, nil })
	x := opRun{Line: l, Tx: tx}
	run := controltest.Outcome
	got := []controltest.Result{
		run(ops.DisableEndpoint.Run(x, &EndpointRef{ID: id})),
		run(ops.EnableEndpoint.Run(x, &EndpointRef{ID: id})),
		run(ops.SetAutoDeliver.Run(x, &AutoIn{Enabled: true})),
		run(ops.RemoveEndpoint.Run(x, &EndpointRef{ID: id})),
		run(ops.RemoveEndpoint.Run(x, &EndpointRef{ID: id})),
		run(ops.Redeliver.Run(x, &DeliveryRef{ID: "whd_1"})),
	}
	want := []controltest.Result{
		{Out: true},
		{Out: false},
		{Out: map[string]any{"enabled": true}},
		{Out: map[string]any{"id": id, "deleted": true}},
		{Code: "not_found"},
		{Out: "redelivered whd_1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if !l.st.auto.Get(tx) || len(l.EndpointList(tx)) != 0 {
		t.Errorf("auto %v, endpoints %v", l.st.auto.Get(tx), l.EndpointList(tx))
	}
	if diff := cmp.Diff([]controltest.Decl{
		{Route: "DELETE /_sim/webhooks/endpoints/{id}", Name: "Webhooks.RemoveEndpoint"},
		{Route: "POST /_sim/webhooks/endpoints/{id}/disable", Name: "Webhooks.DisableEndpoint"},
		{Route: "POST /_sim/webhooks/endpoints/{id}/enable", Name: "Webhooks.EnableEndpoint"},
		{Route: "POST /_sim/webhooks/auto", Name: "Webhooks.SetAutoDeliver"},
		{Route: "POST /_sim/webhooks/deliveries/{id}/redeliver", Name: "Webhooks.Redeliver"},
	}, controltest.Decls(ops.RemoveEndpoint, ops.DisableEndpoint, ops.EnableEndpoint, ops.SetAutoDeliver, ops.Redeliver)); diff != "" {
		t.Errorf("declarations (-want +got):\n%s", diff)
	}
}
