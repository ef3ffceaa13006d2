package simulator

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/qrpay"
	"github.com/mwallet/mwallet-go/webhooks"
)

// NameError is the refusal of a control call (a Go method of sim.Outcomes,
// sim.Events, sim.Cards, ..., or its route under /_sim) that names a thing
// the simulator does not know: an outcome collection, event type, fault
// kind, form factor, QR scenario or control action (a bad name), or a
// member, card, order, product or other object that does not exist (an
// unknown id). Nothing changed. Over HTTP a bad name answers 400
// invalid_request and an unknown id 404 not_found, with Error's message.
//
//	var ne *simulator.NameError
//	if errors.As(err, &ne) { fmt.Println(ne.Kind, ne.Name, ne.Valid) }
type NameError struct {
	// Kind is what the name names: "outcome collection", "event type",
	// "card", "member", ...
	Kind string
	// Name is the name or id as given.
	Name string
	// Valid lists the valid choices when they are a fixed set (sorted);
	// it is nil for the id of an object.
	Valid []string
	// NotFound reports an id of an object that does not exist (404
	// not_found) rather than a name outside a fixed set (400
	// invalid_request).
	NotFound bool

	// err is the refusal as the call gave it before it was typed, kept so
	// that its message and HTTP answer stay what they were.
	err error
}

// Error says what was not known and, for a fixed set, the valid choices.
func (e *NameError) Error() string {
	if e.err != nil {
		if old := e.err.Error(); strings.Contains(old, e.Name) {
			return old
		}
		return "simulator: " + e.message() + " (" + e.err.Error() + ")"
	}
	return "simulator: " + e.message()
}

func (e *NameError) message() string {
	if e.NotFound {
		return fmt.Sprintf("%s %q not found", e.Kind, e.Name)
	}
	msg := fmt.Sprintf("unknown %s %q", e.Kind, e.Name)
	if len(e.Valid) > 0 {
		msg += ": want one of " + strings.Join(e.Valid, ", ")
	}
	return msg
}

// Unwrap returns the refusal the call gave, when it gave one.
func (e *NameError) Unwrap() error { return e.err }

// Is matches the marker of a missing object for an unknown id.
func (e *NameError) Is(target error) bool {
	return e.err == nil && e.NotFound && target == errControlNotFound
}

// answer is the HTTP refusal: the earlier one when the call gave one,
// otherwise 404 not_found for an unknown id and 400 invalid_request for a
// bad name.
func (e *NameError) answer() *apiError {
	var ae *apiError
	var pe *persistError
	switch {
	case e.err != nil && (errors.As(e.err, &ae) || errors.As(e.err, &pe)):
		return controlError(e.err)
	case e.err != nil && e.NotFound:
		return newErr("not_found", e.err.Error())
	case e.err != nil:
		return errInvalidRequest(e.err.Error())
	}
	if e.NotFound {
		return newErr("not_found", e.message())
	}
	return errInvalidRequest(e.message())
}

// unknownName is the refusal of name, of kind, outside the valid set.
func unknownName(kind, name string, valid []string) *NameError {
	return &NameError{Kind: kind, Name: name, Valid: valid}
}

// unknownID types err, the refusal of a control call about the object id
// of kind, as a *NameError when it says the object does not exist; any
// other error (a state refusal, a full disk) is returned as it is.
func unknownID(kind, id string, err error) error {
	if err == nil || !isNotFound(err) {
		return err
	}
	return &NameError{Kind: kind, Name: id, NotFound: true, err: err}
}

// badName types err, the refusal of a control call given the name of kind,
// as a *NameError when the name is outside valid; any other error is
// returned as it is.
func badName(kind, name string, valid []string, err error) error {
	var ne *NameError
	if err == nil || slices.Contains(valid, name) || errors.As(err, &ne) {
		return err
	}
	return &NameError{Kind: kind, Name: name, Valid: valid, err: err}
}

// isNotFound reports a refusal that says an object does not exist.
func isNotFound(err error) bool {
	var pe *persistError
	if errors.As(err, &pe) {
		return false
	}
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.Code == "not_found"
	}
	msg := err.Error()
	return errors.Is(err, errControlNotFound) || strings.Contains(msg, "not found") || strings.Contains(msg, "member_not_found")
}

