package control

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// coreX is the core ops' tests' run: the request, the ledger's balance
// and the invariants that do not hold.
type coreX struct {
	r          *http.Request
	unbalanced error
	violations []string
}

// coreViews are views over coreX that answer their own names.
func coreViews() CoreViews[*coreX] {
	return CoreViews[*coreX]{
		NotFound:    func(x *coreX) error { return errors.New("not_found: " + NotFoundMessage(x.r)) },
		Credentials: func(*coreX) any { return "credentials" },
		Stats:       func(*coreX) any { return "stats" },
		State:       func(*coreX) any { return "state" },
		Entries:     func(*coreX) any { return []string{"entry"} },
		Check:       func(x *coreX) error { return x.unbalanced },
		Invariants:  func(x *coreX) []string { return x.violations },
		Recipes:     func() any { return List([]string{"recipe"}) },
		QRSamples:   func() any { return List([]string{"sample"}) },
		Business:    func() []byte { return []byte("business: 1\n") },
		Control:     func() []byte { return []byte("control: 1\n") },
		DashboardFile: func(_ *coreX, name string) (any, error) {
			return "file " + name, nil
		},
	}
}

// TestCoreOpsDeclarations: the core ops' routes, in the order they
// register, and the flags of the unlocked, captured and tokenless ones.
func TestCoreOpsDeclarations(t *testing.T) {
	t.Parallel()
	ops := NewCoreOps(coreViews())
	var got []string
	for _, o := range append([]*Op[*coreX]{ops.NotFound, ops.Credentials}, ops.Others...) {
		flags := ""
		for _, f := range []struct {
			on   bool
			name string
		}{{o.NotFound, " not_found"}, {o.Unlocked, " unlocked"}, {o.Captured, " captured"}, {o.NoToken, " no_token"}} {
			if f.on {
				flags += f.name
			}
		}
		got = append(got, o.Route+flags)
	}
	want := []string{
		"/_sim/{rest...} not_found", "GET /_sim/credentials", "GET /_sim/stats", "GET /_sim/ledger captured",
		"GET /_sim/invariants", "GET /_sim/state captured", "GET /_sim/recipes", "GET /_sim/qr-samples",
		"GET /_sim/openapi.yaml unlocked", "GET /_sim/openapi-sim.yaml unlocked",
		"GET /_sim/ui/{file...} unlocked no_token", "GET /_sim/ui unlocked no_token",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("core ops (-want +got):\n%s", diff)
	}
}

// TestCoreOpsAnswers: each core op's answer over its view.
func TestCoreOpsAnswers(t *testing.T) {
	t.Parallel()
	ops := NewCoreOps(coreViews())
	byRoute := map[string]*Op[*coreX]{}
	for _, o := range ops.Others {
		byRoute[o.Route] = o
	}
	r := WithNotFoundMessage(httptest.NewRequest(http.MethodGet, "/_sim/nope", nil), "no such route")
	tests := []struct {
		name string
		op   *Op[*coreX]
		x    *coreX
		in   any
		want any
		err  string
	}{
		{"not found", ops.NotFound, &coreX{r: r}, &NoInput{}, nil, "not_found: no such route"},
		{"credentials", ops.Credentials, &coreX{}, &NoInput{}, "credentials", ""},
		{"stats", byRoute["GET /_sim/stats"], &coreX{}, &NoInput{}, "stats", ""},
		{"ledger balanced", byRoute["GET /_sim/ledger"], &coreX{}, &NoInput{},
			map[string]any{"balanced": true, "entries": []string{"entry"}}, ""},
		{"ledger unbalanced", byRoute["GET /_sim/ledger"], &coreX{unbalanced: errors.New("off by 1")}, &NoInput{},
			map[string]any{"balanced": false, "entries": []string{"entry"}, "error": "off by 1"}, ""},
		{"invariants hold", byRoute["GET /_sim/invariants"], &coreX{}, &NoInput{},
			map[string]any{"hold": true, "violations": []string{}}, ""},
		{"invariants broken", byRoute["GET /_sim/invariants"], &coreX{violations: []string{"v"}}, &NoInput{},
			map[string]any{"hold": false, "violations": []string{"v"}}, ""},
		{"state", byRoute["GET /_sim/state"], &coreX{}, &NoInput{}, "state", ""},
		{"recipes", byRoute["GET /_sim/recipes"], &coreX{}, &NoInput{}, List([]string{"recipe"}), ""},
		{"qr samples", byRoute["GET /_sim/qr-samples"], &coreX{}, &NoInput{}, List([]string{"sample"}), ""},
		{"dashboard file", byRoute["GET /_sim/ui/{file...}"], &coreX{}, &DashboardFile{File: "app.js"}, "file app.js", ""},
	}
	for _, tt := range tests {
		out, err := tt.op.Run(tt.x, tt.in)
		if gotErr := fmtErr(err); gotErr != tt.err {
			t.Errorf("%s: error %q, want %q", tt.name, gotErr, tt.err)
		}
		if diff := cmp.Diff(tt.want, out); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestCoreOpsRawAnswers: the documents and the dashboard's redirect write
// themselves.
func TestCoreOpsRawAnswers(t *testing.T) {
	t.Parallel()
	ops := NewCoreOps(coreViews())
	byRoute := map[string]*Op[*coreX]{}
	for _, o := range ops.Others {
		byRoute[o.Route] = o
	}
	tests := []struct {
		route, wantBody, wantType, wantLocation string
		wantStatus                              int
	}{
		{"GET /_sim/openapi.yaml", "business: 1\n", "application/yaml", "", http.StatusOK},
		{"GET /_sim/openapi-sim.yaml", "control: 1\n", "application/yaml", "", http.StatusOK},
		{"GET /_sim/ui", "", "", "/_sim/ui/", http.StatusMovedPermanently},
	}
	for _, tt := range tests {
		out, err := byRoute[tt.route].Run(&coreX{}, &NoInput{})
		raw, ok := out.(Raw)
		if err != nil || !ok {
			t.Fatalf("%s: %T, %v", tt.route, out, err)
		}
		w := httptest.NewRecorder()
		raw(w, httptest.NewRequest(http.MethodGet, "/_sim/ui", nil))
		if w.Code != tt.wantStatus || w.Header().Get("Content-Type") != tt.wantType && tt.wantType != "" ||
			w.Header().Get("Location") != tt.wantLocation || (tt.wantBody != "" && w.Body.String() != tt.wantBody) {
			t.Errorf("%s: %d %q %q %q", tt.route, w.Code, w.Header().Get("Content-Type"), w.Header().Get("Location"), w.Body.String())
		}
	}
	if msg := NotFoundMessage(httptest.NewRequest(http.MethodGet, "/", nil)); msg != "" {
		t.Errorf("a request without a message: %q", msg)
	}
}

// fmtErr is err's message, "" for none.
func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
