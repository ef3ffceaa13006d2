package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// FaultsControl arms and clears faults on the business API (sim.Faults):
// error answers, dropped connections before or after execution, added
// latency, for the next N matching requests or at random. Control API:
// GET, POST and DELETE /_sim/faults.
type FaultsControl struct{ s *Simulator }

// Inject adds a fault for the next Count requests matching its method
// and path. Faults are tried in the order they were added; one request takes
// at most one fault.
func (fc *FaultsControl) Inject(f Fault) error {
	return call1(fc.s, ctlFaultsInject, func() error {
		if err := checkFaultMethod(f.Method); err != nil {
			return err
		}
		return badName("fault kind", string(f.Kind), faultKindNames, inTx(fc.s, func(tx *kernel.Tx) error { return fc.s.wiring.gw.injectFault(tx, f) }))
	}, f)
}

// Clear removes every fault.
func (fc *FaultsControl) Clear() error {
	return call0(fc.s, ctlFaultsClear, fc.s.wiring.gw.clearFaults)
}

// List returns the faults still armed, Count being what remains.
func (fc *FaultsControl) List() []Fault {
	return fc.s.wiring.gw.armedFaults()
}

// The names the Faults control methods record their calls under, each declared
// once and used by its method and by faultsControls.
const (
	ctlFaultsInject = "Faults.Inject"
	ctlFaultsClear  = "Faults.Clear"
)

// faultsControls declares the faults control methods and the routes that call them
// (control_decl.go), the routes in their registration order.
var faultsControls = []controlDecl{
	{name: ctlFaultsInject, bind: func(s *Simulator) any { return s.Faults.Inject }},
	{name: ctlFaultsClear, bind: func(s *Simulator) any { return s.Faults.Clear }},
	{name: "Faults.List", noCall: true, bind: func(s *Simulator) any { return s.Faults.List }},
}
