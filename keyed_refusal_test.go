package mwallet_test

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// TestKeyedWriteRefusalCarriesKey: for every keyed write of the route table
// (keyedOps, from writes), input refused before sending gives a
// *mwallet.ParamError (errors.Is ErrInvalidParam, not ErrOutcomeUnknown,
// "nothing was sent") that carries the write's key: the caller's
// (WithIdempotencyKey) or, without one, the key drawn for the call. Two
// refusals per write: the input its method refuses (writes' invalid), and
// StepUpResend given an error that is no step-up challenge. Nothing reaches
// the simulator, not even a token request.
func TestKeyedWriteRefusalCarriesKey(t *testing.T) {
	t.Parallel()
	type row struct {
		op, refusal, key string
	}
	type got struct {
		Param, Code string
		Invalid     bool // errors.Is(err, ErrInvalidParam)
		Unknown     bool // errors.Is(err, ErrOutcomeUnknown)
		Answered    bool // an *Error or a *TransportError in the chain
		NothingSent bool // the text says so
		KeyOK       bool // IdempotencyKeyOf(err) is the caller's key, or a new valid one
		FieldKey    bool // ParamError.IdempotencyKey is IdempotencyKeyOf(err)
		Requests    int  // requests the simulator received during the call
	}
	notStepUp := errors.New("a network error, not a step-up challenge")
	ops := keyedOps(t)
	var rows int
	for _, op := range ops {
		w := writes[op]
		if w.invalid == nil || w.param == "" {
			t.Errorf("%s: a keyed write without an invalid input in writes", op)
			continue
		}
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t)
			cl := sim.Client()
			drawn := map[string]bool{}
			for _, refusal := range []string{"invalid input", "StepUpResend of another error"} {
				for _, keyed := range []bool{true, false} {
					r := row{op: op, refusal: refusal, key: "caller's key"}
					var opts []mwallet.CallOption
					key := ""
					if keyed {
						key = mwallet.NewIdempotencyKey()
						opts = append(opts, mwallet.WithIdempotencyKey(key))
					} else {
						r.key = "none given"
					}
					want := got{Param: w.param, Invalid: true, NothingSent: true, KeyOK: true, FieldKey: true}
					before := len(sim.Requests.List())
					var err error
					if refusal == "invalid input" {
						err = w.invalid(context.Background(), cl, opts...)
					} else {
						want.Param = "StepUpResend"
						// A valid call otherwise: only the refusal stops it.
						err = w.call(context.Background(), cl, validIDs, append(opts, mwallet.StepUpResend(notStepUp)...)...)
					}
					var g got
					var pe *mwallet.ParamError
					if errors.As(err, &pe) {
						g.Param, g.Code = pe.Param, string(pe.Code)
						g.FieldKey = pe.IdempotencyKey != "" && pe.IdempotencyKey == mwallet.IdempotencyKeyOf(err)
					}
					want.Code = g.Code // the code is the method's to choose
					g.Invalid = errors.Is(err, mwallet.ErrInvalidParam)
					g.Unknown = errors.Is(err, mwallet.ErrOutcomeUnknown)
					g.Answered = errors.As(err, new(*mwallet.Error)) || errors.As(err, new(*mwallet.TransportError))
					g.NothingSent = err != nil && strings.Contains(err.Error(), "nothing was sent")
					k := mwallet.IdempotencyKeyOf(err)
					if keyed {
						g.KeyOK = k == key
					} else {
						g.KeyOK = mwallet.ValidIdempotencyKey(k) && !drawn[k]
						drawn[k] = true
					}
					g.Requests = len(sim.Requests.List()) - before
					if diff := cmp.Diff(want, g); diff != "" {
						t.Errorf("%+v: err %v (key %q) (-want +got):\n%s", r, err, k, diff)
					}
				}
			}
		})
		rows += 4
	}
	t.Logf("%d rows: %d keyed writes x 2 refusals x (caller's key, none)", rows, len(ops))
}

// validIDs are ids that make the input of every writeCall's call valid
// without a simulator fixture (for a call refused before it is sent).
var validIDs = map[string]string{"card": "crd_1", "cvv": "123", "expiry": "12/30", "payee": "pye_1",
	"delivery": "whd_1", "client_key": "ck-1"}

