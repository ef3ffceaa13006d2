package mwallet

import (
	"context"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var updatePendingDoc = flag.Bool("update-pending-doc", false, "rewrite the PendingStore table in docs/operations.md from PendingTable")

// Every documented code has its row, in the order of the code table, and
// every code answered before the idempotency check is a documented one.
func TestPendingTableCoversEveryCode(t *testing.T) {
	t.Parallel()
	var codes []Code
	for _, r := range PendingTable() {
		if r.Code != "" {
			codes = append(codes, r.Code)
		}
	}
	if len(codes) != 53 || !cmp.Equal(codes, codeOrder) {
		t.Fatalf("PendingTable lists %d codes; want the 53 of the code table in its order", len(codes))
	}
	sorted := slices.Clone(codes)
	slices.Sort(sorted)
	if !cmp.Equal(sorted, KnownCodes()) {
		t.Fatal("PendingTable's codes differ from KnownCodes")
	}
	for c := range beforeKeyCodes {
		if !c.Known() {
			t.Errorf("%s is not a documented code", c)
		}
	}
}

// pendingScript answers the n-th business request of one case.
type pendingScript func(w http.ResponseWriter, r *http.Request, n int)

func answerCode(c Code, replayed bool) pendingScript {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		if replayed {
			w.Header().Set("X-Idempotent-Replay", "true")
		}
		status := c.HTTPStatus()
		if status == 0 {
			status = 400
		}
		body := errBody(string(c))
		if c == CodeRateLimited {
			w.Header().Set("Retry-After", "3600")
			body["retry_after"] = 3600
		}
		writeTestJSON(w, status, body)
	}
}

