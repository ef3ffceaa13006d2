package simulator

import "net/http"

// FaultsControl arms and clears faults on the business API (sim.Faults):
// error answers, dropped connections before or after execution, added
// latency, for the next N matching requests or at random. Control API:
// GET, POST and DELETE /_sim/faults.
type FaultsControl struct{ s *Simulator }

// Inject adds a fault for the next Count requests matching its method
// and path. Faults are tried in the order they were added; one request takes
// at most one fault.
func (fc *FaultsControl) Inject(f Fault) error {
	return fc.s.wiring.ctl.perform(opFaultsInject, (*faultIn)(&f))
}

// Clear removes every fault.
func (fc *FaultsControl) Clear() error {
	return fc.s.wiring.ctl.perform(opFaultsClear, &noInput{})
}

// List returns the faults still armed, Count being what remains.
func (fc *FaultsControl) List() []Fault {
	v, _ := invoke[[]Fault](fc.s, opFaultsList, &noInput{})
	return v
}

// faultIn is the body of POST /_sim/faults, the fields of Fault (the two
// convert into each other; Hold and Held only Go code can give).
type faultIn struct {
	Method  string          `json:"method" dom:"fault_method"`
	Path    string          `json:"path" dom:"business_path,req"`
	Count   int             `json:"count" dom:"count"`
	Kind    FaultKind       `json:"kind" dom:"fault_kind,req"`
	Status  int             `json:"status" dom:"fault_status"`
	Code    string          `json:"code" dom:"error_code"`
	DelayMS int             `json:"delay_ms" dom:"delay_ms"`
	Hold    <-chan struct{} `json:"-" dom:"-"`
	Held    chan<- string   `json:"-" dom:"-"`
	OneIn   int             `json:"one_in" dom:"count"`
}

var (
	opFaultsList = def[noInput]{Route: "GET /_sim/faults", Name: "Faults.List", NoCall: true, Run: func(x *opRun, _ *noInput) (any, error) {
		return x.s.wiring.gw.faults(x.tx), nil
	}, Reply: func(_ *opRun, _ *noInput, out any) (int, any) { return http.StatusOK, controlList(out.([]Fault)) }}.Op()
	opFaultsInject = def[faultIn]{
		Route: "POST /_sim/faults", Name: "Faults.Inject", Status: http.StatusCreated,
		Args: func(in *faultIn) []any { return []any{Fault(*in)} },
		Run: func(x *opRun, in *faultIn) (any, error) {
			if err := x.s.wiring.gw.injectFault(x.tx, Fault(*in)); err != nil {
				return nil, err
			}
			return controlList(x.s.wiring.gw.faults(x.tx)), nil
		},
	}.Op()
	opFaultsClear = def[noInput]{
		Route: "DELETE /_sim/faults", Name: "Faults.Clear",
		Args: func(*noInput) []any { return nil },
		Run: func(x *opRun, _ *noInput) (any, error) {
			if err := x.s.wiring.gw.clearFaults(x.tx); err != nil {
				return nil, err
			}
			return controlList([]Fault{}), nil
		},
	}.Op()
)

// faultsOps declares the faults' routes and methods.
var faultsOps = []*op{opFaultsList, opFaultsInject, opFaultsClear}
