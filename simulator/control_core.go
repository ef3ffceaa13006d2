package simulator

import (
	"context"
	"net/http"

	"github.com/mwallet/mwallet-go/openapi"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
)

// The control ops of the simulator as a whole: the router's answers under
// /_sim, Action, the credentials, the windows, the ledger, the invariants,
// the dashboard's snapshot and files, the documents, the recipes and the
// sample QR codes.

// opNotFound is the router's answer for a path under /_sim that no op
// serves (any method), and for one the router refuses before routing (not
// canonical, /_sim itself, a literal path with another method): not_found,
// with Allow when the path is served with other methods. It passes the
// guard's rules 1 and 2 like every control route. A POST there is logged as
// the request, as every control POST is.
var opNotFound = def[noInput]{Route: "/_sim/{rest...}", NotFound: true, Run: func(x *opRun, _ *noInput) (any, error) {
	msg, _ := x.r.Context().Value(notFoundKey{}).(string)
	return nil, x.s.wiring.gw.controlNotFoundAnswer(x.r, msg)
}}.Op()

// notFoundKey is the context key of the router's message for opNotFound.
type notFoundKey struct{}

// notFound answers the router's not_found of a control path through
// opNotFound (the gateway calls it).
func (ctl *controlAPI) notFound(w http.ResponseWriter, r *http.Request, message string) {
	ctl.serve(opNotFound)(w, r.WithContext(context.WithValue(r.Context(), notFoundKey{}, message)))
}

// opCredentials answers the merchant's credentials (Credentials).
var opCredentials = def[noInput]{Route: "GET /_sim/credentials", Run: func(x *opRun, _ *noInput) (any, error) {
	return x.st().credentials(x.tx), nil
}}.Op()

// coreOps declares them.
var coreOps = []*op{
	opNotFound,
	opAction,
	opCredentials,
	def[noInput]{Route: "GET /_sim/stats", Run: func(x *opRun, _ *noInput) (any, error) { return x.s.wiring.view.stats(x.tx), nil }}.Op(),
	def[noInput]{Route: "GET /_sim/ledger", Captured: true, Run: func(x *opRun, _ *noInput) (any, error) {
		out := map[string]any{"balanced": true, "entries": entries(x.s.st.ledger, x.tx)}
		if err := x.s.st.ledger.Check(x.tx); err != nil {
			out["balanced"] = false
			out["error"] = err.Error()
		}
		return out, nil
	}}.Op(),
	def[noInput]{Route: "GET /_sim/invariants", Run: func(x *opRun, _ *noInput) (any, error) {
		v := x.s.wiring.view.invariantViolations(x.tx)
		if v == nil {
			v = []string{}
		}
		return map[string]any{"hold": len(v) == 0, "violations": v}, nil
	}}.Op(),
	def[noInput]{Route: "GET /_sim/state", Captured: true, Run: func(x *opRun, _ *noInput) (any, error) { return x.s.wiring.view.state(x.tx), nil }}.Op(),
	def[noInput]{Route: "GET /_sim/recipes", Run: func(*opRun, *noInput) (any, error) { return control.List(ErrorRecipes()), nil }}.Op(),
	def[noInput]{Route: "GET /_sim/qr-samples", Run: func(*opRun, *noInput) (any, error) { return control.List(sampleqr.All()), nil }}.Op(),
	def[noInput]{Route: "GET /_sim/openapi.yaml", Unlocked: true, Run: func(*opRun, *noInput) (any, error) {
		return document(openapi.Business()), nil
	}}.Op(),
	def[noInput]{Route: "GET /_sim/openapi-sim.yaml", Unlocked: true, Run: func(*opRun, *noInput) (any, error) {
		return document(openapi.Control()), nil
	}}.Op(),
	// The dashboard: its files need no token (a browser loads them before
	// the page can send it); GET /_sim/ui is the simulator's one redirect.
	def[dashboardFile]{Route: "GET /_sim/ui/{file...}", Unlocked: true, NoToken: true, Run: func(x *opRun, in *dashboardFile) (any, error) {
		return x.s.wiring.ctl.dashboardFile(in.File)
	}}.Op(),
	def[noInput]{Route: "GET /_sim/ui", Unlocked: true, NoToken: true, Run: func(*opRun, *noInput) (any, error) {
		return rawAnswer(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/_sim/ui/", http.StatusMovedPermanently)
		}), nil
	}}.Op(),
}

// dashboardFile is the input of GET /_sim/ui/{file...}.
type dashboardFile struct {
	File string `path:"file" json:"-" dom:"dashboard_file,opt"`
}

// document answers one embedded document.
func document(doc []byte) rawAnswer {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/yaml")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(doc)
	}
}
