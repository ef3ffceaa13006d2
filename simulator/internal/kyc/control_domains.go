package kyc

import (
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// ControlDomains are the domains of the control arguments that name a KYC session and a quick KYC binding,
// looked up in the line (the simulator's registry of domains merges them);
// at gives the line and the transaction of a run.
func ControlDomains[X any](at func(X) (*Line, *kernel.Tx)) map[string]*control.Domain[X] {
	return map[string]*control.Domain[X]{
		"kyc_session":   control.ObjectOf("KYC session", func(x X, id string) bool { l, tx := at(x); return l.HasSession(tx, id) }),
		"quick_binding": control.ObjectOf("quick KYC binding", func(x X, id string) bool { l, tx := at(x); return l.HasBinding(tx, id) }),
	}
}