// TestKeyedWritesRefuseInsideTheCall: no function of the module's packages
// other than the client's own returns an error of its own before the keyed
// call it makes (a mwallet.Request with Idempotent set, a function of its
// package that builds one, or mwallet.ResumeAs). Input such a function
// refuses goes to the call as Request.Invalid, where the client gives the
// refusal the call's key; a refusal returned before the call would carry
// none. So a new keyed write that checks its input outside the call fails
// here, whatever input TestKeyedWriteRefusalCarriesKey tries.
func TestKeyedWritesRefuseInsideTheCall(t *testing.T) {
	t.Parallel()
	var bad, keyedFuncs []string
	fset := token.NewFileSet()
	for _, dir := range moduleDirs(t) {
		if dir == "." {
			continue // the client itself: its refusals go through refusedBeforeSend
		}
		k, b := keyedRefusals(fset, parsePackage(t, fset, dir))
		keyedFuncs, bad = append(keyedFuncs, k...), append(bad, b...)
	}
	sort.Strings(keyedFuncs)
	// The checker finds the keyed writes: every keyed write of the route
	// table is made by a function it checked.
	for _, op := range keyedOps(t) {
		if !madeBy(keyedFuncs, op) {
			pkg, method, _ := strings.Cut(op, ".")
			t.Errorf("%s: no function of package %s named %s makes a keyed call; the checker misses it", op, pkg, method)
		}
	}
	for _, b := range bad {
		t.Error(b)
	}
	t.Logf("%d functions make a keyed call; %d return statements give an error before it", len(keyedFuncs), len(bad))
}

// keyedRefusals returns the functions of one directory's files that make
// a keyed call (as dir/Recv.Name) and, for each return of a non-nil error
// before a function's first keyed call, a line saying where.
func keyedRefusals(fset *token.FileSet, files []*ast.File) (keyed, bad []string) {
	sc := scopeOf(files)
	// first keyed position of each function (a function calling a keyed
	// function of its package is keyed).
	first := sc.firstPoints(sc.isKeyedPoint)
	for fd, pos := range first {
		name := funcName(fset, fd)
		keyed = append(keyed, name)
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if _, ok := n.(*ast.FuncLit); ok {
				return false
			}
			ret, ok := n.(*ast.ReturnStmt)
			if !ok || ret.End() > pos || len(ret.Results) == 0 {
				return true
			}
			if id, ok := ret.Results[len(ret.Results)-1].(*ast.Ident); ok && id.Name == "nil" {
				return true
			}
			bad = append(bad, fmt.Sprintf("%s: %s returns an error before its keyed call at %s; pass it as mwallet.Request.Invalid",
				fset.Position(ret.Pos()), name, fset.Position(pos)))
			return true
		})
	}
	return keyed, bad
}

// isKeyedPoint reports whether n makes a call keyed: a Request literal
// with Idempotent set (to anything but false), an assignment to a
// Request's Idempotent, a call of mwallet.ResumeAs, or a call of a keyed
// function of the package.
func (sc callScope) isKeyedPoint(n ast.Node, first map[*ast.FuncDecl]token.Pos) bool {
	switch n := n.(type) {
	case *ast.CompositeLit:
		if sel, ok := n.Type.(*ast.SelectorExpr); !ok || sel.Sel.Name != "Request" {
			return false
		}
		for _, e := range n.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Idempotent" {
					v, ok := kv.Value.(*ast.Ident)
					return !ok || v.Name != "false"
				}
			}
		}
	case *ast.AssignStmt:
		for _, l := range n.Lhs {
			if sel, ok := l.(*ast.SelectorExpr); ok && sel.Sel.Name == "Idempotent" {
				return true
			}
		}
	case *ast.CallExpr:
		fun := n.Fun
		if ix, ok := fun.(*ast.IndexExpr); ok { // ResumeAs[T]
			fun = ix.X
		}
		var name string
		switch f := fun.(type) {
		case *ast.Ident:
			name = f.Name
		case *ast.SelectorExpr:
			if x, ok := f.X.(*ast.Ident); ok && x.Name == "mwallet" {
				return f.Sel.Name == "ResumeAs"
			}
			if x, ok := f.X.(*ast.Ident); ok && sc.imports[x.Name] {
				return false // another package's function of the same name
			}
			name = f.Sel.Name
		}
		for _, fd := range sc.funcs[name] {
			if _, ok := first[fd]; ok {
				return true
			}
		}
	}
	return false
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return recvName(t.X)
	}
	return "?"
}