// TestPendingTableIsWhatTheClientDoes drives the client through every row
// of PendingTable against a scripted service and checks that the record is
// kept or deleted as the row says: each code as the first answer, as the
// answer after an attempt that may have run, as the answer to Resume, and
// replayed; then the rows without a code.
func TestPendingTableIsWhatTheClientDoes(t *testing.T) {
	t.Parallel()
	type situation struct {
		name    string
		want    func(PendingRule) PendingDecision
		resume  bool
		script  func(c Code) pendingScript
		maxAtts int
	}
	dropFirst := func(c Code) pendingScript {
		return func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 {
				drop(w, r, false) // may have run
				return
			}
			answerCode(c, false)(w, r, n)
		}
	}
	situations := []situation{
		{"first", func(r PendingRule) PendingDecision { return r.First }, false, func(c Code) pendingScript { return answerCode(c, false) }, 1},
		{"after a may-have-run attempt", func(r PendingRule) PendingDecision { return r.AfterUncertain }, false, dropFirst, 2},
		{"resume", func(r PendingRule) PendingDecision { return r.AfterUncertain }, true, func(c Code) pendingScript { return answerCode(c, false) }, 1},
		{"replayed", func(r PendingRule) PendingDecision { return r.Replayed }, false, func(c Code) pendingScript { return answerCode(c, true) }, 1},
	}
	rows := 0
	for _, row := range PendingTable() {
		if row.Code == "" {
			continue
		}
		rows++
		for _, sit := range situations {
			t.Run(string(row.Code)+"/"+sit.name, func(t *testing.T) {
				t.Parallel()
				want := sit.want(row)
				got, err := runPendingCase(t, sit.script(row.Code), sit.maxAtts, sit.resume)
				if got != want.Keep {
					t.Errorf("record kept = %v after %v; PendingTable says %s (%s)", got, err, want, want.Why)
				}
			})
		}
	}
	// The rows without a code.
	table := map[string]PendingRule{}
	for _, row := range PendingTable() {
		if row.Code == "" {
			table[row.Outcome] = row
		}
	}
	outcomes := []struct {
		outcome string
		script  pendingScript
		resume  bool
		want    func(PendingRule) PendingDecision
		setup   func(f *fakeAPI)
		ctxDone bool
	}{
		{outcome: "2xx", script: func(w http.ResponseWriter, _ *http.Request, _ int) { writeTestJSON(w, 201, map[string]any{"id": "x"}) }},
		{outcome: "2xx", resume: true, script: func(w http.ResponseWriter, _ *http.Request, _ int) { writeTestJSON(w, 201, map[string]any{"id": "x"}) }},
		{outcome: "2xx whose answer cannot be read (AnswerError)", script: func(w http.ResponseWriter, _ *http.Request, _ int) { writeTestJSON(w, 201, []int{1}) }},
		{outcome: "2xx whose answer cannot be read (AnswerError)", resume: true, script: func(w http.ResponseWriter, _ *http.Request, _ int) { writeTestJSON(w, 201, []int{1}) }},
		{outcome: "unknown code (handled as api_error)", script: answerCode("brand_new_code", false)},
		{outcome: "unknown code (handled as api_error)", script: answerCode("brand_new_code", true),
			want: func(r PendingRule) PendingDecision { return r.Replayed }},
		{outcome: "no answer: network error (sent or not), reset, attempt timeout, truncated answer",
			script: func(w http.ResponseWriter, r *http.Request, _ int) { drop(w, r, false) }},
		{outcome: "token exchange failed before a resend",
			script: answerCode(CodeInvalidToken, false),
			setup: func(f *fakeAPI) {
				f.tokenHandler = func(w http.ResponseWriter, r *http.Request, n int64) {
					if n > 1 {
						writeTestJSON(w, 401, errBody("invalid_credentials"))
						return
					}
					writeTestJSON(w, 200, map[string]any{"auth_token": "tok-1", "expired_at": f.clock.Now().Unix() + 1800, "token_type": "Bearer"})
				}
			}},
		{outcome: "nothing sent (the token exchange failed, the context ended or a check failed before the first attempt)",
			ctxDone: true, script: func(w http.ResponseWriter, _ *http.Request, _ int) { writeTestJSON(w, 201, nil) }},
		{outcome: "nothing sent (the token exchange failed, the context ended or a check failed before the first attempt)",
			ctxDone: true, resume: true, script: func(w http.ResponseWriter, _ *http.Request, _ int) { writeTestJSON(w, 201, nil) },
			want: func(r PendingRule) PendingDecision { return r.AfterUncertain }},
	}
	seen := map[string]bool{}
	for i, oc := range outcomes {
		row, ok := table[oc.outcome]
		if !ok {
			t.Fatalf("PendingTable has no row %q", oc.outcome)
		}
		seen[oc.outcome] = true
		want := row.First
		if oc.want != nil {
			want = oc.want(row)
		}
		t.Run(fmt.Sprintf("outcome %d", i), func(t *testing.T) {
			t.Parallel()
			got, err := runPendingCaseWith(t, oc.script, 1, oc.resume, oc.setup, oc.ctxDone)
			if got != want.Keep {
				t.Errorf("%s: record kept = %v after %v; PendingTable says %s", oc.outcome, got, err, want)
			}
		})
	}
	if len(seen) != len(table) {
		t.Errorf("%d rows without a code, %d tested", len(table), len(seen))
	}
	t.Logf("PendingTable: %d code rows x %d situations, %d rows without a code", rows, len(situations), len(table))
}

func runPendingCase(t *testing.T, script pendingScript, maxAttempts int, resume bool) (bool, error) {
	return runPendingCaseWith(t, script, maxAttempts, resume, nil, false)
}

