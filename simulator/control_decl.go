package simulator

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// One declaration per control operation. Every control route (/_sim/...),
// every object action and every Go control method (sim.Cards.SetLimit, ...)
// is one op, declared once in a table of its area (cardsOps in
// control_cards.go, ...), and run one way (control.go). From the row come
//
//   - the route and the object action key (Action reaches it by key);
//   - the input: a struct type whose fields are the route's path
//     parameters (tag path:"id"), query parameters (query:"limit") and
//     body fields (json:"name"), each with its domain (dom:"name", the
//     registry in control_domains.go). Decoding, the name and domain
//     checks (object lookups included), the guard's rules and the
//     control document's check (TestOpsAreDocumented) all read it;
//   - the Go method the op is recorded under (name) and its arguments for
//     an input (args): a route is logged as a call of its Go method, a
//     replay dispatches a recorded call to the method by name (reflection
//     on the control fields of Simulator), and the Go method builds the
//     same input and runs the same op;
//   - the transition (run), which runs in one transaction after every
//     argument was checked, and the route's answer (reply).
//
// A field without a domain, a domain that is not registered or a duplicate
// route makes init panic: a new argument cannot forget its domain.

// op is one declared control operation.
type op struct {
	// route is "METHOD /_sim/..." ("" for a Go method without a route of its
	// own); methodless routes ("/_sim/{rest...}") serve every method.
	route string
	// action is the key of an object action ("cards/ship"): Action(key, id,
	// body) runs the op with the id and body as its route would.
	action string
	// name is the Go method ("Cards.SetLimit"), "Action" for
	// Simulator.Action, "" for a route no Go method mirrors.
	name string
	// noCall marks a Go method that is not recorded as a call: a read, or an
	// input of its own kind (Clock.Advance is an advance). A write without
	// a Go method is recorded as the request.
	noCall bool
	// in is the input type (a struct) and fields its parsed fields.
	in     reflect.Type
	fields []opField
	// alias is a second Go method the op runs (POST /_sim/outcomes runs
	// Outcomes.Set or Outcomes.SetObject).
	alias string
	// call is the Go method and its arguments for an input, as recorded;
	// ok false: the input asks for what the method cannot say, and the
	// route is recorded as Action (an object action) or as the request.
	call func(in any) (name string, args []any, ok bool)
	// run is the transition. It runs in x.tx (nil for an unlocked op)
	// once every argument is checked, and returns the op's result.
	run func(x *opRun, in any) (any, error)
	// reply is the route's answer for a result (nil: status and the result).
	reply func(x *opRun, in, out any) (int, any)
	// status is the success status of the route (default 200).
	status int
	// noToken: the route answers without the control token (the
	// dashboard's files, which a browser loads before the page can send it).
	noToken bool
	// unlocked: the op runs without a transaction of its own (the webhook
	// flush delivers over HTTP and logs its own inputs; the recording views
	// and the documents read outside the state).
	unlocked bool
	// captured: a read that walks the whole state (the digest, the ledger,
	// the state dump) runs in a transaction of a capture of the state
	// (kernel.Capture), taken under the state lock, and reads and encodes
	// its answer without it, so requests do not wait for it.
	captured bool
	// notFound: a route that answers the router's 404 (the catch-alls).
	notFound bool
}

// def is the typed form of an op with input In; def.op builds the op.
type def[In any] struct {
	route, action, name, alias string
	noCall, noToken            bool
	unlocked, notFound         bool
	captured                   bool
	status                     int
	// args are the Go method's arguments for in (every input is a call of
	// it); argsIf when not every input is; calls when the input decides
	// the method (name or alias).
	args   func(in *In) []any
	argsIf func(in *In) ([]any, bool)
	calls  func(in *In) (string, []any)
	run    func(x *opRun, in *In) (any, error)
	reply  func(x *opRun, in *In, out any) (int, any)
}

