package controltest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

type line struct{ name string }

// TestAtAndDecls: At hands an op the run's line and transaction, and Decls
// lists the ops' declarations in order.
func TestAtAndDecls(t *testing.T) {
	t.Parallel()
	l, tx := &line{"a"}, &kernel.Tx{}
	if gl, gtx := At(Run[line]{l, tx}); gl != l || gtx != tx {
		t.Errorf("At = %p, %p; want %p, %p", gl, gtx, l, tx)
	}
	ops := []*control.Op[Run[line]]{
		control.Def[Run[line], control.NoInput]{Route: "GET /_sim/a"}.Op(),
		control.Def[Run[line], control.NoInput]{Route: "POST /_sim/a/{id}/b", Action: "a/b", Name: "A.B"}.Op(),
	}
	want := []Decl{{"GET /_sim/a", "", ""}, {"POST /_sim/a/{id}/b", "a/b", "A.B"}}
	if diff := cmp.Diff(want, Decls(ops...)); diff != "" {
		t.Errorf("Decls (-want +got):\n%s", diff)
	}
}

// TestOutcome: an answer, an api.Error's code, the control API's 404 and
// any other error's text.
func TestOutcome(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		out  any
		err  error
		want Result
	}{
		{"answer", map[string]any{"ok": true}, nil, Result{Out: map[string]any{"ok": true}}},
		{"api error", nil, api.InvalidRequest("bad"), Result{Code: "invalid_request"}},
		{"control 404", nil, fmt.Errorf("x %q: %w", "1", api.ErrControlNotFound), Result{Code: "not_found"}},
		{"other", "ignored", errors.New("boom"), Result{Code: "boom"}},
	} {
		if diff := cmp.Diff(tt.want, Outcome(tt.out, tt.err)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
