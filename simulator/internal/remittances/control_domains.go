package remittances

import (
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// ControlDomains are the domains of the control arguments that name a remittance (with or without its rmt_ prefix),
// looked up in the line (the simulator's registry of domains merges them);
// at gives the line and the transaction of a run.
func ControlDomains[X any](at func(X) (*Line, *kernel.Tx)) map[string]*control.Domain[X] {
	return map[string]*control.Domain[X]{
		"remittance": control.ObjectOf("remittance", func(x X, id string) bool {
			l, tx := at(x)
			return l.HasOrder(tx, control.WithIDPrefix("rmt_", id))
		}),
	}
}