// op builds the declared op; init reads its input's fields and domains.
func (d def[In]) op() *op {
	t := reflect.TypeFor[In]()
	o := &op{
		route: d.route, action: d.action, name: d.name, alias: d.alias, noCall: d.noCall, noToken: d.noToken,
		unlocked: d.unlocked, captured: d.captured, notFound: d.notFound, status: d.status, in: t,
	}
	if o.status == 0 {
		o.status = http.StatusOK
	}
	switch {
	case d.args != nil:
		o.call = func(in any) (string, []any, bool) { return d.name, d.args(in.(*In)), true }
	case d.argsIf != nil:
		o.call = func(in any) (string, []any, bool) { a, ok := d.argsIf(in.(*In)); return d.name, a, ok }
	case d.calls != nil:
		o.call = func(in any) (string, []any, bool) { n, a := d.calls(in.(*In)); return n, a, true }
	}
	if d.run != nil {
		o.run = func(x *opRun, in any) (any, error) { return d.run(x, in.(*In)) }
	}
	if d.reply != nil {
		o.reply = func(x *opRun, in, out any) (int, any) { return d.reply(x, in.(*In), out) }
	}
	return o
}

// noInput is the input of an op that takes nothing: a body, if any, must
// be empty or {}.
type noInput struct{}

// opField is one field of an op's input.
type opField struct {
	index []int  // reflect field index
	name  string // "form_factor" (body), "id" (path), "limit" (query)
	where string // "path", "query" or "body"
	dom   *domain
	key   *domain // the domain of a map's keys
	req   bool    // required: absent or empty is refused
}

// fieldKind is where a field comes from, for messages.
func (f *opField) param() string {
	if f.where == "body" {
		return f.name
	}
	return f.where + " parameter " + f.name
}

// parseFields reads the fields of an input type and their domains. It
// panics on a field without a domain or with an unknown one: the op cannot
// be declared.
func parseFields(t reflect.Type) []opField {
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("simulator: control input %v is not a struct", t))
	}
	var out []opField
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Anonymous {
			// An embedded struct's fields are the input's, as encoding/json
			// reads them.
			for _, f := range parseFields(sf.Type) {
				f.index = append([]int{i}, f.index...)
				out = append(out, f)
			}
			continue
		}
		if sf.Tag.Get("dom") == "-" {
			// Not an argument: a value only Go code can give (a channel).
			continue
		}
		f := opField{index: sf.Index}
		switch {
		case sf.Tag.Get("path") != "":
			// A path parameter is never empty over HTTP; a Go method
			// giving "" is refused the same way.
			f.name, f.where, f.req = sf.Tag.Get("path"), "path", true
		case sf.Tag.Get("query") != "":
			f.name, f.where = sf.Tag.Get("query"), "query"
		default:
			name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				panic(fmt.Sprintf("simulator: control input %v.%s has no json, path or query name", t, sf.Name))
			}
			f.name, f.where = name, "body"
		}
		tag := sf.Tag.Get("dom")
		if tag == "" {
			panic(fmt.Sprintf("simulator: control input %v.%s (%s) declares no domain", t, sf.Name, f.name))
		}
		parts := strings.Split(tag, ",")
		f.dom = domainNamed(parts[0], t, sf.Name)
		for _, p := range parts[1:] {
			switch {
			case p == "req":
				f.req = true
			case p == "opt": // a {name...} path parameter, which may be empty
				f.req = false
			case strings.HasPrefix(p, "key="):
				f.key = domainNamed(strings.TrimPrefix(p, "key="), t, sf.Name)
			default:
				panic(fmt.Sprintf("simulator: control input %v.%s: unknown domain option %q", t, sf.Name, p))
			}
		}
		out = append(out, f)
	}
	return out
}

// domainNamed returns the registered domain name, or panics.
func domainNamed(name string, t reflect.Type, field string) *domain {
	d := domains[name]
	if d == nil {
		panic(fmt.Sprintf("simulator: control input %v.%s: no domain %q", t, field, name))
	}
	return d
}

// opTables are the declaration tables; allOps is every op, in the order
// the routes register (which matters only to ServeMux's conflict rules),
// opByName the ops of the Go methods, opByAction the object actions.
var (
	allOps     []*op
	opByName   map[string]*op
	opByAction map[string]*op
	opByRoute  map[string]*op
)

