package webhooks

import (
	"slices"

	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// ControlDomains are the domains of the control arguments that name a webhook endpoint and a delivery (with or without their whe_ and whd_ prefixes),
// looked up in the line (the simulator's registry of domains merges them);
// at gives the line and the transaction of a run.
func ControlDomains[X any](at func(X) (*Line, *kernel.Tx)) map[string]*control.Domain[X] {
	return map[string]*control.Domain[X]{
		"webhook_endpoint": control.ObjectOf("webhook endpoint", func(x X, id string) bool {
			l, tx := at(x)
			id = control.WithIDPrefix("whe_", id)
			return slices.ContainsFunc(l.EndpointList(tx), func(e EndpointView) bool { return e.ID == id })
		}),
		"webhook_delivery": control.ObjectOf("webhook delivery", func(x X, id string) bool {
			l, tx := at(x)
			id = control.WithIDPrefix("whd_", id)
			return slices.ContainsFunc(l.Deliveries(tx), func(d DeliveryView) bool { return d.ID == id })
		}),
	}
}
