package simulator_test

import (
	"context"
	"encoding"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// routePatterns reads every route pattern the package registers: from its
// source, the string given to s.wiring.mux.HandleFunc and Handle (the
// gateway's own), and the declared control routes (control_decl.go, which
// registerControl registers; those of Go control methods are in goRoutes
// too). A pattern that is not a string literal fails the test, so none
// escapes the list. Business endpoints (s.wiring.gw.router.Register) come from
// Routes.
func routePatterns(t *testing.T) (out []string, goRoutes map[string]bool) {
	t.Helper()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	goRoutes = map[string]bool{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if fd, ok := n.(*ast.FuncDecl); ok && fd.Recv != nil && (fd.Name.Name == "register" || fd.Name.Name == "registerControl") {
				return false // the registration helpers themselves
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			name := sel.Sel.Name
			recv := ""
			switch x := sel.X.(type) {
			case *ast.Ident:
				recv = x.Name
			case *ast.SelectorExpr:
				recv = x.Sel.Name
			}
			if !(recv == "mux" && (name == "HandleFunc" || name == "Handle")) {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: %s.%s with a pattern that is not a string literal: list every route literally", fset.Position(call.Pos()), recv, name)
				return true
			}
			pat, _ := strconv.Unquote(lit.Value)
			out = append(out, pat)
			return true
		})
	}
	// The declared control routes (control_decl.go).
	declared, calls := simulator.DeclaredControlRoutes()
	out = append(out, declared...)
	for _, pat := range calls {
		goRoutes[pat] = true
	}
	sort.Strings(out)
	return out, goRoutes
}

// concrete turns a pattern into a path: {x} becomes x-1, {rest...} a
// path of three segments.
var wildcard = regexp.MustCompile(`\{([a-z_]+)(\.\.\.)?\}`)

func concrete(path string) string {
	return wildcard.ReplaceAllStringFunc(path, func(w string) string {
		if strings.HasSuffix(w, "...}") {
			return "no/such/thing"
		}
		return strings.Trim(w, "{}") + "-1"
	})
}

// notRecordedRoutes are the control routes that are inputs of their own
// kind rather than one http input: a flush logs each of its parts (when a
// delivery is due), and is checked by TestFlushIsRecorded.
var notRecordedRoutes = map[string]string{
	"POST /_sim/webhooks/flush": "a flush logs flush_due and attempt inputs",
}

// callBodies are bodies that the HTTP entries of Go control methods decode
// where {} does not: a body they refuse changes nothing and is logged as the
// request.
var callBodies = map[string]string{
	"POST /_sim/outcomes": `{"collection": "qrpay/orders", "mode": "manual"}`,
}

