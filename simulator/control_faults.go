package simulator

import (
	"net/http"

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
		return badName("fault kind", string(f.Kind), faultKindNames, inTx(fc.s, func(tx *kernel.Tx) error { return injectFault(fc.s, tx, f) }))
	}, f)
}

// injectFault is the transition of Inject and POST /_sim/faults.
func injectFault(s *Simulator, tx *kernel.Tx, f Fault) error {
	if err := checkFaultMethod(f.Method); err != nil {
		return err
	}
	return s.wiring.gw.injectFault(tx, f)
}

// Clear removes every fault.
func (fc *FaultsControl) Clear() error {
	return call1(fc.s, ctlFaultsClear, func() error { return inTx(fc.s, fc.s.wiring.gw.clearFaults) })
}

// injectFaultCall is POST /_sim/faults, the HTTP entry of Inject: it answers
// 201 with the faults armed.
func injectFaultCall(s *Simulator, _ *http.Request, body []byte) (string, []any, controlRun, error) {
	var f Fault
	if err := decodeControl(body, &f); err != nil {
		return "", nil, nil, err
	}
	return "", []any{f}, func(tx *kernel.Tx) (int, any, error) {
		if err := injectFault(s, tx, f); err != nil {
			return 0, nil, err
		}
		return http.StatusCreated, map[string]any{"data": s.wiring.gw.faults(tx)}, nil
	}, nil
}

// clearFaultsCall is DELETE /_sim/faults, the HTTP entry of Clear.
func clearFaultsCall(s *Simulator, _ *http.Request, _ []byte) (string, []any, controlRun, error) {
	return "", nil, func(tx *kernel.Tx) (int, any, error) {
		if err := s.wiring.gw.clearFaults(tx); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, map[string]any{"data": []Fault{}}, nil
	}, nil
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
// (control_decl.go), the routes in their registration order. Inject and
// Clear are declared with their routes among the core routes (control.go),
// where those register.
var faultsControls = []controlDecl{
	{name: "Faults.List", noCall: true, bind: func(s *Simulator) any { return s.Faults.List }},
}