func init() {
	tables := [][]*op{
		coreOps, clockOps, membersOps, merchantOps, keysOps, faultsOps, requestsOps, eventsOps, outcomesOps,
		stepUpOps, qrpayOps, cardsOps, remittancesOps, kycOps, webhooksOps, recordingOps,
	}
	opByName, opByAction, opByRoute = map[string]*op{}, map[string]*op{}, map[string]*op{}
	for _, t := range tables {
		for _, o := range t {
			// The domains are read here, once every package variable
			// (the registry among them) is initialized.
			o.fields = parseFields(o.in)
			allOps = append(allOps, o)
			for _, n := range []string{o.name, o.alias} {
				if n == "" || n == ctlAction {
					continue
				}
				if opByName[n] != nil {
					panic("simulator: control method " + n + " declared twice")
				}
				opByName[n] = o
			}
			if o.action != "" {
				opByAction[o.action] = o
			}
			if o.route != "" {
				if opByRoute[o.route] != nil {
					panic("simulator: control route " + o.route + " declared twice")
				}
				opByRoute[o.route] = o
			}
		}
	}
}

// registerControl registers every declared control route, each served by
// the one runner (control.go) behind the guard of its op.
func (ctl *controlAPI) registerControl() {
	for _, o := range allOps {
		if o.route != "" {
			ctl.sim.wiring.mux.HandleFunc(o.route, ctl.serve(o))
		}
	}
}

// controlRoutes are the declared control routes, in registration order.
func controlRoutes() []string {
	var out []string
	for _, o := range allOps {
		if o.route != "" {
			out = append(out, o.route)
		}
	}
	return out
}

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

// declaredMethod resolves a recorded call name to its Go method bound to s:
// "Field.Method" on the control fields of Simulator, "Action" on
// Simulator. A name no declaration gives, or one that records no call, is
// an error.
func declaredMethod(s *Simulator, name string) (reflect.Value, error) {
	if name == ctlAction {
		return reflect.ValueOf(s.Action), nil
	}
	o := opByName[name]
	if o == nil {
		return reflect.Value{}, fmt.Errorf("simulator: replay: no control method %q", name)
	}
	if o.noCall {
		return reflect.Value{}, fmt.Errorf("simulator: replay: %q is never recorded as a call", name)
	}
	return boundMethod(s, name), nil
}

// boundMethod is the method "Field.Method" of s's control field, bound.
func boundMethod(s *Simulator, name string) reflect.Value {
	field, method, _ := strings.Cut(name, ".")
	f := reflect.ValueOf(s).Elem().FieldByName(field)
	if !f.IsValid() {
		return reflect.Value{}
	}
	return f.MethodByName(method)
}

