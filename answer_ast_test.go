package mwallet_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ownErrorsAfterTheCall lists the functions that may return an error of
// their own after a call they made, and why that error is not about
// reading an answer. Every entry must still be found.
var ownErrorsAfterTheCall = map[string]string{
	// A wait ends on the caller's context, or on a read's error, between
	// reads: the reads themselves ended.
	"qrpay/Client.WaitForOutcome": "the wait's own end (its context) between reads",
	// Look-ups through a list: not finding the item is the answer.
	"remittance/Client.FindPayee": "ErrPayeeNotFound: the list was read, the payee is not in it",
	"deposits/Client.Get":         "a reference holding '/' is looked up in the list: none is not_found, as the direct read answers",
}

// TestProductMethodsReadAnswersInsideTheCall: no function of the module's
// packages other than the client's own returns an error of its own after
// a call it makes (mwallet.Call, ResumeAs, Pages or Iterate, or a function
// of its package that makes one), except those listed in
// ownErrorsAfterTheCall. Reading the answer (amounts at the catalogue's
// ledger_scale, ids, statuses) is done inside the call, by the result's
// UnmarshalJSON or mwallet.AnswerReader, where a failure is an
// *mwallet.AnswerError that says the call ran and carries its key; an
// error returned after the call would carry none and could say nothing
// was sent. So a new method that reads its answer after the call fails
// here, whatever TestAnswerUnreadableClass tries. Only reads may be
// listed: no write (a function that makes a keyed call) is.
func TestProductMethodsReadAnswersInsideTheCall(t *testing.T) {
	t.Parallel()
	var bad, calling []string
	found := map[string]bool{}
	listed := 0
	fset := token.NewFileSet()
	for _, dir := range moduleDirs(t) {
		if dir == "." {
			continue // the client itself: the call reads its answer (answer.go)
		}
		files := parsePackage(t, fset, dir)
		keyed, _ := keyedRefusals(fset, files)
		for _, k := range keyed {
			if _, ok := ownErrorsAfterTheCall[k]; ok {
				t.Errorf("ownErrorsAfterTheCall lists %s, a write (it makes a keyed call): a write reads its answer inside the call", k)
			}
		}
		c, b := errorsAfterTheCall(fset, files)
		calling = append(calling, c...)
		for _, line := range b {
			name, _, _ := strings.Cut(line, " ")
			if _, ok := ownErrorsAfterTheCall[name]; ok {
				found[name] = true
				listed++
				continue
			}
			bad = append(bad, line)
		}
	}
	for name := range ownErrorsAfterTheCall {
		if !found[name] {
			t.Errorf("ownErrorsAfterTheCall lists %s, which no longer returns an error of its own after its call; remove it", name)
		}
	}
	sort.Strings(calling)
	// The checker sees every product method of the route table.
	for _, op := range []string{"qrpay.Pay", "qrpay.Order", "cards.Apply", "deposits.Create", "remittance.Create", "kyc.ProfileSession", "webhooks.Redeliver", "members.Get"} {
		if !madeBy(calling, op) {
			pkg, method, _ := strings.Cut(op, ".")
			t.Errorf("%s: the checker finds no function of package %s named %s that makes a call", op, pkg, method)
		}
	}
	for _, b := range bad {
		t.Error(b)
	}
	t.Logf("%d functions make a call; %d statements give an error of their own after it (%d in the %d functions listed as not about the answer)",
		len(calling), len(bad)+listed, listed, len(found))
}

// madeBy reports whether one of funcs (each "dir/Recv.Name", as the go/ast
// checks list them) is op's method ("pkg.Method" of the route table).
func madeBy(funcs []string, op string) bool {
	pkg, method, _ := strings.Cut(op, ".")
	for _, f := range funcs {
		if strings.HasPrefix(f, pkg+"/") && strings.HasSuffix(f, "."+method) {
			return true
		}
	}
	return false
}

// callScope is what the go/ast checks need of a package: its functions by
// name (a method name may be shared by several types) and the names of the
// packages its files import.
type callScope struct {
	funcs   map[string][]*ast.FuncDecl
	imports map[string]bool
}

