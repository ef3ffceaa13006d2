package control

import (
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// One declaration per control operation. Every control route (/_sim/...),
// every object action and every Go control method (sim.Cards.SetLimit, ...)
// is one Op, declared once in a table of its area, and run one way. From
// the row come
//
//   - the route and the object action key (Action reaches it by key);
//   - the input: a struct type whose fields are the route's path
//     parameters (tag path:"id"), query parameters (query:"limit") and
//     body fields (json:"name"), each with its domain (dom:"name", a key of
//     the registry of Domains). Decoding, the name and domain checks
//     (object lookups included), the guard's rules and the control
//     document's check all read it;
//   - the Go method the op is recorded under (Name) and its arguments for
//     an input (Call): a route is logged as a call of its Go method, a
//     replay dispatches a recorded call to the method by name, and the Go
//     method builds the same input and runs the same op;
//   - the transition (Run), which runs in one transaction after every
//     argument was checked, and the route's answer (Reply).
//
// A field without a domain, a domain that is not registered or a duplicate
// route makes NewRegistry panic: a new argument cannot forget its domain.

// Op is one declared control operation; X is the run of one op (the
// declaring package's, which holds the simulator and the transaction).
type Op[X any] struct {
	// Route is "METHOD /_sim/..." ("" for a Go method without a route of its
	// own); methodless routes ("/_sim/{rest...}") serve every method.
	Route string
	// Action is the key of an object action ("cards/ship"): Action(key, id,
	// body) runs the op with the id and body as its route would.
	Action string
	// Name is the Go method ("Cards.SetLimit"), "Action" for the object
	// actions' own method, "" for a route no Go method mirrors.
	Name string
	// NoCall marks a Go method that is not recorded as a call: a read, or an
	// input of its own kind (Clock.Advance is an advance). A write without
	// a Go method is recorded as the request.
	NoCall bool
	// In is the input type (a struct) and Fields its parsed fields.
	In     reflect.Type
	Fields []Field[X]
	// Alias is a second Go method the op runs (POST /_sim/outcomes runs
	// Outcomes.Set or Outcomes.SetObject).
	Alias string
	// Call is the Go method and its arguments for an input, as recorded;
	// ok false: the input asks for what the method cannot say, and the
	// route is recorded as Action (an object action) or as the request.
	Call func(in any) (name string, args []any, ok bool)
	// Rules are the input's rules across its fields or against the state
	// (one of two fields, an amount its asset can hold), checked once
	// every field is in its domain and before Run (nil: none).
	Rules func(x X, in any) error
	// Run is the transition. It runs in the run's transaction (none for an
	// unlocked op) once every argument is checked, and returns the op's
	// result.
	Run func(x X, in any) (any, error)
	// Reply is the route's answer for a result (nil: Status and the result).
	Reply func(x X, in, out any) (int, any)
	// Status is the success status of the route (default 200).
	Status int
	// NoToken: the route answers without the control token (the
	// dashboard's files, which a browser loads before the page can send it).
	NoToken bool
	// Unlocked: the op runs without a transaction of its own (the webhook
	// flush delivers over HTTP and logs its own inputs; the recording views
	// and the documents read outside the state).
	Unlocked bool
	// Captured: a read that walks the whole state (the digest, the ledger,
	// the state dump) runs in a transaction of a capture of the state,
	// taken under the state lock, and reads and encodes its answer without
	// it, so requests do not wait for it.
	Captured bool
	// NotFound: a route that answers the router's 404 (the catch-alls).
	NotFound bool
}

// Def is the typed form of an Op with input In; Def.Op builds the op.
type Def[X, In any] struct {
	Route, Action, Name, Alias string
	NoCall, NoToken            bool
	Unlocked, NotFound         bool
	Captured                   bool
	Status                     int
	// Args are the Go method's arguments for in (every input is a call of
	// it); ArgsIf when not every input is; Calls when the input decides
	// the method (Name or Alias).
	Args   func(in *In) []any
	ArgsIf func(in *In) ([]any, bool)
	Calls  func(in *In) (string, []any)
	Rules  func(x X, in *In) error
	Run    func(x X, in *In) (any, error)
	Reply  func(x X, in *In, out any) (int, any)
}

// Op builds the declared op; NewRegistry reads its input's fields and
// domains.
func (d Def[X, In]) Op() *Op[X] {
	t := reflect.TypeFor[In]()
	o := &Op[X]{
		Route: d.Route, Action: d.Action, Name: d.Name, Alias: d.Alias, NoCall: d.NoCall, NoToken: d.NoToken,
		Unlocked: d.Unlocked, Captured: d.Captured, NotFound: d.NotFound, Status: d.Status, In: t,
	}
	if o.Status == 0 {
		o.Status = http.StatusOK
	}
	switch {
	case d.Args != nil:
		o.Call = func(in any) (string, []any, bool) { return d.Name, d.Args(in.(*In)), true }
	case d.ArgsIf != nil:
		o.Call = func(in any) (string, []any, bool) { a, ok := d.ArgsIf(in.(*In)); return d.Name, a, ok }
	case d.Calls != nil:
		o.Call = func(in any) (string, []any, bool) { n, a := d.Calls(in.(*In)); return n, a, true }
	}
	if d.Rules != nil {
		o.Rules = func(x X, in any) error { return d.Rules(x, in.(*In)) }
	}
	if d.Run != nil {
		o.Run = func(x X, in any) (any, error) { return d.Run(x, in.(*In)) }
	}
	if d.Reply != nil {
		o.Reply = func(x X, in, out any) (int, any) { return d.Reply(x, in.(*In), out) }
	}
	return o
}

// NoInput is the input of an op that takes nothing: a body, if any, must
// be empty or {}.
type NoInput struct{}

// Field is one field of an op's input.
type Field[X any] struct {
	Index []int  // reflect field index
	Name  string // "form_factor" (body), "id" (path), "limit" (query)
	Where string // "path", "query" or "body"
	Dom   *Domain[X]
	Key   *Domain[X] // the domain of a map's keys
	Req   bool       // required: absent or empty is refused
}

// Param names the field for messages: the body field, or "path parameter
// id".
func (f *Field[X]) Param() string {
	if f.Where == "body" {
		return f.Name
	}
	return f.Where + " parameter " + f.Name
}

// ParseFields reads the fields of an input type and their domains in reg.
// It panics on a field without a domain or with an unknown one: the op
// cannot be declared.
func ParseFields[X any](t reflect.Type, reg map[string]*Domain[X]) []Field[X] {
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("simulator: control input %v is not a struct", t))
	}
	var out []Field[X]
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Anonymous {
			// An embedded struct's fields are the input's, as encoding/json
			// reads them.
			for _, f := range ParseFields(sf.Type, reg) {
				f.Index = append([]int{i}, f.Index...)
				out = append(out, f)
			}
			continue
		}
		if sf.Tag.Get("dom") == "-" {
			// Not an argument: a value only Go code can give (a channel).
			continue
		}
		f := Field[X]{Index: sf.Index}
		switch {
		case sf.Tag.Get("path") != "":
			// A path parameter is never empty over HTTP; a Go method
			// giving "" is refused the same way.
			f.Name, f.Where, f.Req = sf.Tag.Get("path"), "path", true
		case sf.Tag.Get("query") != "":
			f.Name, f.Where = sf.Tag.Get("query"), "query"
		default:
			name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				panic(fmt.Sprintf("simulator: control input %v.%s has no json, path or query name", t, sf.Name))
			}
			f.Name, f.Where = name, "body"
		}
		tag := sf.Tag.Get("dom")
		if tag == "" {
			panic(fmt.Sprintf("simulator: control input %v.%s (%s) declares no domain", t, sf.Name, f.Name))
		}
		parts := strings.Split(tag, ",")
		f.Dom = domainNamed(reg, parts[0], t, sf.Name)
		for _, p := range parts[1:] {
			switch {
			case p == "req":
				f.Req = true
			case p == "opt": // a {name...} path parameter, which may be empty
				f.Req = false
			case strings.HasPrefix(p, "key="):
				f.Key = domainNamed(reg, strings.TrimPrefix(p, "key="), t, sf.Name)
			default:
				panic(fmt.Sprintf("simulator: control input %v.%s: unknown domain option %q", t, sf.Name, p))
			}
		}
		out = append(out, f)
	}
	return out
}