// outcomeCollections lists the outcome collections, sorted.
func (ctl *controlAPI) outcomeCollections() []string {
	s := ctl.sim
	out := make([]string, 0, len(s.wiring.timers.run))
	for c := range s.wiring.timers.run {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// checkCollection refuses a collection that has no outcome (the product
// lines register theirs before the simulator serves, and only read them
// after).
func (ctl *controlAPI) checkCollection(c OutcomeCollection) error {
	s := ctl.sim
	if _, ok := s.wiring.timers.run[string(c)]; !ok {
		return unknownName("outcome collection", string(c), ctl.outcomeCollections())
	}
	return nil
}

// checkOutcomeObject refuses an id that names no object of an outcome
// collection: one in flight, or a QR order, card application, card, card
// top-up or remittance.
func (ctl *controlAPI) checkOutcomeObject(tx *kernel.Tx, id string) error {
	s := ctl.sim
	if _, ok := s.wiring.timers.outcomes().pending[id]; ok {
		return nil
	}
	if s.st.qr.Has(tx, id) || s.st.cards.Has(tx, id) || s.st.remit.HasOrder(tx, id) {
		return nil
	}
	return &NameError{Kind: "object of an outcome collection", Name: id, NotFound: true}
}

// eventTypeNames are the documented event types, sorted.
var eventTypeNames = func() []string {
	var out []string
	for _, t := range webhooks.EventTypes() {
		out = append(out, string(t))
	}
	sort.Strings(out)
	return out
}()

// checkEventType refuses an event type the contract does not document
// (after trimming, as the emitter trims it; an empty one is refused as
// missing by the caller).
func checkEventType(typ string) error {
	t := strings.TrimSpace(typ)
	if t == "" || webhooks.EventType(t).Known() {
		return nil
	}
	return unknownName("event type", t, eventTypeNames)
}

// checkEventTypes is checkEventType for each type.
func checkEventTypes(types []string) error {
	for _, t := range types {
		if err := checkEventType(t); err != nil {
			return err
		}
	}
	return nil
}

// formFactors are the card form factors a card limit counts.
var formFactors = []string{"physical", "virtual"}

// checkFormFactor refuses a form factor other than virtual or physical.
func checkFormFactor(ff string) error {
	if !slices.Contains(formFactors, ff) {
		return unknownName("form factor", ff, formFactors)
	}
	return nil
}

// qrScenarioNames are the QR scenarios, sorted.
func qrScenarioNames() []string { return qrpay.Scenarios() }

// firstUnknownScenario returns the first scenario that is not a QR
// scenario, or "".
func firstUnknownScenario(scenarios []string) (string, bool) {
	for _, sc := range scenarios {
		if !qrpay.IsScenario(sc) {
			return sc, true
		}
	}
	return "", false
}

// faultKindNames are the fault kinds.
var faultKindNames = []string{string(FaultDelay), string(FaultDropAfter), string(FaultDropBefore), string(FaultError), string(FaultErrorAfter)}

// unknownAction is the refusal of an action key that is not registered.
// s.mu must be held.
func (ctl *controlAPI) unknownAction(key string) *NameError {
	s := ctl.sim
	valid := make([]string, 0, len(s.wiring.actions))
	for k := range s.wiring.actions {
		valid = append(valid, k)
	}
	sort.Strings(valid)
	return unknownName("control action", key, valid)
}

// unknownID2 is unknownID for a call with a result besides its error.
func unknownID2[T any](kind, id string) func(T, error) (T, error) {
	return func(v T, err error) (T, error) { return v, unknownID(kind, id, err) }
}

// memberStatusNames are the statuses a member can be set to.
var memberStatusNames = []string{"active", "banned", "blocklisted", "frozen", "suspended"}

// badAsset types err, the refusal of a call given asset, as a *NameError
// when asset names no asset of the simulator.
func (ctl *controlAPI) badAsset(asset string, err error) error {
	s := ctl.sim
	if err == nil {
		return nil
	}
	tx := s.k.Begin()
	defer tx.End()
	if s.st.cat.lookup(strings.ToUpper(strings.TrimSpace(asset))) != nil {
		return err
	}
	all := s.st.cat.all()
	valid := make([]string, 0, len(all))
	for _, a := range all {
		valid = append(valid, a.Code)
	}
	sort.Strings(valid)
	return &NameError{Kind: "asset", Name: asset, Valid: valid, err: err}
}

// writeMethods are the methods of the business API's writes.
var writeMethods = []string{"DELETE", "PATCH", "POST", "PUT"}

// checkWriteMethod refuses a method that is not a write method of the
// business API (with the refusal StartInProgress gave before it was
// typed).
func checkWriteMethod(method string) error {
	m := strings.ToUpper(strings.TrimSpace(method))
	if m == "" || slices.Contains(writeMethods, m) {
		return nil
	}
	return &NameError{Kind: "method", Name: method, Valid: writeMethods,
		err: errInvalidRequest("method must be a write method (POST, PUT, PATCH or DELETE)")}
}

// environmentNames are the environments of a Key, an endpoint or the
// merchant.
var environmentNames = []string{string(Production), string(Sandbox)}

// checkEnvironment refuses an environment other than sandbox or production
// (empty keeps the current one), with the refusal the Key settings gave
// before it was typed, before anything is drawn from the random source.
func checkEnvironment(env Environment) error {
	switch env {
	case "", Sandbox, Production:
		return nil
	}
	return &NameError{Kind: "environment", Name: string(env), Valid: environmentNames,
		err: errInvalidRequest(fmt.Sprintf("environment %q: want sandbox or production", env))}
}

// merchantNameError types err, the refusal of merchant settings ms, as a
// *NameError when ms names an unknown model, status or environment.
func merchantNameError(ms MerchantSettings, err error) error {
	if err == nil {
		return nil
	}
	if ms.Model != "" {
		err = badName("merchant model", string(ms.Model), []string{string(MerchantHosted), string(PlatformHosted)}, err)
	}
	if ms.Status != "" {
		err = badName("merchant status", string(ms.Status), []string{"active", "closed", "frozen", "suspended"}, err)
	}
	if ms.Environment != "" {
		err = badName("environment", string(ms.Environment), environmentNames, err)
	}
	return err
}

// faultMethods are the methods a fault matches ("*" or empty: every one).
var faultMethods = []string{"*", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"}

// checkFaultMethod refuses a fault method no request can have (a fault
// that would never be taken).
func checkFaultMethod(method string) error {
	if method == "" || slices.Contains(faultMethods, strings.ToUpper(method)) {
		return nil
	}
	return unknownName("fault method", method, faultMethods)
}

// checkBusinessEndpoint refuses a write method and path that no business
// endpoint serves: a request in progress there would never be met. Other
// refusals (a method that is not a write, a path outside /v1/) are
// StartInProgress's own.
func (ctl *controlAPI) checkBusinessEndpoint(method, target string) error {
	s := ctl.sim
	m := strings.ToUpper(strings.TrimSpace(method))
	path, _, _ := strings.Cut(target, "?")
	if !strings.HasPrefix(path, "/v1/") || !slices.Contains(writeMethods, m) {
		return nil
	}
	r, err := http.NewRequest(m, path, nil)
	if err != nil || slices.Contains(s.wiring.gw.allowedMethods(r), m) {
		return nil
	}
	var valid []string
	for _, e := range s.wiring.gw.endpoints {
		if !isWrite(e.Method) {
			continue
		}
		paths := e.Routes
		if len(paths) == 0 {
			paths = []string{e.Pattern}
		}
		for _, p := range paths {
			valid = append(valid, e.Method+" "+p)
		}
	}
	sort.Strings(valid)
	return unknownName("business endpoint", m+" "+path, slices.Compact(valid))
}

// sortedNames returns names sorted, in a new slice.
func sortedNames(names []string) []string {
	out := slices.Clone(names)
	sort.Strings(out)
	return out
}
