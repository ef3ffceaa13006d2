package mwallet

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRouteOfEveryEndpoint: every endpoint of the scope table of docs/concepts.md (and
// the token exchange) is listed with an operation, a concrete path of it
// (identifiers in place of {id}) maps back to its template, and the list
// holds nothing the table does not. Paths the SDK does not list keep their
// literal segments and lose their identifiers.
func TestRouteOfEveryEndpoint(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("docs/concepts.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `((?:GET|POST|DELETE) /v1/[^`]*)` \\| `[a-z]+:[a-z]+` \\|")
	endpoints := []string{"POST /v1/connect/token"}
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		endpoints = append(endpoints, m[1])
	}
	if len(endpoints) < 40 {
		t.Fatalf("found %d endpoints in the scope table of docs/concepts.md", len(endpoints))
	}
	ids := []string{"crd_0f5c2f7e-1111-4a53-9b0e-8a6c2b3d4e5f", "qrp_1", "42", "member-1"}
	listed := map[string]bool{}
	for _, r := range routes {
		listed[r.method+" "+r.template] = true
	}
	seenOps := map[string]string{}
	for i, ep := range endpoints {
		method, template, _ := strings.Cut(ep, " ")
		path := strings.ReplaceAll(template, "{id}", ids[i%len(ids)])
		gotTemplate, op := routeOf(method, path)
		if gotTemplate != template || op == "" {
			t.Errorf("routeOf(%s, %s) = %q, %q; want %q and an operation", method, path, gotTemplate, op, template)
		}
		if prev, dup := seenOps[op]; dup {
			t.Errorf("operation %s names both %s and %s", op, prev, ep)
		}
		seenOps[op] = ep
		delete(listed, ep)
	}
	for ep := range listed {
		t.Errorf("routes lists %s, which the scope table of docs/concepts.md does not", ep)
	}

	unknown := []struct{ method, path, template string }{
		{"GET", "/v1/cards/products", "/v1/cards/products"}, // a literal beats {id}
		{"GET", "/v1/cards/crd_1/topups/estimate", "/v1/cards/{id}/topups/estimate"},
		{"GET", "/v1/future/things/thg_123", "/v1/future/things/{id}"},
		{"POST", "/v1/future/things/abc%2Fdef/go", "/v1/future/things/{id}/go"},
		{"GET", "/v1/kyc/", "/v1/kyc/"},
		{"DELETE", "/v1/cards/crd_1", "/v1/cards/{id}"},
	}
	for _, u := range unknown {
		got, _ := routeOf(u.method, u.path)
		if diff := cmp.Diff(u.template, got); diff != "" {
			t.Errorf("routeOf(%s, %s) (-want +got): %s", u.method, u.path, diff)
		}
	}
}