// scopeOf indexes files.
func scopeOf(files []*ast.File) callScope {
	sc := callScope{funcs: map[string][]*ast.FuncDecl{}, imports: map[string]bool{}}
	for _, f := range files {
		for _, im := range f.Imports {
			name := strings.Trim(im.Path.Value, `"`)
			name = name[strings.LastIndex(name, "/")+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			sc.imports[name] = true
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				sc.funcs[fd.Name.Name] = append(sc.funcs[fd.Name.Name], fd)
			}
		}
	}
	return sc
}

// firstPoints returns the position of the first node of each function for
// which point holds, found until nothing changes: point may hold for a
// call of a function that has one.
func (sc callScope) firstPoints(point func(n ast.Node, first map[*ast.FuncDecl]token.Pos) bool) map[*ast.FuncDecl]token.Pos {
	first := map[*ast.FuncDecl]token.Pos{}
	for changed := true; changed; {
		changed = false
		for _, fds := range sc.funcs {
			for _, fd := range fds {
				pos := token.NoPos
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					if point(n, first) && (pos == token.NoPos || n.Pos() < pos) {
						pos = n.Pos()
					}
					return true
				})
				if pos != token.NoPos && first[fd] != pos {
					first[fd], changed = pos, true
				}
			}
		}
	}
	return first
}

// funcName names fd as dir/Recv.Name.
func funcName(fset *token.FileSet, fd *ast.FuncDecl) string {
	name := fd.Name.Name
	if fd.Recv != nil && len(fd.Recv.List) == 1 {
		name = recvName(fd.Recv.List[0].Type) + "." + name
	}
	return filepath.Base(filepath.Dir(fset.Position(fd.Pos()).Filename)) + "/" + name
}

// isCallPoint reports whether n calls mwallet.Call, ResumeAs, Pages or
// Iterate, or a function of the package that makes such a call.
func (sc callScope) isCallPoint(n ast.Node, calls map[*ast.FuncDecl]token.Pos) bool {
	ce, ok := n.(*ast.CallExpr)
	if !ok {
		return false
	}
	fun := ce.Fun
	if ix, ok := fun.(*ast.IndexExpr); ok { // Call[T]
		fun = ix.X
	}
	var name string
	switch f := fun.(type) {
	case *ast.Ident:
		name = f.Name
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok && x.Name == "mwallet" {
			switch f.Sel.Name {
			case "Call", "ResumeAs", "Pages", "Iterate":
				return true
			}
			return false
		}
		if x, ok := f.X.(*ast.Ident); ok && sc.imports[x.Name] {
			return false // strconv.Quote is not the package's Quote
		}
		name = f.Sel.Name
	}
	for _, fd := range sc.funcs[name] {
		if _, ok := calls[fd]; ok {
			return true
		}
	}
	return false
}

// errorsAfterTheCall returns the functions of one directory's files that
// make a call (as dir/Recv.Name) and, for each function that returns an
// error, a line for each statement after its first call that gives an
// error of its own: a return whose error is not nil, not a call and not a
// variable assigned from one, or an assignment of such a variable from
// anything else.
func errorsAfterTheCall(fset *token.FileSet, files []*ast.File) (calling, bad []string) {
	sc := scopeOf(files)
	first := sc.firstPoints(sc.isCallPoint)
	for fd, pos := range first {
		name := funcName(fset, fd)
		calling = append(calling, name)
		if !returnsError(fd) {
			continue
		}
		// The error variables assigned from a call.
		callErr := map[string]bool{}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok && len(as.Rhs) == 1 && sc.isCallPoint(as.Rhs[0], first) {
				if id, ok := as.Lhs[len(as.Lhs)-1].(*ast.Ident); ok && id.Name != "_" {
					callErr[id.Name] = true
				}
			}
			return true
		})
		report := func(n ast.Node, what string) {
			bad = append(bad, fmt.Sprintf("%s %s at %s after its call at %s; read the answer inside the call (UnmarshalJSON or mwallet.AnswerReader)",
				name, what, fset.Position(n.Pos()), fset.Position(pos)))
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if _, ok := n.(*ast.FuncLit); ok {
				return false
			}
			if n == nil || n.Pos() < pos {
				return true
			}
			switch s := n.(type) {
			case *ast.AssignStmt:
				if len(s.Rhs) == 1 && sc.isCallPoint(s.Rhs[0], first) {
					return true
				}
				for _, l := range s.Lhs {
					if id, ok := l.(*ast.Ident); ok && callErr[id.Name] {
						report(s, "sets "+id.Name+" to an error of its own")
					}
				}
			case *ast.ReturnStmt:
				if len(s.Results) == 0 {
					return true
				}
				last := s.Results[len(s.Results)-1]
				if id, ok := last.(*ast.Ident); ok && (id.Name == "nil" || callErr[id.Name]) {
					return true
				}
				if len(s.Results) == 1 && sc.isCallPoint(last, first) {
					return true
				}
				if ce, ok := last.(*ast.CallExpr); ok && sc.isCallPoint(ce, first) {
					return true
				}
				report(s, "returns an error of its own")
			}
			return true
		})
	}
	return calling, bad
}

