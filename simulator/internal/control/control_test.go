package control

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// run is the run type of the tests' ops: the objects that exist.
type run struct{ objects map[string]bool }

var testDomains = map[string]*Domain[*run]{
	"color": Folded(OneOf[*run]("color", "purple", "RED", "GREEN")),
	"thing": ObjectOf("thing", func(x *run, id string) bool { return x.objects[id] }),
	"small": IntRange[*run]("small number", 0, 9),
	"name":  TextOf[*run]("name", 8),
	"flag":  {Name: "boolean", OK: AnyValue[*run]},
}

type paintIn struct {
	Thing string            `path:"id" json:"-" dom:"thing"`
	Color string            `json:"color" dom:"color,req"`
	Coats *int              `json:"coats" dom:"small"`
	Limit *int64            `query:"limit" json:"-" dom:"small"`
	Notes map[string]string `json:"notes" dom:"name,key=name"`
}

// TestCheckRefusesEveryValueOutsideItsDomain: each kind of domain refuses
// with a Refusal naming the argument and the domain; a missing required
// argument is invalid_request; an earlier build's input runs under the
// legacy rule.
func TestCheckRefusesEveryValueOutsideItsDomain(t *testing.T) {
	t.Parallel()
	fields := ParseFields(reflect.TypeFor[paintIn](), testDomains)
	x := &run{objects: map[string]bool{"t1": true}}
	two, ten := 2, 10
	cases := []struct {
		name string
		in   paintIn
		want error
	}{
		{"ok", paintIn{Thing: "t1", Color: " red", Coats: &two}, nil},
		{"unknown object", paintIn{Thing: "t2", Color: "red"},
			&Refusal{Kind: "thing", Name: "t2", NotFound: true, Field: "path parameter id"}},
		{"not a choice", paintIn{Thing: "t1", Color: "purple"},
			&Refusal{Kind: "color", Name: "purple", Valid: []string{"GREEN", "RED"}, Field: "color"}},
		{"out of range", paintIn{Thing: "t1", Color: "red", Coats: &ten},
			&Refusal{Kind: "small number", Name: "10", Field: "coats", Want: "an integer from 0 to 9"}},
		{"map key", paintIn{Thing: "t1", Color: "red", Notes: map[string]string{"a\nb": "x"}},
			&Refusal{Kind: "name", Name: "a\nb", Field: "notes", Want: "text of at most 8 characters without control characters"}},
		{"missing", paintIn{Thing: "t1"}, api.InvalidRequest("color is required")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			err := Check(x, false, fields, &in)
			if diff := cmp.Diff(tc.want, err, cmp.Comparer(func(a, b error) bool { return reflect.DeepEqual(a, b) })); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
	legacy := Folded(OneOf[*run]("color", "x", "RED"))
	legacy.Legacy = AnyValue[*run]
	lf := ParseFields(reflect.TypeFor[paintIn](), map[string]*Domain[*run]{
		"color": legacy, "thing": testDomains["thing"], "small": testDomains["small"], "name": testDomains["name"]})
	if err := Check(x, true, lf, &paintIn{Thing: "t1", Color: "purple"}); err != nil {
		t.Errorf("legacy input: %v", err)
	}
	if err := Check(x, false, lf, &paintIn{Thing: "t1", Color: "purple"}); err == nil {
		t.Error("the current rule took purple")
	}
}

// TestDeclarationsWithoutDomainsPanic: an input field without a domain, an
// unknown domain, a second route or Go method of the same name cannot be
// declared.
func TestDeclarationsWithoutDomainsPanic(t *testing.T) {
	t.Parallel()
	type noDom struct {
		A string `json:"a"`
	}
	type badDom struct {
		A string `json:"a" dom:"nope"`
	}
	cases := map[string]func(){
		"no domain":      func() { NewRegistry(testDomains, "Action", []*Op[*run]{Def[*run, noDom]{Route: "GET /a"}.Op()}) },
		"unknown domain": func() { NewRegistry(testDomains, "Action", []*Op[*run]{Def[*run, badDom]{Route: "GET /a"}.Op()}) },
		"route twice": func() {
			NewRegistry(testDomains, "Action", []*Op[*run]{Def[*run, NoInput]{Route: "GET /a"}.Op(), Def[*run, NoInput]{Route: "GET /a"}.Op()})
		},
		"method twice": func() {
			NewRegistry(testDomains, "Action", []*Op[*run]{Def[*run, NoInput]{Name: "A.B"}.Op(), Def[*run, NoInput]{Name: "X", Alias: "A.B"}.Op()})
		},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("declared")
				}
			}()
			f()
		})
	}
	r := NewRegistry(testDomains, "Action", []*Op[*run]{
		Def[*run, NoInput]{Route: "GET /b", Name: "Action", Action: "b"}.Op(), Def[*run, paintIn]{Route: "POST /a/{id}", Name: "P.Paint"}.Op()})
	if diff := cmp.Diff([]string{"GET /b", "POST /a/{id}"}, r.Routes()); diff != "" {
		t.Errorf("routes (-want +got):\n%s", diff)
	}
	if r.ByName["Action"] != nil || r.ByAction["b"] == nil || r.ByName["P.Paint"] == nil {
		t.Errorf("registry: by name %v, by action %v", r.ByName, r.ByAction)
	}
}

