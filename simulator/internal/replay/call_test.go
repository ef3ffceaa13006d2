package replay

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

type callArg struct {
	N        int `json:"n"`
	Prepared bool
}

// callee stands for a control type whose methods a replay calls by name.
type callee struct{ got []any }

func (c *callee) Set(a callArg, s string) error {
	c.got = append(c.got, a, s)
	if s == "fail" {
		return errors.New("refused")
	}
	return nil
}

func (c *callee) Add(names ...string) { c.got = append(c.got, names) }

// TestCall holds the replay of a recorded Go call: its arguments decoded
// into the method's types and prepared, a variadic method, the method's
// error reported, and the calls a recording cannot make refused.
func TestCall(t *testing.T) {
	t.Parallel()
	args := func(s ...string) []json.RawMessage {
		out := make([]json.RawMessage, len(s))
		for i, v := range s {
			out[i] = json.RawMessage(v)
		}
		return out
	}
	tests := []struct {
		name, method string
		in           recfile.Input
		got          []any
		failed       bool
		err          string
	}{
		{name: "call", method: "Set", in: recfile.Input{Call: "X.Set", Args: args(`{"n":2}`, `"s"`)}, got: []any{callArg{N: 2, Prepared: true}, "s"}},
		{name: "its error", method: "Set", in: recfile.Input{Call: "X.Set", Args: args(`{"n":1}`, `"fail"`)}, got: []any{callArg{N: 1, Prepared: true}, "fail"}, failed: true},
		{name: "variadic", method: "Add", in: recfile.Input{Call: "X.Add", Args: args(`["a","b"]`)}, got: []any{[]string{"a", "b"}}},
		{name: "arity", method: "Set", in: recfile.Input{Seq: 4, Call: "X.Set", Args: args(`{}`)}, err: "simulator: replay: input 4: X.Set takes 2 arguments, the recording has 1"},
		{name: "type", method: "Set", in: recfile.Input{Seq: 5, Call: "X.Set", Args: args(`{}`, `3`)}, err: "simulator: replay: input 5: X.Set argument 1: json: cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &callee{}
			failed, err := Call(reflect.ValueOf(c).MethodByName(tt.method), &tt.in, func(arg any) {
				if a, ok := arg.(*callArg); ok {
					a.Prepared = true
				}
			})
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				if len(c.got) != 0 {
					t.Errorf("a refused call ran: %v", c.got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if failed != tt.failed {
				t.Errorf("failed = %v, want %v", failed, tt.failed)
			}
			if diff := cmp.Diff(tt.got, c.got); diff != "" {
				t.Errorf("the method got (-want +got):\n%s", diff)
			}
		})
	}
}