// returnsError reports whether fd's last result is an error.
func returnsError(fd *ast.FuncDecl) bool {
	r := fd.Type.Results
	if r == nil || len(r.List) == 0 {
		return false
	}
	id, ok := r.List[len(r.List)-1].Type.(*ast.Ident)
	return ok && id.Name == "error"
}

// TestErrorsAfterTheCallChecker: the checker finds each shape of an error
// returned after the call, and none in the shapes that hand the reading
// to the call.
func TestErrorsAfterTheCallChecker(t *testing.T) {
	t.Parallel()
	src := `package p

func (c *Client) Wraps(ctx context.Context) (*Order, error) {
	o, err := mwallet.Call[Order](ctx, c.caller, req)
	if err != nil {
		return nil, err
	}
	if err := o.check(ctx); err != nil {
		return nil, fmt.Errorf("order %s: %w", o.ID, err)
	}
	return o, nil
}

func (c *Client) Reassigns(ctx context.Context) (*Order, error) {
	o, err := mwallet.ResumeAs[Order](ctx, c.caller, p, "op")
	if err != nil {
		return nil, err
	}
	err = o.check(ctx)
	return o, err
}

func (c *Client) Shadows(ctx context.Context) (*Order, error) {
	o, err := mwallet.Call[Order](ctx, c.caller, req)
	if err != nil {
		return nil, err
	}
	if err := o.check(ctx); err != nil {
		return nil, err
	}
	return o, nil
}

func (c *Client) Through(ctx context.Context) (*Order, error) {
	o, err := c.Wraps(ctx)
	if err != nil {
		return nil, err
	}
	if o.ID == "" {
		return nil, errors.New("no id")
	}
	return o, nil
}

func (c *Client) Clean(ctx context.Context) (*Order, error) {
	body, err := build()
	o, err := mwallet.Call[Order](ctx, c.caller, &mwallet.Request{Invalid: err})
	if err != nil {
		return nil, err
	}
	o.Existing = o.Response.StatusCode == 200
	return o, nil
}

func (c *Client) Direct(ctx context.Context) (*Order, error) {
	return mwallet.Call[Order](ctx, c.caller, req)
}

func (c *Client) List(ctx context.Context) iter.Seq2[Order, error] {
	return mwallet.Iterate[Order](ctx, c.caller, req, mwallet.ListParams{})
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	calling, bad := errorsAfterTheCall(fset, []*ast.File{f})
	sort.Strings(calling)
	var who []string
	for _, b := range bad {
		name, rest, _ := strings.Cut(b, " ")
		what, _, _ := strings.Cut(rest, " at ")
		who = append(who, name+" "+what)
	}
	sort.Strings(who)
	want := []string{
		"./Client.Reassigns sets err to an error of its own",
		"./Client.Shadows sets err to an error of its own",
		"./Client.Through returns an error of its own",
		"./Client.Wraps returns an error of its own",
		"./Client.Wraps sets err to an error of its own",
	}
	if diff := cmp.Diff(want, who); diff != "" {
		t.Errorf("found (-want +got):\n%s\nall: %q", diff, bad)
	}
	if diff := cmp.Diff([]string{"./Client.Clean", "./Client.Direct", "./Client.List", "./Client.Reassigns", "./Client.Shadows", "./Client.Through", "./Client.Wraps"}, calling); diff != "" {
		t.Errorf("calling (-want +got):\n%s", diff)
	}
}
