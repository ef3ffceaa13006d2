package simulator

import "github.com/mwallet/mwallet-go/simulator/internal/control"

// FaultsControl arms and clears faults on the business API (sim.Faults):
// error answers, dropped connections before or after execution, added
// latency, for the next N matching requests or at random. Control API:
// GET, POST and DELETE /_sim/faults.
type FaultsControl struct{ s *Simulator }

// Inject adds a fault for the next Count requests matching its method
// and path. Faults are tried in the order they were added; one request takes
// at most one fault.
func (fc *FaultsControl) Inject(f Fault) error {
	return fc.s.wiring.ctl.perform(faultOps.Inject, f.faultIn())
}

// Clear removes every fault.
func (fc *FaultsControl) Clear() error {
	return fc.s.wiring.ctl.perform(faultOps.Clear, &noInput{})
}

// List returns the faults still armed, Count being what remains.
func (fc *FaultsControl) List() []Fault {
	v, _ := invoke[[]Fault](fc.s, faultOps.List, &noInput{})
	return v
}

// faultOps are the fault table's ops, declared in internal/control over
// the gateway: a fault is the public Fault.
var faultOps = control.NewFaultOps(control.FaultViews[*opRun, Fault]{
	Fault:  faultOfInput,
	List:   func(x *opRun) []Fault { return x.Sim.wiring.gw.faults(x.Tx) },
	Inject: func(x *opRun, f Fault) error { return x.Sim.wiring.gw.injectFault(x.Tx, f) },
	Clear:  func(x *opRun) error { return x.Sim.wiring.gw.clearFaults(x.Tx) },
})

// faultOfInput is the public Fault of an input, and faultIn the input of a
// Fault (the fields are the same).
func faultOfInput(in control.FaultIn) Fault {
	return Fault{Method: in.Method, Path: in.Path, Count: in.Count, Kind: FaultKind(in.Kind), Status: in.Status, Code: in.Code,
		DelayMS: in.DelayMS, Hold: in.Hold, Held: in.Held, OneIn: in.OneIn}
}

func (f Fault) faultIn() *control.FaultIn {
	return &control.FaultIn{Method: f.Method, Path: f.Path, Count: f.Count, Kind: string(f.Kind), Status: f.Status, Code: f.Code,
		DelayMS: f.DelayMS, Hold: f.Hold, Held: f.Held, OneIn: f.OneIn}
}

// faultsOps declares the faults' routes and methods.
var faultsOps = []*op{faultOps.List, faultOps.Inject, faultOps.Clear}
