package control

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// methodRoot is a root of control groups of the test.
type methodRoot struct{ Things *things }

// things is a control group of the test.
type things struct{ n int }

// Add is a Go control method of the group.
func (t *things) Add(n int) int { t.n += n; return t.n }

// TestRegistryMethod: a recorded name resolves to its group's method
// bound to the root, the action name to the action, and a name no op
// declares or one never recorded as a call is refused.
func TestRegistryMethod(t *testing.T) {
	t.Parallel()
	r := NewRegistry[int](nil, "Any", []*Op[int]{
		Def[int, NoInput]{Name: "Things.Add", Args: func(*NoInput) []any { return nil }}.Op(),
		Def[int, NoInput]{Name: "Things.Count", NoCall: true}.Op(),
	})
	root := &methodRoot{Things: &things{}}
	action := func() string { return "action" }
	type result struct {
		Out string
		Err string
	}
	call := func(name string) result {
		m, err := r.Method(root, "Any", reflect.ValueOf(action), name)
		if err != nil {
			return result{Err: err.Error()}
		}
		if name == "Any" {
			return result{Out: m.Call(nil)[0].String()}
		}
		return result{Out: m.Type().String()}
	}
	for _, tt := range []struct {
		name string
		want result
	}{
		{"Any", result{Out: "action"}},
		{"Things.Add", result{Out: "func(int) int"}},
		{"Things.Remove", result{Err: `simulator: replay: no control method "Things.Remove"`}},
		{"Things.Count", result{Err: `simulator: replay: "Things.Count" is never recorded as a call`}},
	} {
		if diff := cmp.Diff(tt.want, call(tt.name)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	if got := BoundMethod(root, "Things.Add").Call([]reflect.Value{reflect.ValueOf(2)})[0].Int(); got != 2 {
		t.Errorf("the bound method added to %d", got)
	}
	if BoundMethod(root, "Widgets.Add").IsValid() {
		t.Error("a field root does not have gave a method")
	}
}
