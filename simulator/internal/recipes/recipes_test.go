package recipes

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCatalogue: one recipe per code, sorted, each with steps, an expected
// code equal to its own and a documented error status, and an injected
// recipe says why.
func TestCatalogue(t *testing.T) {
	t.Parallel()
	cat := Catalogue()
	if len(cat) == 0 {
		t.Fatal("empty catalogue")
	}
	codes := make([]string, len(cat))
	for i, r := range cat {
		codes[i] = r.Code
		if len(r.Steps) == 0 || r.Title == "" {
			t.Errorf("%s: %d steps, title %q", r.Code, len(r.Steps), r.Title)
		}
		if r.Expect.Code != r.Code || r.Expect.Status < 400 || r.Expect.Status > 599 {
			t.Errorf("%s: expect %+v", r.Code, r.Expect)
		}
		if r.Injected != (r.Note != "") {
			t.Errorf("%s: injected %v with note %q", r.Code, r.Injected, r.Note)
		}
		for _, st := range r.Steps {
			if st.Call != "control" && st.Call != "api" {
				t.Errorf("%s: call %q", r.Code, st.Call)
			}
		}
	}
	if !sort.StringsAreSorted(codes) {
		t.Errorf("codes not sorted: %v", codes)
	}
	for i := 1; i < len(codes); i++ {
		if codes[i] == codes[i-1] {
			t.Errorf("code %s twice", codes[i])
		}
	}
}

