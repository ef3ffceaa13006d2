package validate

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// readmeScopes reads the scope table of docs/concepts.md: "METHOD
// /path" to scope.
func readmeScopes(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../../docs/concepts.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `((?:GET|POST|PUT|PATCH|DELETE) /v1/[^`]*)` \\| `([a-z]+:[a-z]+)` \\| (?:contract|simulator) \\|$")
	out := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		out[m[1]] = m[2]
	}
	if len(out) < 40 {
		t.Fatalf("the scope table of docs/concepts.md has %d rows; is its format still | `METHOD /path` | `scope` | basis |?", len(out))
	}
	return out
}

// TestScopesFollowTheREADME checks the scopes of mwallet.yaml against the
// README's scope table and the simulator's scope catalogue: every business
// operation but the token exchange has exactly the table's scope in each of
// its token requirements and names it in its description, every row of the
// table is an operation, and the token response's scopes list exactly the
// catalogue (the scopes a fixture Key holds).
func TestScopesFollowTheREADME(t *testing.T) {
	doc := loadDocs(t).Business
	table := readmeScopes(t)
	ops := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			key := method + " " + path
			ops[key] = true
			if key == "POST /v1/connect/token" {
				continue
			}
			want, ok := table[key]
			if !ok {
				t.Errorf("%s: no row in the scope table of docs/concepts.md", key)
				continue
			}
			if op.Security == nil || len(*op.Security) == 0 {
				t.Errorf("%s: no security requirement of its own (the document's default names no scope)", key)
				continue
			}
			for _, req := range *op.Security {
				for name, scopes := range req {
					if (name == "accessToken" || name == "bearerToken") && !cmp.Equal(scopes, []string{want}) {
						t.Errorf("%s: requirement %s %v, want [%s]", key, name, scopes, want)
					}
				}
				if req["accessToken"] == nil && req["bearerToken"] == nil {
					t.Errorf("%s: a security requirement without the access token: %v", key, req)
				}
			}
			if !strings.Contains(op.Description, "Scope "+want) {
				t.Errorf("%s: the description does not say %q", key, "Scope "+want)
			}
		}
	}
	for key := range table {
		if !ops[key] {
			t.Errorf("the scope table of docs/concepts.md names %s, which mwallet.yaml does not describe", key)
		}
	}

	var enum []string
	items := doc.Components.Schemas["TokenResponse"].Value.Properties["scopes"].Value.Items.Value
	for _, v := range items.Extensions["x-extensible-enum"].([]any) {
		enum = append(enum, fmt.Sprint(v))
	}
	sort.Strings(enum)
	if diff := cmp.Diff(catalogue(t), enum); diff != "" {
		t.Errorf("TokenResponse.scopes lists other scopes than the simulator's catalogue (-catalogue +document):\n%s", diff)
	}
	for key, scope := range table {
		if !contains(enum, scope) {
			t.Errorf("%s needs %s, which TokenResponse.scopes does not list", key, scope)
		}
	}
}

// catalogue returns the scopes of a fresh simulator's fixture Key, sorted:
// the simulator's scope catalogue.
func catalogue(t *testing.T) []string {
	t.Helper()
	sim := simtest.Start(t)
	w := httptest.NewRecorder()
	sim.ServeHTTP(w, httptest.NewRequest("GET", "/_sim/keys/"+sim.Credentials().ClientID, nil))
	var key struct {
		Requested []string `json:"requested_scopes"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &key); err != nil || len(key.Requested) == 0 {
		t.Fatalf("GET /_sim/keys/{client_id}: %d %s (%v)", w.Code, w.Body, err)
	}
	sort.Strings(key.Requested)
	return key.Requested
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