// actionKeys lists the object actions, sorted.
func actionKeys() []string {
	out := make([]string, 0, len(opByAction))
	for k := range opByAction {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
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
func (e *NameError) Error() string { return "simulator: " + e.message() }

func (e *NameError) message() string {
	var msg string
	switch {
	case e.NotFound:
		msg = fmt.Sprintf("%s %q not found", e.Kind, e.Name)
	case len(e.Valid) > 0:
		msg = fmt.Sprintf("unknown %s %q: want one of %s", e.Kind, e.Name, strings.Join(e.Valid, ", "))
	case e.Want != "":
		msg = fmt.Sprintf("%s is not %s %s: want %s", quoteValue(e.Name), article(e.Kind), e.Kind, e.Want)
	default:
		msg = fmt.Sprintf("unknown %s %q", e.Kind, e.Name)
	}
	if e.Field != "" {
		msg = e.Field + ": " + msg
	}
	return msg
}

// article is the indefinite article of a domain's name: "an ISO 4217
// currency code", "an HTTP method", "a URL".
func article(kind string) string {
	if strings.HasPrefix(kind, "HTTP") || kind != "" && strings.ContainsRune("aeioAEIO", rune(kind[0])) ||
		strings.HasPrefix(kind, "un") {
		return "an"
	}
	return "a"
}

// quoteValue quotes a string value; numbers stay as they are.
func quoteValue(s string) string {
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return s
	}
	return strconv.Quote(s)
}

// Is matches the marker of a missing object for an unknown id, and
// ErrUnknownMember for an unknown member.
func (e *NameError) Is(target error) bool {
	return e.NotFound && (target == errControlNotFound || (target == ErrUnknownMember && e.Kind == "member"))
}

// answer is the HTTP refusal: 404 not_found for an unknown id, 400
// invalid_request otherwise.
func (e *NameError) answer() *apiError {
	if e.NotFound {
		return newErr("not_found", e.message())
	}
	ae := errInvalidRequest(e.message())
	return ae
}

// errControlNotFound marks Go-API errors about an object that does not exist
// (the lines return it too).
var errControlNotFound = api.ErrControlNotFound

// checkInput checks every argument of in against its domain (and the
// input's own rules, inputRules), in x's transaction.
func checkInput(x *opRun, o *op, in any) error {
	v := reflect.ValueOf(in).Elem()
	for i := range o.fields {
		f := &o.fields[i]
		if err := f.check(x, v.FieldByIndex(f.index)); err != nil {
			return err
		}
	}
	if r, ok := in.(inputRules); ok {
		return r.rules(x)
	}
	return nil
}

// inputRules is an input with rules across its fields (one of two fields,
// not both).
type inputRules interface{ rules(x *opRun) error }

// check checks one field's value.
func (f *opField) check(x *opRun, v reflect.Value) error {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return f.requiredOf(x, true)
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		if v.String() == "" {
			return f.requiredOf(x, false)
		}
		return f.value(x, f.dom, v.String(), v.String())
	case reflect.Int, reflect.Int64, reflect.Int32:
		return f.value(x, f.dom, v.Int(), strconv.FormatInt(v.Int(), 10))
	case reflect.Float64:
		return f.value(x, f.dom, v.Float(), strconv.FormatFloat(v.Float(), 'g', -1, 64))
	case reflect.Bool:
		return f.value(x, f.dom, v.Bool(), strconv.FormatBool(v.Bool()))
	case reflect.Slice:
		if v.IsNil() {
			return f.requiredOf(x, false)
		}
		if v.Type().Elem().Kind() == reflect.Uint8 { // []byte: a body
			return f.value(x, f.dom, string(v.Bytes()), "")
		}
		for i := 0; i < v.Len(); i++ {
			if err := f.check(x, v.Index(i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		if v.IsNil() {
			return f.requiredOf(x, false)
		}
		if v.Type().Elem().Kind() == reflect.Interface {
			return f.value(x, f.dom, v.Interface(), "")
		}
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for _, k := range keys {
			if f.key != nil {
				if err := f.value(x, f.key, k.String(), k.String()); err != nil {
					return err
				}
			}
			if err := f.check(x, v.MapIndex(k)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Struct:
		if t, ok := v.Interface().(time.Time); ok {
			return f.value(x, f.dom, t, t.Format(time.RFC3339))
		}
	}
	panic(fmt.Sprintf("simulator: control argument %s has a type the checker does not know: %v", f.name, v.Type()))
}

// requiredOf refuses a missing required argument; a string of an earlier
// build's input may be empty (its line refused it, or took it).
func (f *opField) requiredOf(x *opRun, pointer bool) error {
	if x.legacy && !pointer && f.where == "body" {
		return nil
	}
	if !f.req {
		return nil
	}
	return errInvalidRequest(f.param() + " is required")
}

// value checks one value against d.
func (f *opField) value(x *opRun, d *domain, v any, shown string) error {
	ne := &NameError{Kind: d.name, Name: shown, Field: f.param(), Want: d.want}
	if x.legacy && d.legacy != nil {
		if d.legacy(x, v) {
			return nil
		}
		return ne
	}
	switch {
	case d.choices != nil:
		s, _ := v.(string)
		if d.norm != nil {
			s = d.norm(s)
		}
		valid := d.choices(x)
		if slices.Contains(valid, s) {
			return nil
		}
		ne.Valid = valid
	case d.object != nil:
		s, _ := v.(string)
		if cleanText(s, 256) && d.object(x, s) {
			return nil
		}
		ne.NotFound, ne.Want = true, ""
	case d.ok != nil:
		if d.ok(x, v) {
			return nil
		}
	}
	return ne
}