// TestDecodeReadsPathQueryAndBody: an input is read from its path
// parameters, query and body; an unknown body field and a query integer
// that is not one are invalid_request.
func TestDecodeReadsPathQueryAndBody(t *testing.T) {
	t.Parallel()
	o := Def[*run, paintIn]{Route: "POST /a/{id}"}.Op()
	o.Fields = ParseFields(o.In, testDomains)
	path := func(string) string { return "t1" }
	in, err := o.Decode(path, url.Values{"limit": {"3"}}, []byte(`{"color":"red"}`))
	if err != nil {
		t.Fatal(err)
	}
	three := int64(3)
	if diff := cmp.Diff(&paintIn{Thing: "t1", Color: "red", Limit: &three}, in); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
	if !o.Complete(in) || o.Complete(&paintIn{Thing: "t1"}) {
		t.Error("Complete does not follow the required fields")
	}
	for _, bad := range []struct {
		query url.Values
		body  string
	}{{nil, `{"colour":"red"}`}, {url.Values{"limit": {"x"}}, `{}`}, {nil, `[1]`}} {
		_, err := o.Decode(path, bad.query, []byte(bad.body))
		var ae *api.Error
		if !errors.As(err, &ae) || ae.Code != "invalid_request" {
			t.Errorf("Decode(%v, %s) = %v, want invalid_request", bad.query, bad.body, err)
		}
	}
}

// TestGuardRules: the guard's four rules over a request that came through
// a server; a request Go code hands to a handler, and a replayed one, pass.
func TestGuardRules(t *testing.T) {
	t.Parallel()
	g := &Guard{Token: "tok", TokenHeader: "X-Token", AllowedHosts: []string{"sim.test"},
		SelfURL:         func() string { return "http://self.example:8080" },
		JSONContentType: func(v string) bool { return strings.HasPrefix(v, "application/json") },
		QuoteHeader:     func(v string) string { return `"` + v + `"` }}
	req := func(method, host string, h map[string]string) *http.Request {
		r := httptest.NewRequest(method, "http://"+host+"/_sim/x", nil)
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, &net.TCPAddr{}))
		for k, v := range h {
			r.Header.Set(k, v)
		}
		return r
	}
	tok := map[string]string{"X-Token": "tok"}
	cases := []struct {
		name     string
		r        *http.Request
		noToken  bool
		hasBody  bool
		replayed bool
		want     string // the refusal's code, "" for none
	}{
		{"loopback", req("GET", "127.0.0.1:1", tok), false, false, false, ""},
		{"localhost", req("GET", "a.localhost", tok), false, false, false, ""},
		{"own url", req("GET", "SELF.example.:8080", tok), false, false, false, ""},
		{"allowed", req("GET", "sim.test", tok), false, false, false, ""},
		{"other host", req("GET", "evil.test", tok), false, false, false, "invalid_request"},
		{"no token", req("GET", "127.0.0.1", nil), false, false, false, "invalid_token"},
		{"wrong token", req("GET", "127.0.0.1", map[string]string{"X-Token": "tik"}), false, false, false, "invalid_token"},
		{"token not needed", req("GET", "127.0.0.1", nil), true, false, false, ""},
		{"form post", req("POST", "127.0.0.1", map[string]string{"X-Token": "tok", "Content-Type": "text/plain"}), false, true, false, "invalid_request"},
		{"body without type", req("POST", "127.0.0.1", tok), false, true, false, "invalid_request"},
		{"bodyless write", req("POST", "127.0.0.1", tok), false, false, false, ""},
		{"other origin", req("POST", "127.0.0.1", map[string]string{"X-Token": "tok", "Origin": "http://evil.test"}), false, false, false, "invalid_request"},
		{"own origin", req("POST", "127.0.0.1:9", map[string]string{"X-Token": "tok", "Origin": "http://127.0.0.1:9"}), false, false, false, ""},
		{"replayed", req("POST", "evil.test", nil), false, true, true, ""},
		{"from Go code", httptest.NewRequest("POST", "http://evil.test/_sim/x", nil), false, true, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if ae := g.Check(tc.r, tc.noToken, tc.hasBody, tc.replayed); ae != nil {
				got = ae.Code
			}
			if got != tc.want {
				t.Errorf("Check = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDefRules: a row's Rules become the op's, typed to its input; a row
// without them has none.
func TestDefRules(t *testing.T) {
	t.Parallel()
	errOdd := errors.New("odd")
	with := Def[*run, paintIn]{Route: "POST /a/{id}", Rules: func(_ *run, in *paintIn) error {
		if in.Thing == "odd" {
			return errOdd
		}
		return nil
	}}.Op()
	got := []error{with.Rules(nil, &paintIn{Thing: "even"}), with.Rules(nil, &paintIn{Thing: "odd"})}
	if diff := cmp.Diff([]error{nil, errOdd}, got, cmpopts.EquateErrors()); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	if without := (Def[*run, paintIn]{Route: "POST /a/{id}"}.Op()); without.Rules != nil {
		t.Error("a row without rules has some")
	}
}
