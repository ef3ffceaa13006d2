package control

import (
	"encoding/json"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The run of one op, the same for a route and a Go method: the input is
// checked (every argument against its domain, then the input's rules) and
// only then does the transition run, in a kernel step of its own when the
// op runs in a transaction, so that whatever a refused transition wrote is
// undone. A Go method's call is logged as an input first (Invoke); over
// HTTP the timers due run before the answer of a write (Reply). What is
// the simulator's (its transaction, its recorder, its timers, its public
// refusal) the declaring package gives through Host.

// Host is what a run needs of the package that declares the ops, for its
// run x of one op.
type Host[X any] interface {
	// Tx is the transaction x runs in (nil: none, for an unlocked op).
	Tx(x X) *kernel.Tx
	// Begin begins the transaction x runs o in: the state lock, or for a
	// captured op a capture of the state.
	Begin(x X, o *Op[X])
	// Legacy reports that x runs a replayed input of an earlier build,
	// under that build's argument rules (Domain.Legacy).
	Legacy(x X) bool
	// Refused is the declaring package's error for an argument outside its
	// domain.
	Refused(r *Refusal) error
	// LogCall logs a call of the Go method name with args as an input and
	// runs run in its place of the input order.
	LogCall(x X, name string, args []any, run func() error) error
	// RunDue runs the timers due now in x's transaction.
	RunDue(x X)
}

// CheckInput checks every argument of in against its domain (a refusal is
// h.Refused's error), then the input's own rules, the op's Rules.
func CheckInput[X any](h Host[X], x X, o *Op[X], in any) error {
	if err := Check(x, h.Legacy(x), o.Fields, in); err != nil {
		if r, ok := err.(*Refusal); ok {
			return h.Refused(r)
		}
		return err
	}
	if o.Rules != nil {
		return o.Rules(x, in)
	}
	return nil
}

// Run checks every argument of in, then runs the transition: in a step of
// its own (internal/kernel) when the op runs in a transaction that is not
// a capture's, so that when it refuses, whatever it wrote is undone.
func Run[X any](h Host[X], x X, o *Op[X], in any) (any, error) {
	tx := h.Tx(x)
	if tx == nil || o.Captured {
		if err := CheckInput(h, x, o, in); err != nil {
			return nil, err
		}
		return o.Run(x, in)
	}
	var out any
	err := tx.Step(o.StepName(), func() error {
		if err := CheckInput(h, x, o, in); err != nil {
			return err
		}
		var err error
		out, err = o.Run(x, in)
		return err
	})
	return out, err
}

// InTx runs f in the transaction x runs o in, begun and ended around it
// (none for an unlocked op).
func InTx[X any](h Host[X], x X, o *Op[X], f func()) {
	if !o.Unlocked {
		h.Begin(x, o)
		defer h.Tx(x).End()
	}
	f()
}

// Invoke runs o for its Go method with input in: logged as a call of the
// method (unless the op records no call), then checked and run in a
// transaction of its own.
func Invoke[X any](h Host[X], x X, o *Op[X], in any) (any, error) {
	var out any
	run := func() error {
		var err error
		InTx(h, x, o, func() { out, err = Run(h, x, o, in) })
		return err
	}
	if o.NoCall || o.Call == nil {
		return out, run()
	}
	name, args, _ := o.Call(in)
	err := h.LogCall(x, name, args, run)
	return out, err
}

// Reply runs o over HTTP on the decoded input in (derr: the input did not
// decode) and gives the route's answer: its status and value, or the
// error that refused it. The timers due now run before the answer of a
// write (an outcome set to happen immediately).
func Reply[X any](h Host[X], x X, o *Op[X], in any, derr error, write bool) (int, any, error) {
	if derr != nil {
		return 0, nil, derr
	}
	out, err := Run(h, x, o, in)
	if err != nil {
		return 0, nil, err
	}
	if h.Tx(x) != nil && write {
		h.RunDue(x)
	}
	status, v := o.ReplyOf(x, in, out)
	return status, v, nil
}

// RunAction runs the object action o in x's transaction as its route
// does, with the object id and body given: the action's own input,
// checks and transition, then the timers due; the answer is the route's
// JSON, {"ok": true} when it has none, as encoding/json's []byte.
func RunAction[X any](h Host[X], x X, o *Op[X], id string, body []byte) ([]byte, error) {
	in, err := o.Decode(func(string) string { return id }, nil, body)
	if err != nil {
		return nil, err
	}
	out, err := Run(h, x, o, in)
	if err != nil {
		return nil, err
	}
	h.RunDue(x)
	_, v := o.ReplyOf(x, in, out)
	if v == nil {
		v = map[string]any{"ok": true}
	}
	return json.Marshal(v)
}
