package webhooks

import (
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Adding an endpoint and the lists of the endpoints and the delivery rows,
// over the declaring package's run of one op X: their Go methods take and
// answer the declaring package's public copies (E of an endpoint, D of a
// delivery row, its copy of EndpointConfig), which its conversions give.

type (
	// EndpointIn is the body of POST /_sim/webhooks/endpoints, the fields
	// of EndpointConfig with their domains (the two convert into each
	// other).
	EndpointIn struct {
		URL         string   `json:"url" dom:"url,req"`
		Events      []string `json:"events" dom:"event_type"`
		Environment string   `json:"environment" dom:"environment"`
		Secret      string   `json:"secret" dom:"name"`
	}
	// EndpointAdded is the answer of an endpoint added: its id and secret
	// (the Go methods' answer) and the endpoint.
	EndpointAdded struct {
		ID, Secret string
		View       EndpointView
	}
)

// EndpointOps are the ops declared here, by Go method.
type EndpointOps[X any] struct {
	AddEndpoint, AddEndpointConfig, Endpoints, Deliveries *control.Op[X]
}

// NewEndpointOps declares the ops; at gives the line and the transaction of
// a run, config the Go method's argument of AddEndpointConfig (the public
// copy of the configuration), endpoint and delivery the public copies of
// an endpoint and a delivery row the lists answer.
func NewEndpointOps[X, E, D any](at func(X) (*Line, *kernel.Tx), config func(EndpointIn) any,
	endpoint func(EndpointView) E, delivery func(DeliveryView) D) *EndpointOps[X] {
	add := func(x X, in *EndpointIn) (any, error) {
		l, tx := at(x)
		v, secret, err := l.AddEndpoint(tx, EndpointConfig(*in))
		if err != nil {
			return EndpointAdded{}, err
		}
		return EndpointAdded{ID: v.ID, Secret: secret, View: v}, nil
	}
	return &EndpointOps[X]{
		AddEndpoint: control.Def[X, EndpointIn]{Name: "Webhooks.AddEndpoint", Run: add,
			Args: func(in *EndpointIn) []any { return []any{in.URL, in.Events} }}.Op(),
		AddEndpointConfig: control.Def[X, EndpointIn]{
			Route: "POST /_sim/webhooks/endpoints", Name: "Webhooks.AddEndpointConfig", Status: http.StatusCreated,
			Args: func(in *EndpointIn) []any { return []any{config(*in)} },
			Run:  add,
			Reply: func(_ X, _ *EndpointIn, out any) (int, any) {
				ep := out.(EndpointAdded)
				v := ep.View
				return http.StatusCreated, map[string]any{
					"id": v.ID, "secret": ep.Secret, "url": v.URL, "events": v.Events,
					"environment": v.Environment, "created_at": v.CreatedAt,
				}
			},
		}.Op(),
		Endpoints: control.Def[X, control.NoInput]{Route: "GET /_sim/webhooks/endpoints", Name: "Webhooks.Endpoints", NoCall: true,
			Run: func(x X, _ *control.NoInput) (any, error) {
				l, tx := at(x)
				return Copies(l.EndpointList(tx), endpoint), nil
			},
			Reply: func(_ X, _ *control.NoInput, out any) (int, any) { return http.StatusOK, control.List(out.([]E)) },
		}.Op(),
		Deliveries: control.Def[X, control.NoInput]{Route: "GET /_sim/webhooks/deliveries", Name: "Webhooks.Deliveries", NoCall: true,
			Run: func(x X, _ *control.NoInput) (any, error) {
				l, tx := at(x)
				return Copies(l.Deliveries(tx), delivery), nil
			},
			Reply: func(_ X, _ *control.NoInput, out any) (int, any) { return http.StatusOK, control.List(out.([]D)) },
		}.Op(),
	}
}

// Copies are the copies of views by of, in order (an empty list when there
// are none).
func Copies[V, P any](views []V, of func(V) P) []P {
	out := make([]P, 0, len(views))
	for _, v := range views {
		out = append(out, of(v))
	}
	return out
}
