package control

import (
	"context"
	"net/http"
)

// The control operations of the simulator as a whole, which no line and no
// part of the gateway declares: the router's not_found answer under /_sim,
// the credentials, the statistics, the ledger, the invariants, the state,
// the error recipes, the sample QR codes, the contract's documents and the
// dashboard's files, over the declaring package's run of one op X. What
// each reads the declaring package gives as func values (CoreViews).

// CoreViews are what the core ops need of the declaring package.
type CoreViews[X any] struct {
	// NotFound is the router's not_found answer for the run's request,
	// with the router's message (NotFoundMessage).
	NotFound func(x X) error
	// Credentials, Stats and State are the answers of their routes.
	Credentials, Stats, State func(x X) any
	// Entries are the ledger's entries; Check its balance (nil: it
	// balances).
	Entries func(x X) any
	Check   func(x X) error
	// Invariants are the invariants that do not hold.
	Invariants func(x X) []string
	// Recipes and QRSamples are the answers of their routes (lists).
	Recipes, QRSamples func() any
	// Business and Control are the contract's two documents.
	Business, Control func() []byte
	// DashboardFile answers one of the dashboard's files ("" for the page).
	DashboardFile func(x X, name string) (any, error)
}

// CoreOps are the core ops: NotFound and Credentials by name, and the
// others in the order their routes register.
type CoreOps[X any] struct {
	NotFound, Credentials *Op[X]
	Others                []*Op[X]
}

// DashboardFile is the input of GET /_sim/ui/{file...}.
type DashboardFile struct {
	File string `path:"file" json:"-" dom:"dashboard_file,opt"`
}

// NewCoreOps declares the core ops.
func NewCoreOps[X any](v CoreViews[X]) *CoreOps[X] {
	return &CoreOps[X]{
		// The router's answer for a path under /_sim that no op serves (any
		// method), and for one the router refuses before routing (not
		// canonical, /_sim itself, a literal path with another method):
		// not_found, with Allow when the path is served with other
		// methods. It passes the guard's rules 1 and 2 like every control
		// route. A POST there is logged as the request, as every control
		// POST is.
		NotFound: Def[X, NoInput]{Route: "/_sim/{rest...}", NotFound: true, Run: func(x X, _ *NoInput) (any, error) {
			return nil, v.NotFound(x)
		}}.Op(),
		Credentials: Def[X, NoInput]{Route: "GET /_sim/credentials", Run: func(x X, _ *NoInput) (any, error) {
			return v.Credentials(x), nil
		}}.Op(),
		Others: []*Op[X]{
			Def[X, NoInput]{Route: "GET /_sim/stats", Run: func(x X, _ *NoInput) (any, error) { return v.Stats(x), nil }}.Op(),
			Def[X, NoInput]{Route: "GET /_sim/ledger", Captured: true, Run: func(x X, _ *NoInput) (any, error) {
				out := map[string]any{"balanced": true, "entries": v.Entries(x)}
				if err := v.Check(x); err != nil {
					out["balanced"] = false
					out["error"] = err.Error()
				}
				return out, nil
			}}.Op(),
			Def[X, NoInput]{Route: "GET /_sim/invariants", Run: func(x X, _ *NoInput) (any, error) {
				bad := v.Invariants(x)
				if bad == nil {
					bad = []string{}
				}
				return map[string]any{"hold": len(bad) == 0, "violations": bad}, nil
			}}.Op(),
			Def[X, NoInput]{Route: "GET /_sim/state", Captured: true, Run: func(x X, _ *NoInput) (any, error) { return v.State(x), nil }}.Op(),
			Def[X, NoInput]{Route: "GET /_sim/recipes", Run: func(X, *NoInput) (any, error) { return v.Recipes(), nil }}.Op(),
			Def[X, NoInput]{Route: "GET /_sim/qr-samples", Run: func(X, *NoInput) (any, error) { return v.QRSamples(), nil }}.Op(),
			Def[X, NoInput]{Route: "GET /_sim/openapi.yaml", Unlocked: true, Run: func(X, *NoInput) (any, error) {
				return Document(v.Business()), nil
			}}.Op(),
			Def[X, NoInput]{Route: "GET /_sim/openapi-sim.yaml", Unlocked: true, Run: func(X, *NoInput) (any, error) {
				return Document(v.Control()), nil
			}}.Op(),
			// The dashboard: its files need no token (a browser loads them
			// before the page can send it); GET /_sim/ui is the simulator's
			// one redirect.
			Def[X, DashboardFile]{Route: "GET /_sim/ui/{file...}", Unlocked: true, NoToken: true, Run: func(x X, in *DashboardFile) (any, error) {
				return v.DashboardFile(x, in.File)
			}}.Op(),
			Def[X, NoInput]{Route: "GET /_sim/ui", Unlocked: true, NoToken: true, Run: func(X, *NoInput) (any, error) {
				return Raw(func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, "/_sim/ui/", http.StatusMovedPermanently)
				}), nil
			}}.Op(),
		},
	}
}

// Document answers one embedded document (YAML).
func Document(doc []byte) Raw {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/yaml")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(doc)
	}
}

// notFoundKey is the context key of the router's message for the
// not_found op.
type notFoundKey struct{}

// WithNotFoundMessage is r carrying the router's not_found message, for
// the not_found op.
func WithNotFoundMessage(r *http.Request, message string) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), notFoundKey{}, message))
}

// NotFoundMessage is the router's not_found message r carries ("" for
// none).
func NotFoundMessage(r *http.Request) string {
	msg, _ := r.Context().Value(notFoundKey{}).(string)
	return msg
}
