// Package controltest is what the tests of a line's control ops share: the
// run of one op over a line and a transaction, the declarations of a set of
// ops, and an op's answer or the code of its refusal. Each line's own test
// builders make the line and the transaction.
package controltest

import (
	"errors"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Run is a test's run of one op of the line L: the line and the
// transaction.
type Run[L any] struct {
	Line *L
	Tx   *kernel.Tx
}

// At gives the line and the transaction of a run: the at of a line's
// NewControlOps.
func At[L any](x Run[L]) (*L, *kernel.Tx) { return x.Line, x.Tx }

// Decl is an op's declaration: its route, its object action and its Go
// method.
type Decl struct{ Route, Action, Name string }

// Decls returns the declarations of ops, in order.
func Decls[X any](ops ...*control.Op[X]) []Decl {
	out := make([]Decl, 0, len(ops))
	for _, o := range ops {
		out = append(out, Decl{o.Route, o.Action, o.Name})
	}
	return out
}

// Result is what a run of an op gave: its answer, or the code of its
// refusal (an api.Error's code, "not_found" for the control API's 404,
// the error's text for any other error).
type Result struct {
	Out  any
	Code string
}

// Outcome is the Result of an op's run.
func Outcome(out any, err error) Result {
	var ae *api.Error
	switch {
	case err == nil:
		return Result{Out: out}
	case errors.As(err, &ae):
		return Result{Code: ae.Code}
	case errors.Is(err, api.ErrControlNotFound):
		return Result{Code: "not_found"}
	}
	return Result{Code: err.Error()}
}
