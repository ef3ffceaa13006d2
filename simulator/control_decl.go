package simulator

import (
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// One control mechanism: every Go control method (sim.Cards.SetLimit, ...)
// and every control route that calls one is declared once, in a table of
// its line's control file (cardsControls in control_cards.go, ...). From
// that one declaration come
//
//   - the name the Go method records its calls under: the method passes the
//     declared constant to call0..call3 (record.go), never a literal of its
//     own;
//   - the HTTP route: registerDeclared registers every declared route, its
//     decode-and-call function sitting in the declaration;
//   - the control OpenAPI document check (TestDeclaredRoutesAreDocumented);
//   - replay dispatch: controlMethod resolves a recorded name through the
//     declarations only; an undeclared name is refused;
//   - the name a transition is recorded under when it is entered over
//     HTTP: a route that does what its Go method does is declared with the
//     method (asCall, control_call.go) and logged as a call of it, so the
//     transition has one name however it is entered. Such a route is
//     declared where it registers (the core routes in control.go, a line's
//     placed routes), which the order of the state image fixes.
//
// A control route that has no Go method is declared in the same form,
// without a name.

// controlDecl declares one control method or control route.
type controlDecl struct {
	// name is the name the Go method records its calls under and a
	// recording names it by ("Cards.SetLimit"); "" for a route with no Go
	// method.
	name string
	// noCall marks a Go method that records no call: it changes nothing
	// (a read), or it is an input of its own kind (Clock.Advance is an
	// advance, Webhooks.Flush its attempts). A recording cannot name it.
	noCall bool
	// bind returns the Go method of name bound to s (a method value).
	bind func(s *Simulator) any
	// route is the control route ("POST /_sim/cards/limits"), "" for a Go
	// method without a route of its own (an object action reaches it
	// through POST /_sim/{rest...}, control_actions.go).
	route string
	// call answers route by calling Go control methods of s, which begin
	// their own transactions and record themselves: the route is not an
	// input of the log itself.
	call func(s *Simulator, r *http.Request, body []byte) (int, any, error)
	// asCall answers route as a call of the Go method name (control_call.go):
	// it decodes the request into the method's arguments and the
	// transition, which the method runs too.
	asCall routeCallFunc
	// inTx answers route in a transaction of the control API (a write is an
	// input of the log), for a route with no Go method.
	inTx func(s *Simulator, tx *kernel.Tx, r *http.Request, body []byte) (int, any, error)
	// action is the key of an object action ("cards/ship": POST
	// /_sim/cards/{id}/ship; "merchant/prepaid/topup", which takes no id),
	// run by act in a transaction of the control API, over HTTP (POST
	// /_sim/{rest...}) and by Action.
	action string
	act    actionFunc
	// withBody marks an action that reads a body (act decodes it with
	// decodeControl); the body of any other action must be empty or {}.
	withBody bool
}

// controlTables are the declaration tables, in the order their routes
// register. The state image holds the registered routes in that order
// (simState.controlRoutes), so the order of the tables and of the routes
// in each is part of the image: a new route goes at the end of its table.
// Filled by init: the Go methods the rows call reach replay dispatch, which
// reads controlByName, so an initializer here would be a cycle.
var controlTables [][]controlDecl

// placedTables are the tables of routes that have no Go method and
// register in their place among the lines' registrations (registerAll),
// each with registerTable where its comment says.
var placedTables [][]controlDecl

// controlByName indexes the declared Go methods by name, of every table
// (init).
var controlByName map[string]*controlDecl

func init() {
	controlTables = [][]controlDecl{
		coreControls, cardsControls, kycControls, membersControls, merchantControls, qrpayControls,
		merchantQuotaControls, keysControls, requestsControls, recipesControls,
		clockControls, eventsControls, faultsControls, outcomesControls, remittancesControls,
		webhooksControls,
	}
	placedTables = [][]controlDecl{invariantsRoutes, cardsRoutes, webhooksRoutes, devtoolsRoutes, recordingRoutes}
	controlByName = map[string]*controlDecl{}
	for _, table := range append(slices.Clone(controlTables), placedTables...) {
		for i := range table {
			d := &table[i]
			if d.name == "" {
				continue
			}
			if controlByName[d.name] == nil { // a second one is reported by TestEveryControlMethodIsDeclaredOnce
				controlByName[d.name] = d
			}
		}
	}
}

// registerDeclared registers the routes of controlTables, table by table.
func (ctl *controlAPI) registerDeclared() {
	for _, table := range controlTables {
		ctl.registerTable(table)
	}
}

// registerTable registers the declared routes of one table, in order.
func (ctl *controlAPI) registerTable(table []controlDecl) {
	for i := range table {
		d := &table[i]
		switch {
		case d.route == "":
		case d.asCall != nil:
			ctl.controlCall(d)
		case d.call != nil:
			ctl.controlGo(d.route, func(r *http.Request, body []byte) (int, any, error) { return d.call(ctl.sim, r, body) })
		case d.inTx != nil:
			ctl.control(d.route, func(tx *kernel.Tx, r *http.Request, body []byte) (int, any, error) {
				return d.inTx(ctl.sim, tx, r, body)
			})
		}
	}
}

// registerActions registers the object actions of one table.
func (ctl *controlAPI) registerActions(table []controlDecl) {
	for i := range table {
		d := &table[i]
		fn := d.act
		if !d.withBody {
			fn = func(tx *kernel.Tx, id string, body []byte) (any, error) {
				if err := decodeControl(body, &struct{}{}); err != nil {
					return nil, err
				}
				return d.act(tx, id, body)
			}
		}
		ctl.sim.wiring.actions[d.action] = fn
	}
}

// goControlFunc serves one control route by calling Go methods of the
// simulator, which take the state lock themselves. It returns the status and
// the JSON body, or an error (answered as controlError maps it).
type goControlFunc func(r *http.Request, body []byte) (int, any, error)

// controlGo registers a control route on pattern that runs fn without the
// state lock held (fn calls the public Go methods), with the same request
// id, body limit, JSON and error envelope as the other control routes.
func (ctl *controlAPI) controlGo(pattern string, fn goControlFunc) {
	s := ctl.sim
	s.st.controlRoutes = append(s.st.controlRoutes, pattern)
	s.wiring.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		body, rerr := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
		// Not an input of the log itself: the Go methods fn calls are
		// (call0..call3 in record.go), so a replay runs them.
		id := s.wiring.rec.controlID()
		w.Header().Set("X-Request-Id", id)
		if rerr != nil || len(body) > maxBodyBytes {
			errorResponse(errInvalidRequest("request body unreadable or larger than 1 MiB"), id).write(w, id)
			return
		}
		status, out, err := fn(r, body)
		if err != nil {
			errorResponse(controlError(err), id).write(w, id)
			return
		}
		writeJSON(w, status, out)
	})
}

// declaredMethod resolves a recorded call name to its declared Go method,
// bound to s: a name that is not declared, or that names a read, is an
// error.
func declaredMethod(s *Simulator, name string) (any, error) {
	d := controlByName[name]
	if d == nil || d.bind == nil {
		return nil, fmt.Errorf("simulator: replay: no control method %q", name)
	}
	if d.noCall {
		return nil, fmt.Errorf("simulator: replay: %q is never recorded as a call", name)
	}
	return d.bind(s), nil
}
