package control

import (
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// namedBusinessPaths are the business paths the contract names without
// showing their shapes (specification, "Other endpoints named"), which
// faults and requests in progress may target: the simulator serves none
// of them, so an injected fault is the only answer they have.
var namedBusinessPaths = []string{
	"/v1/kyc/sessions", "/v1/members", "/v1/merchant/*", "/v1/withdrawals*", "/v1/withdraw-addresses",
	"/v1/earn/orders", "/v1/exchange/*",
}

// BusinessPath reports a path of the business API: one a business
// endpoint serves (served: a GET of the path is routed, any method
// allowed), one the contract names, or a prefix ending in * of one of
// those (patterns: the business endpoints' route patterns).
func BusinessPath(p string, patterns func() []string, served func(*http.Request) bool) bool {
	if !CleanText(p, 2048) {
		return false
	}
	if prefix, ok := strings.CutSuffix(p, "*"); ok {
		return strings.HasPrefix(prefix, "/") && (strings.HasPrefix("/v1/", prefix) || businessPrefix(prefix, patterns()))
	}
	if !strings.HasPrefix(p, "/v1/") {
		return false
	}
	for _, n := range namedBusinessPaths {
		if prefix, ok := strings.CutSuffix(n, "*"); ok && strings.HasPrefix(p, prefix) || n == p {
			return true
		}
	}
	r, err := http.NewRequest(http.MethodGet, p, nil)
	if err != nil || r.URL.Path != p {
		return false
	}
	return served(r)
}

// businessPrefix reports a prefix of a business route pattern or named
// path.
func businessPrefix(prefix string, patterns []string) bool {
	for _, n := range namedBusinessPaths {
		n = strings.TrimSuffix(n, "*")
		if strings.HasPrefix(n, prefix) || strings.HasPrefix(prefix, n) {
			return true
		}
	}
	for _, tmpl := range patterns {
		if i := strings.IndexByte(tmpl, '{'); i >= 0 {
			if strings.HasPrefix(prefix, tmpl[:i]) {
				return true
			}
			tmpl = tmpl[:i]
		}
		if strings.HasPrefix(tmpl, prefix) {
			return true
		}
	}
	return false
}

// BusinessEndpoint refuses a write method and path that no business
// endpoint serves, allowed giving the methods a request's path is served
// with: the refusal lists every write of endpoints ("POST /v1/..."),
// sorted. It is nil for a write an endpoint serves.
func BusinessEndpoint(method, target string, endpoints []api.Endpoint, allowed func(*http.Request) []string) *Refusal {
	m := strings.ToUpper(strings.TrimSpace(method))
	path, _, _ := strings.Cut(target, "?")
	r, err := http.NewRequest(m, path, nil)
	if err == nil && slices.Contains(allowed(r), m) {
		return nil
	}
	var valid []string
	for _, e := range endpoints {
		if !IsWrite(e.Method) {
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
	return &Refusal{Kind: "business endpoint", Name: m + " " + path, Valid: slices.Compact(valid), Field: "method and path"}
}
