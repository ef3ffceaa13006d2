package webhooks

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// opRun is the test's run of one op: the line and the transaction.
type opRun struct {
	l  *Line
	tx *kernel.Tx
}

// TestControlOps: disabling, enabling and removing an endpoint, automatic
// delivery, and an unknown endpoint refused as not found.
func TestControlOps(t *testing.T) {
	t.Parallel()
	l, _, _, tx := newLine(t, "sandbox")
	id := addEndpoint(t, l, tx, EndpointConfig{URL: "https://example.com/hook"})
	ops := NewControlOps(func(x opRun) (*Line, *kernel.Tx) { return x.l, x.tx }, func(v EndpointView) any { return v.Disabled },
		func(_ opRun, id string) (any, error) { return "redelivered " + id, nil })
	x := opRun{l, tx}
	type result struct {
		Out      any
		NotFound bool
	}
	run := func(out any, err error) result {
		if err != nil && !errors.Is(err, api.ErrControlNotFound) {
			t.Fatalf("unexpected error %v", err)
		}
		return result{out, err != nil}
	}
	got := []result{
		run(ops.DisableEndpoint.Run(x, &EndpointRef{ID: id})),
		run(ops.EnableEndpoint.Run(x, &EndpointRef{ID: id})),
		run(ops.SetAutoDeliver.Run(x, &AutoIn{Enabled: true})),
		run(ops.RemoveEndpoint.Run(x, &EndpointRef{ID: id})),
		run(ops.RemoveEndpoint.Run(x, &EndpointRef{ID: id})),
	}
	want := []result{
		{true, false},
		{false, false},
		{map[string]any{"enabled": true}, false},
		{map[string]any{"id": id, "deleted": true}, false},
		{nil, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if !l.st.auto.Get(tx) || len(l.EndpointList(tx)) != 0 {
		t.Errorf("auto %v, endpoints %v", l.st.auto.Get(tx), l.EndpointList(tx))
	}
	var routes []string
	for _, o := range []*struct{ Route, Name string }{
		{ops.RemoveEndpoint.Route, ops.RemoveEndpoint.Name}, {ops.DisableEndpoint.Route, ops.DisableEndpoint.Name},
		{ops.EnableEndpoint.Route, ops.EnableEndpoint.Name}, {ops.SetAutoDeliver.Route, ops.SetAutoDeliver.Name},
	} {
		routes = append(routes, o.Route+" "+o.Name)
	}
	if diff := cmp.Diff([]string{
		"DELETE /_sim/webhooks/endpoints/{id} Webhooks.RemoveEndpoint",
		"POST /_sim/webhooks/endpoints/{id}/disable Webhooks.DisableEndpoint",
		"POST /_sim/webhooks/endpoints/{id}/enable Webhooks.EnableEndpoint",
		"POST /_sim/webhooks/auto Webhooks.SetAutoDeliver",
	}, routes); diff != "" {
		t.Errorf("declarations (-want +got):\n%s", diff)
	}
}