// runPendingCaseWith sends one keyed write (or resumes its record) against
// script and reports whether the record is in the store afterwards.
func runPendingCaseWith(t *testing.T, script pendingScript, maxAttempts int, resume bool, setup func(*fakeAPI), ctxDone bool) (bool, error) {
	t.Helper()
	f := newFakeAPI(t)
	if setup != nil {
		setup(f)
	}
	f.handler = func(w http.ResponseWriter, r *http.Request, _ []byte, n int) { script(w, r, n) }
	store := NewMemoryPendingStore()
	c := f.client(WithPendingStore(store))
	ctx := context.Background()
	if ctxDone {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		ctx = cctx
	}
	var err error
	var out map[string]any // a 2xx answer that is no object cannot be read
	if resume {
		p := PendingRequest{Key: NewIdempotencyKey(), ClientID: testClientID, Method: "POST", Path: "/v1/qrpay/payments",
			Member: "member-1", Body: []byte(`{"code_value":"000201"}`), CreatedAt: f.clock.Now()}
		if perr := store.Put(context.Background(), p); perr != nil {
			t.Fatal(perr)
		}
		_, err = c.Resume(ctx, p, &out, WithMaxAttempts(maxAttempts))
	} else {
		_, err = c.Do(ctx, payReq(), &out, WithMaxAttempts(maxAttempts))
	}
	list, lerr := store.List(context.Background())
	if lerr != nil {
		t.Fatal(lerr)
	}
	return len(list) == 1, err
}

// The table in docs/operations.md is PendingTable, rendered; run
// `go test -run TestPendingDoc -update-pending-doc .` after changing a rule.
func TestPendingDoc(t *testing.T) {
	t.Parallel()
	const path = "docs/operations.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- pending-table: begin -->\n", "<!-- pending-table: end -->\n"
	i, j := strings.Index(string(doc), begin), strings.Index(string(doc), end)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers %q and %q", path, begin, end)
	}
	want := renderPendingTable()
	got := string(doc[i+len(begin) : j])
	if got == want {
		return
	}
	if *updatePendingDoc {
		out := string(doc[:i+len(begin)]) + want + string(doc[j:])
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s differs from PendingTable (run go test -run TestPendingDoc -update-pending-doc .):\n%s", path, cmp.Diff(want, got))
}

func renderPendingTable() string {
	var b strings.Builder
	rows := PendingTable()
	fmt.Fprintf(&b, "%d rows: the 53 codes of the code table, then the outcomes without a code.\n\n", len(rows))
	b.WriteString("| answer | HTTP | answered | first answer | after an attempt that may have run, or to `Resume` | replayed | why (first answer) |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		name, status, stage := r.Outcome, "", ""
		if r.Code != "" {
			name, status = "`"+string(r.Code)+"`", strconv.Itoa(r.HTTPStatus)
			stage = "after the key check"
			if r.BeforeKey {
				stage = "before the key check"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", name, status, stage, r.First, r.AfterUncertain, r.Replayed, r.First.Why)
	}
	return b.String()
}

// The PendingStore doc comment names exactly the codes whose first answer
// keeps the record.
func TestPendingStoreDocNamesTheKeptCodes(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "pending.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var doc string
	ast.Inspect(f, func(n ast.Node) bool {
		if g, ok := n.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, s := range g.Specs {
				if ts := s.(*ast.TypeSpec); ts.Name.Name == "PendingStore" && g.Doc != nil {
					doc = g.Doc.Text()
				}
			}
		}
		return true
	})
	m := regexp.MustCompile(`(?s)Kept after a first answer of:\s+([^.]*)\.`).FindStringSubmatch(doc)
	if m == nil {
		t.Fatalf("the PendingStore doc lacks the sentence \"Kept after a first answer of: ...\":\n%s", doc)
	}
	var named []string
	for _, w := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }) {
		if w != "and" && w != "every" && w != "5xx" {
			named = append(named, w)
		}
	}
	var want []string
	for _, r := range PendingTable() {
		if r.Code != "" && r.First.Keep && r.HTTPStatus < 500 {
			want = append(want, string(r.Code))
		}
	}
	slices.Sort(named)
	slices.Sort(want)
	if !cmp.Equal(named, want) {
		t.Errorf("the PendingStore doc names %v as kept; PendingTable keeps %v (and every 5xx)", named, want)
	}
}
