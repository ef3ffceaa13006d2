package gateway

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHeaderRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		method string
		header http.Header
		body   string
		want   string // the refusal's message, "" for none
	}{
		{"one of each", "GET", http.Header{"X-Nonce": {"a"}, "X-Auth-Token": {"t"}}, "", ""},
		{"a header twice", "GET", http.Header{"X-Nonce": {"a", "a"}}, "", "x-nonce is sent more than once; send each header of the contract once"},
		{"same token both ways", "GET", http.Header{"X-Auth-Token": {"Bearer t"}, "Authorization": {"bearer t"}}, "", ""},
		{"different tokens", "GET", http.Header{"X-Auth-Token": {"Bearer t"}, "Authorization": {"Bearer u"}}, "", "x-auth-token and authorization carry different tokens; send one of them"},
		{"write with JSON", "POST", http.Header{"Content-Type": {"application/json; charset=UTF-8"}}, "{}", ""},
		{"write without a body", "POST", nil, "", ""},
		{"read with a body", "GET", nil, "{}", ""},
		{"write without content type", "POST", nil, "{}", "a write with a body needs Content-Type: application/json"},
		{"write with another type", "PUT", http.Header{"Content-Type": {"text/plain\x01"}}, "{}", `Content-Type "text/plain?" is not application/json; the body of a write is JSON`},
		{"another charset", "POST", http.Header{"Content-Type": {"application/json; charset=latin1"}}, "{}", `Content-Type "application/json; charset=latin1" is not application/json; the body of a write is JSON`},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(tt.method, "/v1/x", strings.NewReader(tt.body))
		r.Header = tt.header
		if r.Header == nil {
			r.Header = http.Header{}
		}
		got := ""
		if ae := HeaderAmbiguity(r.Header); ae != nil {
			got = ae.Message
		} else if ae := ContentTypeRule(r, []byte(tt.body)); ae != nil {
			got = ae.Message
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: refusal (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestBearerTokenAndQuote(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]string{"Bearer  abc ": "abc", "BEARER x": "x", "Bearer": "", "Basic abc": "", "abc": ""} {
		if got := BearerToken(v); got != want {
			t.Errorf("BearerToken(%q) = %q, want %q", v, got, want)
		}
	}
	if got, want := QuoteHeader(strings.Repeat("a", 70)), `"`+strings.Repeat("a", 64)+`..."`; got != want {
		t.Errorf("QuoteHeader cuts to %q, want %q", got, want)
	}
}

func TestReadPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		uri  string
		want Path
	}{
		{"/v1/cards?x=1", Path{Sent: "/v1/cards", Clean: "/v1/cards", Escaped: "/v1/cards", Canonical: true}},
		{"/v1/a%2Fb", Path{Sent: "/v1/a%2Fb", Clean: "/v1/a/b", Escaped: "/v1/a%2Fb", Canonical: true}},
		{"//v1/assets", Path{Sent: "//v1/assets", Clean: "//v1/assets", Escaped: "//v1/assets"}},
		{"/v1/%2e%2e/assets", Path{Sent: "/v1/%2e%2e/assets", Clean: "/v1/../assets", Escaped: "/v1/../assets"}},
		{"/v1/cards/", Path{Sent: "/v1/cards/", Clean: "/v1/cards/", Escaped: "/v1/cards/", Canonical: true}},
		{"/%5Fsim/cards", Path{Sent: "/%5Fsim/cards", Clean: "/_sim/cards", Escaped: "/_sim/cards", Canonical: true, Control: true}},
		{"/v1/%zz", Path{Sent: "/v1/%zz", Clean: "/v1/%zz", Escaped: "/v1/%25zz"}},
	}
	for _, tt := range tests {
		r := &http.Request{RequestURI: tt.uri}
		if diff := cmp.Diff(tt.want, ReadPath(r)); diff != "" {
			t.Errorf("ReadPath(%q) (-want +got):\n%s", tt.uri, diff)
		}
	}
	r := httptest.NewRequest("GET", "/v1/cards", nil)
	kept := Path{Sent: "kept"}
	if got := PathOf(WithPath(r, kept)); got != kept {
		t.Errorf("PathOf after WithPath = %+v", got)
	}
	if !IsControlPath("//_sim/x?y") || IsControlPath("/v1/_sim") {
		t.Error("IsControlPath")
	}
}

func TestLiteralPathsAndAllowedMethods(t *testing.T) {
	t.Parallel()
	patterns := []string{"GET /v1/cards", "POST /v1/cards", "GET /v1/cards/{id}", "POST /v1/cards/limits"}
	mux := http.NewServeMux()
	for _, p := range append(patterns, "/") {
		mux.HandleFunc(p, func(http.ResponseWriter, *http.Request) {})
	}
	idx := LiteralPaths(patterns, mux)
	want := map[string][]string{"/v1/cards": {"GET", "HEAD", "POST"}, "/v1/cards/limits": {"POST"}}
	if diff := cmp.Diff(want, idx); diff != "" {
		t.Errorf("LiteralPaths (-want +got):\n%s", diff)
	}
	all := func(string, string) bool { return true }
	none := func(string, string) bool { return false }
	for _, tt := range []struct {
		path   string
		serves func(string, string) bool
		want   []string
	}{
		{"/v1/cards/limits", none, []string{"POST"}},
		{"/v1/cards/c1", all, []string{"GET", "HEAD"}},
		{"/v1/cards/c1", none, nil},
		{"/v1/nothing", all, nil},
	} {
		r := httptest.NewRequest("DELETE", tt.path, nil)
		if diff := cmp.Diff(tt.want, AllowedMethods(idx, mux, r, tt.serves)); diff != "" {
			t.Errorf("AllowedMethods(%s) (-want +got):\n%s", tt.path, diff)
		}
	}
}

func TestIsWrite(t *testing.T) {
	for _, tt := range []struct {
		method string
		want   bool
	}{
		{http.MethodGet, false}, {http.MethodHead, false},
		{http.MethodPost, true}, {http.MethodPut, true}, {http.MethodPatch, true}, {http.MethodDelete, true}, {http.MethodOptions, true},
	} {
		if got := IsWrite(tt.method); got != tt.want {
			t.Errorf("IsWrite(%q) = %v, want %v", tt.method, got, tt.want)
		}
	}
}
