package webhooks

import (
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The webhook endpoints' control operations whose transitions need only
// the webhook line and the transaction, in the control engine's form
// (internal/control), over the declaring package's run of one op X. The
// domains the inputs name ("webhook_endpoint", "boolean") are the
// simulator's registry's; a redelivery runs the declaring package's
// redelivery of a row. Adding an endpoint and the lists are in
// control_endpoint_ops.go; the flush (the delivery) is declared beside the
// declaring package's delivery.

// The inputs of the webhook ops declared here.
type (
	// EndpointRef names a webhook endpoint.
	EndpointRef struct {
		ID string `path:"id" json:"-" dom:"webhook_endpoint"`
	}
	// DeliveryRef names a webhook delivery row.
	DeliveryRef struct {
		ID string `path:"id" json:"-" dom:"webhook_delivery"`
	}
	// AutoIn switches automatic delivery.
	AutoIn struct {
		Enabled bool `json:"enabled" dom:"boolean"`
	}
)

// ControlOps are the webhook ops declared here, by Go method.
type ControlOps[X any] struct {
	RemoveEndpoint, DisableEndpoint, EnableEndpoint, SetAutoDeliver *control.Op[X]
	Redeliver                                                       *control.Op[X]
}

// NewControlOps declares the ops; at gives the line and the transaction of
// a run, endpoint the answer of an endpoint disabled or enabled (the
// declaring package's public copy of the view), redeliver the redelivery
// of a row and its answer.
func NewControlOps[X any](at func(X) (*Line, *kernel.Tx), endpoint func(EndpointView) any, redeliver func(x X, id string) (any, error)) *ControlOps[X] {
	// disabled is POST /_sim/webhooks/endpoints/{id}/disable or
	// .../enable: it answers the endpoint.
	disabled := func(action, name string, disabled bool) *control.Op[X] {
		return control.Def[X, EndpointRef]{
			Route: "POST /_sim/webhooks/endpoints/{id}/" + action, Name: name,
			Args: func(in *EndpointRef) []any { return []any{in.ID} },
			Run: func(x X, in *EndpointRef) (any, error) {
				l, tx := at(x)
				v, err := l.SetEndpointDisabled(tx, in.ID, disabled)
				if err != nil {
					return nil, err
				}
				return endpoint(v), nil
			},
		}.Op()
	}
	return &ControlOps[X]{
		RemoveEndpoint: control.Def[X, EndpointRef]{
			Route: "DELETE /_sim/webhooks/endpoints/{id}", Name: "Webhooks.RemoveEndpoint",
			Args: func(in *EndpointRef) []any { return []any{in.ID} },
			Run: func(x X, in *EndpointRef) (any, error) {
				l, tx := at(x)
				if err := l.RemoveEndpoint(tx, in.ID); err != nil {
					return nil, err
				}
				return map[string]any{"id": in.ID, "deleted": true}, nil
			},
		}.Op(),
		DisableEndpoint: disabled("disable", "Webhooks.DisableEndpoint", true),
		EnableEndpoint:  disabled("enable", "Webhooks.EnableEndpoint", false),
		SetAutoDeliver: control.Def[X, AutoIn]{
			Route: "POST /_sim/webhooks/auto", Name: "Webhooks.SetAutoDeliver",
			Args: func(in *AutoIn) []any { return []any{in.Enabled} },
			Run: func(x X, in *AutoIn) (any, error) {
				l, tx := at(x)
				l.SetAuto(tx, in.Enabled)
				return map[string]any{"enabled": in.Enabled}, nil
			},
		}.Op(),
		Redeliver: control.Def[X, DeliveryRef]{
			Route: "POST /_sim/webhooks/deliveries/{id}/redeliver", Name: "Webhooks.Redeliver",
			Args: func(in *DeliveryRef) []any { return []any{in.ID} },
			Run:  func(x X, in *DeliveryRef) (any, error) { return redeliver(x, in.ID) },
		}.Op(),
	}
}