// TestEveryRouteRecordedOrRead enumerates every route: each business
// endpoint and each control write must be logged as exactly one http input
// (whatever its answer), or, for the HTTP entry of a Go control method, one
// call of that method (and one http input for a body it cannot decode); each control read must change neither the log nor
// the state. The recording of all of it must replay to the same state.
func TestEveryRouteRecordedOrRead(t *testing.T) {
	t.Parallel()
	sim, rc := newRaw(t)
	tok := rc.token()
	type route struct{ method, path, pattern string }
	var routes []route
	for _, r := range simulator.Routes(sim) {
		m, p, _ := strings.Cut(r, " ")
		routes = append(routes, route{m, concrete(p), r})
	}
	patterns, _ := routePatterns(t)
	if len(patterns) < 30 {
		t.Fatalf("found %d route patterns in the source", len(patterns))
	}
	for _, pat := range patterns {
		m, p, ok := strings.Cut(pat, " ")
		if !ok { // a pattern for every method: try the ones a client sends
			methods := []string{"GET", "POST", "DELETE"}
			if strings.HasPrefix(pat, "/_sim") {
				// The router's not_found: a POST is logged as every
				// control POST is, the others change nothing.
				methods = []string{"GET", "POST", "DELETE"}
			}
			for _, mm := range methods {
				routes = append(routes, route{mm, concrete(pat), pat})
			}
			continue
		}
		routes = append(routes, route{m, concrete(p), pat})
	}
	routeCalls := simulator.RouteCallNames()
	recorded, read, undecodable := 0, 0, 0
	for _, r := range routes {
		if why, ok := notRecordedRoutes[r.pattern]; ok {
			t.Logf("%s: %s", r.pattern, why)
			continue
		}
		n0, _ := simulator.RecordedInputs(sim, 0)
		d0 := mustDigest(t, sim)
		var res result
		h := authed(tok)
		h.Set("X-On-Behalf-Of", member1)
		h.Set("X-Idempotency-Key", uuidN(int(n0)+1000))
		h.Set("Content-Type", "application/json")
		body := []byte("{}")
		if b, ok := callBodies[r.pattern]; ok {
			body = []byte(b)
		}
		if r.method == "GET" || r.method == "HEAD" || r.method == "DELETE" {
			body = nil
		}
		res = rc.send(r.method, r.path, body, h)
		if res.err != nil {
			t.Errorf("%s %s: %v", r.method, r.path, res.err)
			continue
		}
		n1, last := simulator.RecordedInputs(sim, 1)
		if _, ok := routeCalls[r.pattern]; ok && r.method == "POST" {
			// A body the route cannot decode is refused, changes nothing
			// and is one input all the same: the request.
			res := rc.send(r.method, r.path, []byte(`{"no_such_field":1}`), h)
			n2, last2 := simulator.RecordedInputs(sim, 1)
			if res.err != nil || res.status != 400 || n2 != n1+1 || len(last2) != 1 || last2[0] != "http "+r.method+" "+r.path {
				t.Errorf("%s (%s) with a body it cannot decode: %d %v, logged %d inputs %v, want 400 and one http input", r.pattern, r.path, res.status, res.err, n2-n1, last2)
			}
			undecodable++
		}
		if names, ok := routeCalls[r.pattern]; ok && r.method != "GET" {
			// The route of a Go method: one input, a call of the method
			// (or of Action) when the request decodes into its
			// arguments, otherwise the request, refused.
			recorded++
			want := []string{"http " + r.method + " " + r.path}
			for _, n := range names {
				want = append(want, "call call "+n)
			}
			if n1 != n0+1 || len(last) != 1 || !slices.Contains(want, last[0]) {
				t.Errorf("%s (%s): logged %d inputs %v, want one of %v", r.pattern, r.path, n1-n0, last, want)
			}
			continue
		}
		business := !strings.HasPrefix(r.path, "/_sim")
		catchAll := !strings.Contains(r.pattern, " ")
		if business || (!catchAll || r.method == "POST") && r.method != "GET" && r.method != "HEAD" {
			recorded++
			want := "http " + r.method + " " + r.path
			if n1 != n0+1 || len(last) != 1 || last[0] != want {
				t.Errorf("%s (%s): logged %d inputs %v, want one: %s", r.pattern, r.path, n1-n0, last, want)
			}
			continue
		}
		read++
		if n1 != n0 {
			t.Errorf("control read %s (%s) logged %d inputs %v", r.pattern, r.path, n1-n0, last)
		}
		if d1 := mustDigest(t, sim); d1 != d0 {
			t.Errorf("control read %s (%s) changed the state", r.pattern, r.path)
			d0 = d1
		}
	}
	t.Logf("%d routes logged, %d control reads, %d routes of Go methods also sent a body they cannot decode", recorded, read, undecodable)
	sameState(t, sim, replayOf(t, sim))
}

// TestFlushIsRecorded checks the route left out above: a flush with a
// delivery due logs its parts; one with nothing due logs nothing.
func TestFlushIsRecorded(t *testing.T) {
	t.Parallel()
	sim, rc := newRaw(t)
	rcv := newFlakyReceiver(t, 1)
	if _, _, err := sim.Webhooks.AddEndpoint(rcv.srv.URL); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Events.Emit("member.created", "member", "x", member1, "created", 0); err != nil {
		t.Fatal(err)
	}
	n0, _ := simulator.RecordedInputs(sim, 0)
	rc.mustControl("POST", "/_sim/webhooks/flush", nil)
	n1, last := simulator.RecordedInputs(sim, 2)
	if n1 != n0+2 || !strings.HasPrefix(last[0], "flush_due") || !strings.HasPrefix(last[1], "attempt") {
		t.Errorf("flush logged %v", last)
	}
	rc.mustControl("POST", "/_sim/webhooks/flush", nil) // the retry is not due yet
	if n2, _ := simulator.RecordedInputs(sim, 0); n2 != n1 {
		t.Errorf("a flush with nothing due logged %d inputs", n2-n1)
	}
	sameState(t, sim, replayOf(t, sim))
}