func TestExpand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want, err string
	}{
		{in: "/v1/cards/{{CARD}}/pin", want: "/v1/cards/crd_1/pin"},
		{in: "{{ CARD }}", want: "crd_1"},
		{in: "plain", want: "plain"},
		{in: "{{MISSING}}", err: "variable MISSING is not saved yet"},
		{in: "/x/{{CARD", err: "unclosed {{"},
	}
	for _, tc := range tests {
		rr := &Runner{vars: map[string]string{"CARD": "crd_1"}}
		got, err := rr.expand(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("expand(%q) = %q, %v; want error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("expand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestNewUUIDBindsOnce: {{new_uuid:K}} draws a UUID at its first use and
// {{K}} and later {{new_uuid:K}} reuse it.
func TestNewUUIDBindsOnce(t *testing.T) {
	t.Parallel()
	rr := &Runner{vars: map[string]string{}}
	a, err := rr.expand("{{new_uuid:K}}")
	if err != nil || len(a) != 36 {
		t.Fatalf("new_uuid = %q, %v", a, err)
	}
	for _, s := range []string{"{{K}}", "{{new_uuid:K}}"} {
		if b, err := rr.expand(s); err != nil || b != a {
			t.Errorf("%s = %q, %v; want %q", s, b, err, a)
		}
	}
}

func TestExpandBody(t *testing.T) {
	t.Parallel()
	rr := &Runner{vars: map[string]string{"A": "<x&y>"}}
	got, err := rr.expandBody(json.RawMessage(`{"a":"{{A}}","n":10.50,"l":["{{A}}",true]}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":"<x&y>","l":["<x&y>",true],"n":10.50}`; string(got) != want {
		t.Errorf("expandBody = %s, want %s", got, want)
	}
	if _, err := rr.expandBody(json.RawMessage(`{"a":"{{B}}"}`)); err == nil {
		t.Error("an unsaved variable in a body expanded")
	}
}

func TestLookupField(t *testing.T) {
	t.Parallel()
	var v any
	dec := json.NewDecoder(strings.NewReader(`{"data":[{"id":"x1","n":7,"ok":true,"o":{}}]}`))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, want string
		ok         bool
	}{
		{"data.0.id", "x1", true},
		{"data.0.n", "7", true},
		{"data.0.ok", "true", true},
		{"data.0.o", "", false},
		{"data.1.id", "", false},
		{"data.x", "", false},
		{"nope", "", false},
	}
	for _, tc := range tests {
		got, ok := lookupField(v, tc.path)
		if got != tc.want || ok != tc.ok {
			t.Errorf("lookupField(%q) = %q, %v; want %q, %v", tc.path, got, ok, tc.want, tc.ok)
		}
	}
}

// fakeHost signs with a fixed string and takes /_sim/ as the control
// namespace.
type fakeHost struct{}

func (fakeHost) Sign(key, method, target, ts, nonce string, body []byte) string {
	return "sig:" + key + ":" + method + ":" + target + ":" + ts + ":" + nonce
}
func (fakeHost) IsControlPath(target string) bool { return strings.HasPrefix(target, "/_sim/") }

// TestRunnerHeaders runs a two-step recipe against a fake server: the
// control step carries the control token and a JSON Content-Type, the api
// step the token, member, idempotency key and a signature over the clock's
// timestamp, then the step's own headers; the saved variable reaches the
// next step; a last answer other than Expect is an *Error of that step.
func TestRunnerHeaders(t *testing.T) {
	t.Parallel()
	var got []http.Header
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/_sim/credentials":
			w.Write([]byte(`{"client_id":"cli","api_key":"key","signing_key":"sk"}`))
		case "/v1/connect/token":
			w.Write([]byte(`{"auth_token":"tok"}`))
		case "/_sim/clock":
			w.Write([]byte(`{"unix":1767225600}`))
		case "/_sim/things":
			got, paths = append(got, r.Header.Clone()), append(paths, r.URL.Path)
			w.WriteHeader(201)
			w.Write([]byte(`{"id":"th_1"}`))
		default:
			got, paths = append(got, r.Header.Clone()), append(paths, r.URL.Path)
			w.WriteHeader(409)
			w.Write([]byte(`{"code":"state_invalid"}`))
		}
	}))
	defer srv.Close()
	var traces []Trace
	rr := &Runner{Host: fakeHost{}, BaseURL: srv.URL, ControlTokenHeader: "X-Ctl", ControlToken: "ctl",
		Trace: func(tr Trace) { traces = append(traces, tr) }}
	r := Recipe{Code: "state_invalid", Expect: Expect{Status: 409, Code: "state_invalid"}, Steps: []Step{
		{Call: "control", Method: "POST", Path: "/_sim/things", Save: map[string]string{"T": "id"}, ExpectStatus: 201},
		{Call: "api", Method: "post", Path: "/v1/things/{{T}}", Member: "m-1", IdempotencyKey: "{{new_uuid:K}}",
			Body: json.RawMessage(`{"a":"{{T}}"}`), Headers: map[string]string{"X-Extra": "{{T}}"}},
	}}
	res, err := rr.Run(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != 409 || res.Code != "state_invalid" {
		t.Errorf("result %+v", res)
	}
	if diff := cmp.Diff([]string{"/_sim/things", "/v1/things/th_1"}, paths); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	if h := got[0]; h.Get("X-Ctl") != "ctl" || h.Get("Content-Type") != "application/json" || h.Get("X-Auth-Token") != "" {
		t.Errorf("control step headers %v", h)
	}
	h := got[1]
	key := rr.vars["K"]
	wantSig := "sig:sk:POST:/v1/things/th_1:1767225600:" + h.Get("X-Nonce")
	for name, want := range map[string]string{"X-Auth-Token": "Bearer tok", "X-On-Behalf-Of": "m-1", "X-Idempotency-Key": key,
		"X-Timestamp": "1767225600", "X-Signature": wantSig, "X-Extra": "th_1", "X-Ctl": "", "Content-Type": "application/json"} {
		if h.Get(name) != want {
			t.Errorf("api step %s = %q, want %q", name, h.Get(name), want)
		}
	}
	if len(traces) != 2 || traces[1].Path != "/v1/things/th_1" || traces[1].Code != "state_invalid" {
		t.Errorf("traces %+v", traces)
	}

	r.Expect = Expect{Status: 404, Code: "not_found"}
	_, err = rr.Run(t.Context(), r)
	var re *Error
	if !errors.As(err, &re) || re.Step != 2 || re.Code != "state_invalid" {
		t.Errorf("err = %v, want an *Error of step 2", err)
	}
	if _, err := rr.Run(t.Context(), Recipe{Code: "x"}); err == nil || err.Error() != "recipe x: no steps" {
		t.Errorf("no steps: %v", err)
	}
}