// TestStepUpResendOfAnUnknownOutcome: a QR payment whose every attempt
// ran and lost its answer ends with an unknown outcome that carries no
// step-up challenge. StepUpResend given that error refuses the resend
// before anything is sent; its *mwallet.ParamError says both things: this
// call sent nothing (ErrInvalidParam, not ErrOutcomeUnknown), and the
// earlier payment may have run (UnknownOutcomeKey, its key, in the text
// too). Following it, a resend with that key replays the payment: it ran
// once, and the books balance.
func TestStepUpResendOfAnUnknownOutcome(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	cl := sim.Client()
	ctx := context.Background()
	w := writes["qrpay.Pay"]
	key := mwallet.NewIdempotencyKey()
	su, ok := mwallet.AsStepUp(w.call(ctx, cl, nil, mwallet.WithIdempotencyKey(key)))
	if !ok {
		t.Fatal("the payment asked for no step-up")
	}
	if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
		t.Fatal(err)
	}
	if err := sim.Faults.Inject(simulator.Fault{Method: http.MethodPost, Path: "/v1/qrpay/payments", Kind: simulator.FaultDropAfter, Count: 10}); err != nil {
		t.Fatal(err)
	}
	lost := w.call(ctx, cl, nil, su.Options()...)
	if !errors.Is(lost, mwallet.ErrOutcomeUnknown) || mwallet.IdempotencyKeyOf(lost) != key {
		t.Fatalf("every answer lost: %v, want an unknown outcome under %s", lost, key)
	}
	if err := sim.Faults.Clear(); err != nil {
		t.Fatal(err)
	}

	before := len(sim.Requests.List())
	err := w.call(ctx, cl, nil, mwallet.StepUpResend(lost)...)
	var pe *mwallet.ParamError
	if !errors.As(err, &pe) || pe.Param != "StepUpResend" {
		t.Fatalf("StepUpResend of an unknown outcome: %v, want its refusal", err)
	}
	type said struct {
		Invalid, Unknown, NothingSent, Earlier bool
		Key, UnknownOutcomeKey                 string
		Sent                                   int
	}
	got := said{
		Invalid: errors.Is(err, mwallet.ErrInvalidParam), Unknown: errors.Is(err, mwallet.ErrOutcomeUnknown),
		NothingSent: strings.Contains(err.Error(), "nothing was sent"),
		Earlier:     strings.Contains(err.Error(), "the earlier call with idempotency key "+key+" may have executed: its outcome is unknown"),
		Key:         mwallet.IdempotencyKeyOf(err), UnknownOutcomeKey: pe.UnknownOutcomeKey, Sent: len(sim.Requests.List()) - before,
	}
	if diff := cmp.Diff(said{Invalid: true, NothingSent: true, Earlier: true, Key: key, UnknownOutcomeKey: key}, got); diff != "" {
		t.Errorf("refusal %v (-want +got):\n%s", err, diff)
	}

	// Following it: the same payment, with that key.
	var resp *mwallet.Response
	opts := []mwallet.CallOption{mwallet.WithIdempotencyKey(pe.UnknownOutcomeKey), mwallet.WithResponse(&resp)}
	err = w.call(ctx, cl, nil, opts...)
	if su, ok := mwallet.AsStepUp(err); ok {
		if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
			t.Fatal(err)
		}
		err = w.call(ctx, cl, nil, append(opts, mwallet.WithStepUp(su.ChallengeID))...)
	}
	if err != nil || !resp.Replayed {
		t.Errorf("resend with UnknownOutcomeKey: %v (replayed %v), want the payment replayed", err, resp != nil && resp.Replayed)
	}
	ran := 0
	for _, q := range sim.Requests.List() {
		if q.Path == "/v1/qrpay/payments" && q.IdempotencyKey == key && !q.Replay && (q.Status == http.StatusCreated || q.Fault == string(simulator.FaultDropAfter)) {
			ran++
		}
	}
	if ran != 1 {
		t.Errorf("the payment ran %d times, want once", ran)
	}
}