// Go control methods that change nothing, or that are not control calls.
var (
	readMethods = map[string]bool{
		"Cards.Plastic": true, "Cards.UpstreamCloseRequests": true, "Cards.TopUpStatus": true, "Cards.Funds": true,
		"Clock.Now": true, "Events.List": true, "Faults.List": true, "Members.Get": true, "Members.Balance": true,
		"Merchant.PrepaidBalance": true, "QRPay.UpstreamCalls": true, "QRPay.Trace": true, "Requests.List": true,
		"Webhooks.Endpoints": true, "Webhooks.Deliveries": true,
		"Actions": true, "CheckInvariants": true, "CheckLedger": true, "Credentials": true,
		"Digest": true, "LedgerEntries": true, "Recording": true, "State": true, "Stats": true,
	}
	// infraMethods serve, configure the serving of, or build clients for
	// the simulator.
	infraMethods = map[string]bool{
		"Client": true, "Close": true, "ServeHTTP": true, "SetBaseURL": true, "URL": true,
		"Certificate": true, "HTTPClient": true,
		// Builders for the test's side: a receiver handler checking
		// signatures on the simulator clock, a sleep that advances it
		// (each Advance it makes is logged as such).
		"Webhooks.Handler": true, "Clock.SleepFunc": true, "Clock.Sleep": true,
	}
	// sectionedMethods are logged as inputs of their own kinds:
	// Clock.Advance as advance (when a timer falls due), Webhooks.Flush as
	// flush_due and attempt (when a delivery is due), as is
	// Webhooks.FlushExpectingFailures, the same flush.
	sectionedMethods = map[string]bool{"Clock.Advance": true, "Webhooks.Flush": true, "Webhooks.FlushExpectingFailures": true}
	// normalizedAny are the methods whose arguments hold interface values
	// that the method puts through JSON before it runs, so the live call
	// and its replay see the same types.
	normalizedAny = map[string]bool{"Events.EmitExtra": true}
)

// controlMethods lists the Go control API: "Field.Method" for the methods
// of every exported field of Simulator, "Method" for Simulator's own.
func controlMethods(sim *simulator.Simulator) map[string]reflect.Value {
	out := map[string]reflect.Value{}
	v := reflect.ValueOf(sim)
	for i := 0; i < v.NumMethod(); i++ {
		out[v.Type().Method(i).Name] = v.Method(i)
	}
	st := v.Elem().Type()
	for i := 0; i < st.NumField(); i++ {
		f := st.Field(i)
		if !f.IsExported() {
			continue
		}
		fv := v.Elem().Field(i)
		for j := 0; j < fv.NumMethod(); j++ {
			out[f.Name+"."+fv.Type().Method(j).Name] = fv.Method(j)
		}
	}
	return out
}

// TestControlMethodsRecorded enumerates every method of the Go control
// API: each one that is not declared a read (or serving) must be logged as
// one call input under its own name, with arguments that survive the
// recording's JSON; each read must change neither the log nor the state.
// The recording must replay to the same state.
func TestControlMethodsRecorded(t *testing.T) {
	t.Parallel()
	sim, _ := newRaw(t)
	methods := controlMethods(sim)
	names := make([]string, 0, len(methods))
	for n := range methods {
		names = append(names, n)
	}
	sort.Strings(names)
	for n := range readMethods {
		if _, ok := methods[n]; !ok {
			t.Errorf("readMethods names %s, which does not exist", n)
		}
	}
	recorded := 0
	for _, name := range names {
		if infraMethods[name] || sectionedMethods[name] {
			continue
		}
		fn := methods[name]
		args := make([]reflect.Value, fn.Type().NumIn())
		for i := range args {
			pt := fn.Type().In(i)
			if pt == reflect.TypeFor[context.Context]() {
				args[i] = reflect.ValueOf(context.Background())
			} else {
				args[i] = reflect.Zero(pt)
			}
			if !readMethods[name] {
				seen := map[reflect.Type]bool{}
				if normalizedAny[name] {
					seen[reflect.TypeFor[any]()] = true
				}
				if p := jsonHole(pt, seen); p != "" {
					t.Errorf("%s: argument %d (%s) does not survive JSON: %s", name, i, pt, p)
				}
			}
		}
		n0, _ := simulator.RecordedInputs(sim, 0)
		d0 := mustDigest(t, sim)
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s with zero arguments panicked: %v", name, p)
				}
			}()
			if fn.Type().IsVariadic() {
				fn.CallSlice(args)
			} else {
				fn.Call(args)
			}
		}()
		n1, last := simulator.RecordedInputs(sim, 1)
		if readMethods[name] {
			if n1 != n0 || mustDigest(t, sim) != d0 {
				t.Errorf("%s is declared a read but logged %d inputs or changed the state", name, n1-n0)
			}
			continue
		}
		recorded++
		if want := "call call " + name; n1 != n0+1 || len(last) != 1 || last[0] != want {
			t.Errorf("%s: logged %d inputs %v, want one: %s (declare its op a call, or a read: noCall)", name, n1-n0, last, want)
		}
	}
	t.Logf("%d Go control methods logged, %d reads", recorded, len(readMethods))
	// Advance with nothing due logs nothing; with a timer due it logs
	// advance.
	sim.Clock.Advance(time.Second)
	if err := sim.Outcomes.Set(simulator.CollectionQROrders, simulator.Immediate()); err != nil {
		t.Fatal(err)
	}
	sameState(t, sim, replayOf(t, sim))
}

