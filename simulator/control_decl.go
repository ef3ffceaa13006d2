package simulator

import (
	"reflect"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
)

// One declaration per control operation (internal/control): every control
// route (/_sim/...), every object action and every Go control method
// (sim.Cards.SetLimit, ...) is one op, declared once in a table of its area
// (cardsOps in control_cards.go, ...), and run one way (control.go, over
// internal/control's runner). A replay dispatches a recorded call to its Go
// method by name (reflection on the control fields of Simulator,
// declaredMethod, over control.Registry's Method). A field without a
// domain, a domain that is not registered (the registry is in
// control_domains.go) or a duplicate route makes init panic: a new
// argument cannot forget its domain.

// op is one declared control operation, run on an opRun.
type op = control.Op[*opRun]

// def is the typed form of an op with input In; def.Op builds the op.
type def[In any] = control.Def[*opRun, In]

// noInput is the input of an op that takes nothing: a body, if any, must
// be empty or {}.
type noInput = control.NoInput

// controlOps is the registry of the declaration tables; allOps is every
// op, in the order the routes register (which matters only to ServeMux's
// conflict rules), opByName the ops of the Go methods, opByAction the
// object actions.
var (
	controlOps *control.Registry[*opRun]
	allOps     []*op
	opByName   map[string]*op
	opByAction map[string]*op
	opByRoute  map[string]*op
)

func init() {
	// The domains are read here, once every package variable (the
	// registry of domains among them) is initialized.
	controlOps = control.NewRegistry(domains, ctlAction,
		coreOps, clockOps, membersOps, merchantOps, keysOps, faultsOps, requestsOps, eventsOps, outcomesOps,
		stepUpOps, qrpayOps, cardsOps, remittancesOps, kycOps, webhooksOps, recordingOps,
	)
	allOps, opByName, opByAction, opByRoute = controlOps.All, controlOps.ByName, controlOps.ByAction, controlOps.ByRoute
}

// registerControl registers every declared control route, each served by
// the one runner (control.go) behind the guard of its op.
func (ctl *controlAPI) registerControl() {
	for _, o := range allOps {
		if o.Route != "" {
			ctl.sim.wiring.mux.HandleFunc(o.Route, ctl.serve(o))
		}
	}
}

// controlRoutes are the declared control routes, in registration order.
func controlRoutes() []string { return (&control.Registry[*opRun]{All: allOps}).Routes() }

// initControls wires the grouped control fields of s.
func (s *Simulator) initControls() {
	s.st.clock.owner = s.wiring.inputs
	s.Clock = s.st.clock
	s.Members = &MembersControl{s}
	s.Merchant = &MerchantControl{s}
	s.Keys = &KeysControl{s}
	s.StepUp = &StepUpControl{s}
	s.QRPay = &QRPayControl{s}
	s.Cards = &CardsControl{s}
	s.Remittances = &RemittancesControl{s}
	s.KYC = &KYCControl{s}
	s.Outcomes = &OutcomesControl{s}
	s.Webhooks = &WebhooksControl{s}
	s.Events = &EventsControl{s}
	s.Faults = &FaultsControl{s}
	s.Requests = &RequestsControl{s}
}

// declaredMethod resolves a recorded call name to its Go method bound to s
// (control.Registry's Method): "Field.Method" on the control fields of
// Simulator, "Action" on Simulator. A name no declaration gives, or one
// that records no call, is an error.
func declaredMethod(s *Simulator, name string) (reflect.Value, error) {
	return controlOps.Method(s, ctlAction, reflect.ValueOf(s.Action), name)
}

// NameError is the refusal of a control call (a Go method of sim.Outcomes,
// sim.Cards, ..., or its route under /_sim) given an argument outside its
// domain: a name the simulator does not know (an outcome collection, event
// type, fault kind, form factor, status, currency, country, ...), a value
// out of its range or format, or the id of a member, card, order, product
// or other object that does not exist. Nothing changed. Over HTTP it
// answers 400 invalid_request, or 404 not_found for an unknown id, with
// Error's message without its "simulator: " prefix.
//
//	var ne *simulator.NameError
//	if errors.As(err, &ne) { fmt.Println(ne.Field, ne.Kind, ne.Name, ne.Valid) }
type NameError struct {
	// Kind is the argument's domain: "outcome collection", "event type",
	// "card", "member", "ISO 4217 currency code", ...
	Kind string
	// Name is the value as given.
	Name string
	// Valid lists the valid choices when they are a fixed set (sorted);
	// it is nil otherwise.
	Valid []string
	// NotFound reports an id of an object that does not exist (404
	// not_found) rather than a value outside a domain (400
	// invalid_request).
	NotFound bool
	// Field is the argument: the body field, or "path parameter id".
	Field string
	// Want says what the domain holds when it is not a fixed set ("an
	// integer from 0 to 2").
	Want string
}

// Error names the argument, the value and the domain.
func (e *NameError) Error() string { return "simulator: " + e.refusal().Message() }

// refusal is e as internal/control's Refusal, whose fields are the same.
func (e *NameError) refusal() *control.Refusal { return (*control.Refusal)(e) }

// Is matches the marker of a missing object for an unknown id, and
// ErrUnknownMember for an unknown member.
func (e *NameError) Is(target error) bool {
	return e.NotFound && (target == errControlNotFound || (target == ErrUnknownMember && e.Kind == "member"))
}

// answer is the HTTP refusal: 404 not_found for an unknown id, 400
// invalid_request otherwise.
func (e *NameError) answer() *apiError { return e.refusal().Answer() }

// errControlNotFound marks Go-API errors about an object that does not exist
// (the lines return it too).
var errControlNotFound = api.ErrControlNotFound