// domainNamed returns the registered domain name, or panics.
func domainNamed[X any](reg map[string]*Domain[X], name string, t reflect.Type, field string) *Domain[X] {
	d := reg[name]
	if d == nil {
		panic(fmt.Sprintf("simulator: control input %v.%s: no domain %q", t, field, name))
	}
	return d
}

// Registry is every declared op: All in the order the routes register
// (which matters to ServeMux's conflict rules and is part of the state
// image), ByName the ops of the Go methods, ByAction the object actions,
// ByRoute the routes.
type Registry[X any] struct {
	All      []*Op[X]
	ByName   map[string]*Op[X]
	ByAction map[string]*Op[X]
	ByRoute  map[string]*Op[X]
}

// NewRegistry reads the fields and domains (in reg) of the ops of tables,
// in order. anyName is the Go method that runs ops by action key (Action),
// which many ops are recorded under. It panics on a Go method or route
// declared twice.
func NewRegistry[X any](reg map[string]*Domain[X], anyName string, tables ...[]*Op[X]) *Registry[X] {
	r := &Registry[X]{ByName: map[string]*Op[X]{}, ByAction: map[string]*Op[X]{}, ByRoute: map[string]*Op[X]{}}
	for _, t := range tables {
		for _, o := range t {
			o.Fields = ParseFields(o.In, reg)
			r.All = append(r.All, o)
			for _, n := range []string{o.Name, o.Alias} {
				if n == "" || n == anyName {
					continue
				}
				if r.ByName[n] != nil {
					panic("simulator: control method " + n + " declared twice")
				}
				r.ByName[n] = o
			}
			if o.Action != "" {
				r.ByAction[o.Action] = o
			}
			if o.Route != "" {
				if r.ByRoute[o.Route] != nil {
					panic("simulator: control route " + o.Route + " declared twice")
				}
				r.ByRoute[o.Route] = o
			}
		}
	}
	return r
}

