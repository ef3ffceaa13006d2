package qrpay

import (
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// ControlDomains are the domains of the control arguments that name a QR payment order and a QR scenario,
// looked up in the line (the simulator's registry of domains merges them);
// at gives the line and the transaction of a run.
func ControlDomains[X any](at func(X) (*Line, *kernel.Tx)) map[string]*control.Domain[X] {
	return map[string]*control.Domain[X]{
		"qr_scenario": control.OneOf[X]("QR scenario", "timeout_", Scenarios()...),
		"qr_order":    control.ObjectOf("QR payment order", func(x X, id string) bool { l, tx := at(x); return l.Has(tx, OrderID(id)) }),
	}
}