// jsonHole reports where a value of t would not survive a JSON round trip:
// a struct with unexported fields and no marshaler, a function, an
// interface. Channels tagged json:"-" (Fault.Hold) are left out on
// purpose.
func jsonHole(t reflect.Type, seen map[reflect.Type]bool) string {
	if seen[t] {
		return ""
	}
	seen[t] = true
	if t.Implements(reflect.TypeFor[json.Marshaler]()) || t.Implements(reflect.TypeFor[encoding.TextMarshaler]()) {
		return ""
	}
	switch t.Kind() {
	case reflect.Func, reflect.Chan, reflect.Interface, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		return t.String()
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return jsonHole(t.Elem(), seen)
	case reflect.Map:
		if p := jsonHole(t.Key(), seen); p != "" {
			return p
		}
		return jsonHole(t.Elem(), seen)
	case reflect.Struct:
		if t == reflect.TypeFor[time.Time]() {
			return ""
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Tag.Get("json") == "-" {
				continue
			}
			if !f.IsExported() {
				return t.String() + "." + f.Name + " is unexported"
			}
			if p := jsonHole(f.Type, seen); p != "" {
				return t.String() + "." + f.Name + ": " + p
			}
		}
	}
	return ""
}

// TestRecordingFileFormat pins the file format's header and end line.
func TestRecordingFileFormat(t *testing.T) {
	t.Parallel()
	sim, rc := newRaw(t)
	rc.token()
	sim.Clock.Advance(time.Minute)
	r := rc.send("GET", "/_sim/recording", nil, nil)
	wantStatus(t, r, http.StatusOK)
	if ct := r.header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Errorf("Content-Type %q", ct)
	}
	lines := strings.Split(strings.TrimSpace(string(r.raw)), "\n")
	if len(lines) != 4 {
		t.Fatalf("recording:\n%s", r.raw)
	}
	var base map[string]any
	_ = json.Unmarshal([]byte(lines[1]), &base)
	if base["op"] != "base_url" || base["url"] != sim.URL() || base["seq"] != float64(1) {
		t.Errorf("first input %s, want the simulator's address", lines[1])
	}
	lines = append(lines[:1], lines[2:]...)
	var head struct {
		Format  string         `json:"format"`
		Version int            `json:"version"`
		Config  map[string]any `json:"config"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &head); err != nil || head.Format != "mwallet-sim-recording" || head.Version != 2 || head.Config["seed"] != float64(1) {
		t.Errorf("header %s: %v", lines[0], err)
	}
	var in, end map[string]any
	_ = json.Unmarshal([]byte(lines[1]), &in)
	_ = json.Unmarshal([]byte(lines[2]), &end)
	if in["op"] != "http" || in["method"] != "POST" || in["target"] != "/v1/connect/token" || in["seq"] != float64(2) {
		t.Errorf("input line %s", lines[1])
	}
	if end["op"] != "end" || end["clock"] != "2026-01-01T00:01:00Z" || end["digest"] != mustDigest(t, sim) {
		t.Errorf("end line %s, want the clock and the digest %s", lines[2], mustDigest(t, sim))
	}
	rec, err := simulator.ReadRecording(strings.NewReader(string(r.raw)))
	if err != nil || rec.Len() != 2 {
		t.Fatalf("ReadRecording: %v", err)
	}
	if _, err := simulator.ReadRecording(strings.NewReader(`{"format":"other","version":1}`)); err == nil {
		t.Error("a file of another format was read")
	}
	if _, err := simulator.ReadRecording(strings.NewReader(`{"format":"mwallet-sim-recording","version":3}`)); err == nil {
		t.Error("a recording of a later version was read")
	}
	dig := rc.send("GET", "/_sim/digest", nil, nil)
	if d, _ := dig.body["digest"].(string); d != mustDigest(t, sim) {
		t.Errorf("GET /_sim/digest = %s, Digest() = %s", dig.raw, mustDigest(t, sim))
	}
}

// TestRecordingStepper steps through a recording over HTTP, forward and
// back: each step shows its input (credentials redacted), the answer it
// got and the state after it, which at the last step is the live state.
func TestRecordingStepper(t *testing.T) {
	t.Parallel()
	sim, rc := newRaw(t)
	tok := rc.token()
	wantStatus(t, rc.write(tok, "POST", "/v1/deposits", member1, uuidN(1), depositBody("step-1", "5")), http.StatusCreated)
	rc.mustControl("POST", "/_sim/members", map[string]any{"external_member_id": "stepper-2"})
	wantCode(t, rc.write(tok, "POST", "/v1/deposits", member1, uuidN(2), []byte(`{"asset":"USDT"}`)), http.StatusBadRequest, "invalid_request")
	steps := rc.mustControl("GET", "/_sim/recording/steps", nil)
	list, _ := steps.body["data"].([]any)
	// Step 1 is the simulator's address (base_url), then the token
	// exchange, the deposit, the member, the refused deposit.
	if steps.body["has_more"] != false || len(list) != 5 {
		t.Fatalf("steps: %s", steps.raw)
	}
	if s := list[0].(map[string]any)["summary"]; s != "served at "+sim.URL() {
		t.Errorf("summary of step 1: %v", s)
	}
	if s := list[2].(map[string]any)["summary"]; s != "POST /v1/deposits (member-1)" {
		t.Errorf("summary of step 3: %v", s)
	}
	type detail struct {
		Step   map[string]any          `json:"step"`
		Input  map[string]any          `json:"input"`
		Answer *struct{ Status int }   `json:"answer"`
		State  simulator.StateSnapshot `json:"state"`
	}
	get := func(seq int) detail {
		t.Helper()
		r := rc.mustControl("GET", "/_sim/recording/steps/"+strconv.Itoa(seq), nil)
		var d detail
		if err := json.Unmarshal(r.raw, &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	last := get(5)
	if last.Answer == nil || last.Answer.Status != http.StatusBadRequest {
		t.Errorf("step 4 answer %+v", last.Answer)
	}
	live := sim.State()
	live.Requests, last.State.Requests = nil, nil
	if diff := cmp.Diff(live.Members, last.State.Members); diff != "" {
		t.Errorf("members after the last step (-live +stepper):\n%s", diff)
	}
	back := get(3)
	if back.Answer == nil || back.Answer.Status != http.StatusCreated || len(back.State.Members) != 1 {
		t.Errorf("step 3: answer %+v, %d members", back.Answer, len(back.State.Members))
	}
	h, _ := back.Input["header"].(map[string]any)
	for _, k := range []string{"X-Auth-Token", "X-Signature", "X-Nonce"} {
		if v, _ := h[k].([]any); len(v) != 1 || v[0] != "[redacted]" {
			t.Errorf("step 3 shows %s: %v", k, h[k])
		}
	}
	if !strings.Contains(jsonOf(back.Input), "step-1") {
		t.Errorf("step 3 input: %s", jsonOf(back.Input))
	}
	// POST /_sim/members is the HTTP entry of Members.Create: its step is
	// a call of the method, which has no answer to show.
	if d := get(4); len(d.State.Members) != 2 || d.Answer != nil || d.Input["call"] != "Members.Create" || d.Input["route"] != "POST /_sim/members" {
		t.Errorf("step 4: %d members, answer %+v, input %v", len(d.State.Members), d.Answer, d.Input)
	}
	if d := get(0); d.Answer != nil || d.Input != nil || len(d.State.Members) != 1 {
		t.Errorf("step 0: answer %+v, input %v", d.Answer, d.Input)
	}
	var zero struct {
		Step struct {
			Seq   int64
			Op    string
			Clock time.Time
		} `json:"step"`
	}
	if err := json.Unmarshal(rc.mustControl("GET", "/_sim/recording/steps/0", nil).raw, &zero); err != nil || zero.Step.Op != "start" || zero.Step.Clock.IsZero() {
		t.Errorf("step 0 describes %+v (%v), want op start at the start clock", zero.Step, err)
	}
	wantCode(t, rc.control("GET", "/_sim/recording/steps/9", nil), http.StatusNotFound, "not_found")
	_ = last
	wantCode(t, rc.control("GET", "/_sim/recording/steps/x", nil), http.StatusBadRequest, "invalid_request")
}

// TestRecordingLimit stops the in-memory recording at its limit: Recording
// and GET /_sim/recording then say so, and the simulator serves on.
func TestRecordingLimit(t *testing.T) {
	t.Parallel()
	sim, rc := newRaw(t, simulator.WithRecordingLimit(2000))
	tok := rc.token()
	if _, err := sim.Recording(); err != nil {
		t.Fatalf("within the limit: %v", err)
	}
	for i := 1; i <= 5; i++ {
		wantStatus(t, rc.write(tok, "POST", "/v1/deposits", member1, uuidN(i), depositBody("lim-"+strconv.Itoa(i), "1")), http.StatusCreated)
	}
	if _, err := sim.Recording(); err == nil || !strings.Contains(err.Error(), "WithRecordingLimit") {
		t.Errorf("past the limit: %v", err)
	}
	wantCode(t, rc.control("GET", "/_sim/recording", nil), http.StatusBadRequest, "service_unavailable")
	none, _ := newRaw(t, simulator.WithRecordingLimit(0))
	if _, err := none.Recording(); err != nil {
		t.Errorf("an empty recording: %v", err)
	}
	if _, err := simulator.New(simulator.WithRecordingLimit(-1)); err == nil {
		t.Error("WithRecordingLimit(-1) accepted")
	}
}

// TestReplayFollowsRecordedDraws: a request's random fault draws are kept
// with its input and a replay makes the recorded ones, as it uses the
// recorded answers of webhook receivers: inverting a recorded draw inverts
// that request's fault in the replay.
func TestReplayFollowsRecordedDraws(t *testing.T) {
	t.Parallel()
	sim, rc := newRaw(t)
	tok := rc.token()
	if err := sim.Faults.Inject(simulator.Fault{Path: "/v1/assets", Kind: simulator.FaultError, Status: 502, OneIn: 3}); err != nil {
		t.Fatal(err)
	}
	for range 12 {
		rc.get(tok, "/v1/assets", "")
	}
	rec, err := sim.Recording()
	if err != nil {
		t.Fatal(err)
	}
	draws := simulator.RecordedDraws(rec)
	if len(draws) != 12 {
		t.Fatalf("draws of %d inputs, want 12: %v", len(draws), draws)
	}
	live := sim.Requests.List()
	hits := 0
	for _, r := range live {
		if r.Status == http.StatusBadGateway {
			hits++
		}
	}
	if hits == 0 || hits == 12 {
		t.Fatalf("%d of 12 requests met the fault: the draws should differ", hits)
	}
	sameState(t, sim, replayOf(t, sim))

	// The last GET: invert its draw.
	var last int64
	for seq := range draws {
		last = max(last, seq)
	}
	simulator.FlipDraws(rec, last)
	// The recording's end carries the digest of the state it was taken in:
	// the edited recording reaches another state, and the replay says so.
	if s, err := simulator.New(simulator.WithRecording(rec)); err == nil || !strings.Contains(err.Error(), "reached another state") {
		if s != nil {
			s.Close()
		}
		t.Fatalf("replay of an edited recording: %v, want the digest refused", err)
	}
	simulator.ForgetDigest(rec)
	again := simtest.Start(t, simulator.WithRecording(rec))
	got := again.Requests.List()
	want := live[len(live)-1].Status == http.StatusBadGateway
	if is := got[len(got)-1].Status == http.StatusBadGateway; is == want {
		t.Errorf("the replay did not follow the inverted draw: status %d live, %d replayed", live[len(live)-1].Status, got[len(got)-1].Status)
	}
}