// Routes are the declared routes, in registration order.
func (r *Registry[X]) Routes() []string {
	var out []string
	for _, o := range r.All {
		if o.Route != "" {
			out = append(out, o.Route)
		}
	}
	return out
}

// ActionKeys lists the object actions' keys, sorted.
func (r *Registry[X]) ActionKeys() []string {
	out := make([]string, 0, len(r.ByAction))
	for k := range r.ByAction {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Complete reports an input that has every required argument: one that
// lacks one is refused by the checks.
func (o *Op[X]) Complete(in any) bool {
	v := reflect.ValueOf(in).Elem()
	for i := range o.Fields {
		if f := &o.Fields[i]; f.Req && v.FieldByIndex(f.Index).IsZero() {
			return false
		}
	}
	return true
}

// StepName names the kernel step of o: its route, or its Go method.
func (o *Op[X]) StepName() string {
	if o.Route != "" {
		return o.Route
	}
	return o.Name
}

// ReplyOf is the route's answer for a result.
func (o *Op[X]) ReplyOf(x X, in, out any) (int, any) {
	if o.Reply != nil {
		return o.Reply(x, in, out)
	}
	return o.Status, out
}

// Decode builds the input of o from the path parameters, the query and
// the body (the strict decoder of every body: one JSON object, exact field
// names, unknown fields refused; empty is {}).
func (o *Op[X]) Decode(pathValue func(string) string, query url.Values, body []byte) (any, error) {
	in := reflect.New(o.In)
	if ae := api.DecodeStrict(body, in.Interface(), api.RefuseUnknown); ae != nil {
		return nil, ae
	}
	v := in.Elem()
	for _, f := range o.Fields {
		var s string
		switch f.Where {
		case "path":
			s = pathValue(f.Name)
		case "query":
			s = query.Get(f.Name)
		default:
			continue
		}
		fv := v.FieldByIndex(f.Index)
		switch fv.Kind() {
		case reflect.String:
			fv.SetString(s)
		case reflect.Pointer: // an optional integer of the query
			if s == "" {
				continue
			}
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, api.InvalidRequest(f.Param() + " must be an integer")
			}
			p := reflect.New(fv.Type().Elem())
			p.Elem().SetInt(n)
			fv.Set(p)
		}
	}
	return in.Interface(), nil
}
