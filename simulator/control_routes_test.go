package simulator_test

import (
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// controlTable reads the Control API table of guide/control-api.md: for each row, the
// routes of its first cell ("METHOD /_sim/..."; a cell item "/x" after a
// full route is that route with its last segment replaced by x) and the Go
// methods of its last cell ("sim.Group.Method").
func controlTable(t *testing.T) (routes map[string]bool, methods map[string][]string) {
	t.Helper()
	b, err := os.ReadFile("guide/control-api.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "\n## Control API\n")
	if start < 0 {
		t.Fatal("guide/control-api.md has no Control API section")
	}
	text = text[start+1:]
	if end := strings.Index(text[3:], "\n## "); end >= 0 {
		text = text[:end+3]
	}
	quoted := regexp.MustCompile("`([^`]*)`")
	goMethod := regexp.MustCompile(`\bsim\.([A-Z]\w*)\.([A-Z]\w*)`)
	routes, methods = map[string]bool{}, map[string][]string{}
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, " | ")
		var rowRoutes []string
		last := ""
		for _, m := range quoted.FindAllStringSubmatch(cells[0], -1) {
			item := m[1]
			switch {
			case regexp.MustCompile(`^(GET|POST|DELETE) /_sim`).MatchString(item):
				last = item
			case strings.HasPrefix(item, "/") && last != "":
				item = last[:strings.LastIndex(last, "/")] + item
			default:
				continue
			}
			rowRoutes = append(rowRoutes, item)
			routes[item] = true
		}
		for _, m := range goMethod.FindAllStringSubmatch(cells[len(cells)-1], -1) {
			name := m[1] + "." + m[2]
			methods[name] = append(methods[name], rowRoutes...)
		}
	}
	if len(routes) == 0 {
		t.Fatal("no routes in the Control API table")
	}
	return routes, methods
}

// normalize replaces every path parameter ({id}, {member}, ...) by {}.
func normalize(route string) string {
	return regexp.MustCompile(`\{[^}]*\}`).ReplaceAllString(route, "{}")
}

// goOnly lists the grouped methods that are Go helpers around the
// simulator rather than controls of it: they change no state, so they have
// no route, and each says why.
var goOnly = map[string]string{
	"Clock.SleepFunc":  "returns a sleep function for Go waits that moves the simulator clock instead of sleeping",
	"Clock.Sleep":      "the SDK client's wait (mwallet.Clock): moves the simulator clock instead of sleeping, through Advance",
	"Webhooks.Handler": "returns an http.Handler that verifies deliveries on the simulator's clock, for a receiver inside the test process",
}

// TestControlRoutes holds the Control API table of guide/control-api.md to the
// simulator both ways: every exported method of every grouped field
// (sim.Cards, sim.QRPay, ...) has a route in the table; every route in the
// table is served; every control route and object action the simulator
// registers is in the table.
func TestControlRoutes(t *testing.T) {
	t.Parallel()
	routes, methods := controlTable(t)
	sim := simtest.Start(t)

	// Go methods to routes.
	st := reflect.TypeOf(sim).Elem()
	groups := 0
	for i := 0; i < st.NumField(); i++ {
		f := st.Field(i)
		if !f.IsExported() || f.Type.Kind() != reflect.Pointer {
			continue
		}
		groups++
		for j := 0; j < f.Type.NumMethod(); j++ {
			name := f.Name + "." + f.Type.Method(j).Name
			if goOnly[name] != "" {
				continue
			}
			if len(methods[name]) == 0 {
				t.Errorf("sim.%s has no route in the Control API table of guide/control-api.md", name)
			}
		}
	}
	if groups < 10 {
		t.Fatalf("found %d grouped fields on Simulator", groups)
	}

	// Routes in the table are served.
	sample := regexp.MustCompile(`\{[^}]*\}`)
	for r := range routes {
		method, path, _ := strings.Cut(r, " ")
		if r == "POST /_sim/{collection}/{id}/{action}" {
			continue // the generic form of the object actions
		}
		if !simulator.ControlRouteServed(sim, method, sample.ReplaceAllString(path, "x1")) {
			t.Errorf("guide/control-api.md lists %s, which the simulator does not serve", r)
		}
	}

	// Registered routes and actions are in the table.
	listed := map[string]bool{}
	for r := range routes {
		listed[normalize(r)] = true
	}
	for _, p := range simulator.ControlRoutes(sim) {
		if strings.Contains(p, "{rest...}") {
			continue
		}
		if !strings.Contains(p, " ") {
			p = "GET " + p // a pattern without a method serves every method
		}
		if !listed[normalize(p)] {
			t.Errorf("control route %s is not in the Control API table of guide/control-api.md", p)
		}
	}
	for _, key := range sim.Actions() {
		i := strings.LastIndex(key, "/")
		withID := "POST /_sim/" + key[:i] + "/{}/" + key[i+1:]
		withoutID := "POST /_sim/" + key
		if !listed[withID] && !listed[withoutID] {
			t.Errorf("control action %s is not in the Control API table of guide/control-api.md", key)
		}
	}
	var names []string
	for n := range methods {
		names = append(names, n)
	}
	sort.Strings(names)
	t.Logf("%d routes, %d Go methods in the Control API table", len(routes), len(names))
}
