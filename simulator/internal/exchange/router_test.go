package exchange

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// newRouter is a router over a fresh pipeline with two endpoints (GET and
// POST /v1/things, GET /v1/things/{id} narrowed to ids of thing_), one
// control route and the catch-all not_found.
func newRouter(h *fakeHost) *Router {
	p, _, _ := newPipeline(h)
	mux := http.NewServeMux()
	rt := p.NewRouter(mux)
	ok := func(*api.Request) (int, any, error) { return 200, map[string]string{"ok": "yes"}, nil }
	rt.Register(api.Endpoint{Method: "GET", Pattern: "/v1/things", Handle: ok})
	rt.Register(api.Endpoint{Method: "POST", Pattern: "/v1/things", Handle: ok})
	rt.Register(api.Endpoint{Method: "GET", Pattern: "/v1/things/{id}", Handle: ok, Serves: func(path string) bool {
		return strings.HasPrefix(path, "/v1/things/thing_")
	}})
	mux.HandleFunc("GET /_sim/clock", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	mux.HandleFunc("/", rt.ServeNotFound)
	rt.IndexLiteralPaths([]string{"GET /_sim/clock"})
	return rt
}

// TestRouter: the router serves registered endpoints, answers a
// non-canonical path, another method of a literal path and a path a Serves
// narrowing refuses with the JSON not_found (Allow naming the methods the
// path serves), and hands the control API's own not_found to the Host.
func TestRouter(t *testing.T) {
	t.Parallel()
	type got struct {
		Status  int
		Message string
		Allow   string
	}
	tests := []struct {
		method, target string
		want           got
		controlNF      []string
	}{
		{"GET", "/v1/things", got{Status: 200}, nil},
		{"GET", "/v1/things/thing_1", got{Status: 200}, nil},
		{"GET", "/v1/things/other", got{404, "path /v1/things/other not found", ""}, nil},
		{"PUT", "/v1/things", got{404, "PUT /v1/things: no such endpoint; the path serves GET, HEAD, POST", "GET, HEAD, POST"}, nil},
		{"GET", "//v1/things", got{404, "no endpoint at the non-canonical path //v1/things (paths are never cleaned or redirected)", ""}, nil},
		{"GET", "/v1/nothing", got{404, "path /v1/nothing not found", ""}, nil},
		{"GET", "/_sim/clock", got{Status: 418}, nil},
		{"POST", "/_sim/clock", got{Status: 404}, []string{""}},
		{"GET", "/_sim", got{Status: 404}, []string{"no control endpoint GET /_sim"}},
		{"GET", "/_sim//clock", got{Status: 404}, []string{"no control endpoint at the non-canonical path /_sim//clock"}},
	}
	for _, tt := range tests {
		h := newFakeHost(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		rt := newRouter(h)
		r := httptest.NewRequest(tt.method, tt.target, nil)
		r.Header.Set("Authorization", "Bearer tok_1")
		w := httptest.NewRecorder()
		rt.ServeHTTP(w, r)
		var env struct{ Message string }
		_ = json.Unmarshal(w.Body.Bytes(), &env)
		g := got{w.Code, env.Message, w.Header().Get("Allow")}
		if diff := cmp.Diff(tt.want, g); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tt.method, tt.target, diff)
		}
		if diff := cmp.Diff(tt.controlNF, h.controlNF); diff != "" {
			t.Errorf("%s %s: control not_found (-want +got):\n%s", tt.method, tt.target, diff)
		}
		if h.captured != 1 || w.Header().Get("Date") == "" {
			t.Errorf("%s %s: %d captures, Date %q", tt.method, tt.target, h.captured, w.Header().Get("Date"))
		}
	}
}

// TestControlNotFoundAnswer: the control API's not_found names the
// methods of a known path, or says there is no control endpoint.
func TestControlNotFoundAnswer(t *testing.T) {
	t.Parallel()
	rt := newRouter(newFakeHost(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
	for _, tt := range []struct{ method, target, message, want string }{
		{"POST", "/_sim/clock", "", "POST /_sim/clock: no such endpoint; the path serves GET, HEAD"},
		{"GET", "/_sim/none", "", "no control endpoint GET /_sim/none"},
		{"GET", "/_sim/none", "given", "given"},
	} {
		ae := rt.ControlNotFoundAnswer(httptest.NewRequest(tt.method, tt.target, nil), tt.message)
		if ae.Message != tt.want {
			t.Errorf("%s %s: %q, want %q", tt.method, tt.target, ae.Message, tt.want)
		}
	}
}
