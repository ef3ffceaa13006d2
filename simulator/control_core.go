package simulator

import (
	"net/http"

	"github.com/mwallet/mwallet-go/openapi"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/devtools"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
)

// The control ops of the simulator as a whole (internal/control's
// NewCoreOps): the router's answers under /_sim, Action, the credentials,
// the windows, the ledger, the invariants, the dashboard's snapshot and
// files, the documents, the recipes and the sample QR codes.

// coreOp are the core ops, declared in internal/control over the state,
// the view and the gateway; opNotFound answers the router's not_found of a
// control path, opCredentials the merchant's credentials (Credentials).
var (
	coreOp = control.NewCoreOps(control.CoreViews[*opRun]{
		NotFound: func(x *opRun) error {
			return x.Sim.wiring.gw.router.ControlNotFoundAnswer(x.Req, control.NotFoundMessage(x.Req))
		},
		Credentials: func(x *opRun) any { return x.Sim.st.credentials(x.Tx) },
		Stats:       func(x *opRun) any { return x.Sim.wiring.view.stats(x.Tx) },
		State:       func(x *opRun) any { return x.Sim.wiring.view.state(x.Tx) },
		Entries:     func(x *opRun) any { return entries(x.Sim.st.ledger, x.Tx) },
		Check:       func(x *opRun) error { return x.Sim.st.ledger.Check(x.Tx) },
		Invariants:  func(x *opRun) []string { return x.Sim.wiring.view.invariantViolations(x.Tx) },
		Recipes:     func() any { return control.List(ErrorRecipes()) },
		QRSamples:   func() any { return control.List(sampleqr.All()) },
		Business:    openapi.Business,
		Control:     openapi.Control,
		// Any of the dashboard's files ("" for the page) is served by
		// internal/devtools' Dashboard: never a redirect or a directory page.
		DashboardFile: func(*opRun, string) (any, error) {
			h, err := devtools.Dashboard()
			if err != nil {
				return nil, err
			}
			return rawAnswer(h.ServeHTTP), nil
		},
	})
	opNotFound, opCredentials = coreOp.NotFound, coreOp.Credentials
)

// coreOps declares them, Action's among them.
var coreOps = append([]*op{opNotFound, opAction, opCredentials}, coreOp.Others...)

// notFound answers the router's not_found of a control path through
// opNotFound (the gateway calls it).
func (ctl *controlAPI) notFound(w http.ResponseWriter, r *http.Request, message string) {
	ctl.serve(opNotFound)(w, control.WithNotFoundMessage(r, message))
}
