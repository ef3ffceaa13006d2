package tour

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/mwallet/mwallet-go/openapi"
)

// record keeps the first successful call of each operation, so that the
// scope pass can send it again with other Keys.
func (t *tour) record(op string, k call, status int) {
	if status < 200 || status >= 300 || k.token != "" || t.firstOK[op] != nil {
		return
	}
	k.key, k.stepUp = "", "" // a fresh idempotency key; no step-up
	t.firstOK[op], t.firstStatus[op] = &k, status
}

// documentScopes returns the scope each business operation of mwallet.yaml
// needs ("METHOD /template" to scope), from its security requirements:
// every requirement that uses the access token names the same one scope.
func documentScopes(ctx context.Context) (map[string]string, error) {
	loader := openapi3.NewLoader()
	loader.Context = ctx
	doc, err := loader.LoadFromData(openapi.Business())
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.Security == nil {
				return nil, fmt.Errorf("%s %s has no security requirement of its own", method, path)
			}
			scope := ""
			for _, req := range *op.Security {
				for name, scopes := range req {
					if name != "accessToken" && name != "bearerToken" {
						continue
					}
					if len(scopes) != 1 || (scope != "" && scopes[0] != scope) {
						return nil, fmt.Errorf("%s %s: want one scope in every token requirement, got %v", method, path, *op.Security)
					}
					scope = scopes[0]
				}
			}
			if scope != "" {
				out[method+" "+path] = scope
			}
		}
	}
	return out, nil
}

// scopedToken creates a Key with exactly scopes (restricted ones approved;
// the fixture's signing key, so the tour's signatures verify) and returns an
// access token of it. Tokens are kept per scope set.
func (t *tour) scopedToken(scopes []string) string {
	sort.Strings(scopes)
	name := strings.Join(scopes, ",")
	if tok, ok := t.tokens[name]; ok {
		return tok
	}
	t.tokens[name] = ""
	k, err := t.ctl(http.MethodPost, "/_sim/keys", map[string]any{
		"scopes": scopes, "approve_restricted": true, "signing_key": t.signingKey})
	if err != nil {
		t.fail("scopes: create a Key with %v: %v", scopes, err)
		return ""
	}
	a, err := t.exchangeFor(k.str("client_id"), k.str("api_key"))
	if err != nil {
		t.fail("scopes: token of a Key with %v: %v", scopes, err)
		return ""
	}
	t.count("POST /v1/connect/token", a)
	if a.status != http.StatusOK {
		t.fail("scopes: token of a Key with %v: %d %s", scopes, a.status, a.body)
		return ""
	}
	t.tokens[name] = a.str("auth_token")
	return t.tokens[name]
}

// without is catalogue less scope and, for a read scope, the write scope of
// the same resource (write includes read).
func without(catalogue []string, scope string) []string {
	write := strings.TrimSuffix(scope, ":read") + ":write"
	var out []string
	for _, s := range catalogue {
		if s != scope && (!strings.HasSuffix(scope, ":read") || s != write) {
			out = append(out, s)
		}
	}
	return out
}

// scopes sends the first successful call of every operation again with a
// Key that lacks exactly the scope its security requirement names (and,
// for a read scope, the write scope that includes it): 403
// insufficient_scope. Every read is also sent with a Key holding only its
// scope, and, for a read scope, only its write scope: the answer of the
// first call. So the document's scopes are the simulator's, both ways, and
// the scopes the simulator adds (remittances:write, kyc:read, kyc:write)
// are exercised through the validating proxy.
func (t *tour) scopes(ctx context.Context) {
	byOp, err := documentScopes(ctx)
	if err != nil {
		t.fail("scopes: %v", err)
		return
	}
	catalogue := t.catalogue
	if len(catalogue) == 0 {
		t.fail("scopes: the fixture token carries no scopes")
		return
	}
	ops := make([]string, 0, len(t.firstOK))
	for op := range t.firstOK {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	for _, op := range ops {
		scope, ok := byOp[op]
		if !ok {
			t.fail("scopes: %s has no scope in mwallet.yaml", op)
			continue
		}
		k := *t.firstOK[op]
		k.token = t.scopedToken(without(catalogue, scope))
		t.api(op, k, http.StatusForbidden, "insufficient_scope")
		if k.method != http.MethodGet {
			continue
		}
		want := t.firstStatus[op]
		k.token = t.scopedToken([]string{scope})
		t.api(op, k, want, "")
		if write := strings.TrimSuffix(scope, ":read") + ":write"; write != scope && slices.Contains(catalogue, write) {
			k.token = t.scopedToken([]string{write})
			t.api(op, k, want, "")
		}
	}
	for op := range byOp {
		if t.firstOK[op] == nil && op != "POST /v1/connect/token" {
			t.fail("scopes: %s never succeeded in the tour, so its scope was not checked", op)
		}
	}
}
