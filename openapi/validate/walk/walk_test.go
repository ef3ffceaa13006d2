package walk

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/openapi/validate"
	"github.com/mwallet/mwallet-go/simulator"
)

var (
	docsOnce sync.Once
	docs     *validate.Documents
	docsErr  error
)

func newChecker(t *testing.T) *validate.Checker {
	t.Helper()
	docsOnce.Do(func() { docs, docsErr = validate.Load(context.Background()) })
	if docsErr != nil {
		t.Fatal(docsErr)
	}
	c, err := validate.NewChecker(docs)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newSim starts a simulator for one test; it is closed when the test ends.
func newSim(t *testing.T, opts ...simulator.Option) *simulator.Simulator {
	t.Helper()
	sim, err := simulator.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Close)
	return sim
}

func run(t *testing.T, cfg Config) *Result {
	t.Helper()
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestWalkSameSeedSameRequests: the same seed sends the same requests byte
// for byte to a fresh simulator; another seed sends others.
func TestWalkSameSeedSameRequests(t *testing.T) {
	t.Parallel()
	walk := func(seed uint64) *Result {
		return run(t, Config{Seed: seed, Steps: 400, Targets: []string{newSim(t).URL()}})
	}
	a, b, c := walk(7), walk(7), walk(8)
	if a.RequestDigest != b.RequestDigest || a.Requests != b.Requests {
		t.Errorf("seed 7 twice: %d requests digest %s, then %d requests digest %s", a.Requests, a.RequestDigest, b.Requests, b.RequestDigest)
	}
	if diff := cmp.Diff(a.PerOperation, b.PerOperation); diff != "" {
		t.Errorf("seed 7 twice, requests per operation (-first +second):\n%s", diff)
	}
	if a.RequestDigest == c.RequestDigest {
		t.Errorf("seeds 7 and 8 sent the same requests (digest %s)", a.RequestDigest)
	}
	for _, r := range []*Result{a, b, c} {
		if r.Steps != 400 || r.Requests < 400 {
			t.Errorf("seed %d: %d steps, %d requests; want 400 steps and at least as many requests", r.Seed, r.Steps, r.Requests)
		}
	}
}

// TestWalkTwoSimulatorsAgree: two simulators started alike answer a walk
// alike, every exchange validates against both documents, the books hold,
// and the walk reached every business operation of mwallet.yaml.
func TestWalkTwoSimulatorsAgree(t *testing.T) {
	t.Parallel()
	check := newChecker(t)
	res := run(t, Config{Seed: 3, Steps: 2500, Targets: []string{newSim(t).URL(), newSim(t).URL()}, Checker: check})
	for _, d := range res.Diffs {
		t.Errorf("difference: %s", d)
	}
	for _, v := range check.Violations() {
		t.Errorf("violation: %s", v)
	}
	if diff := cmp.Diff([]string{"", ""}, res.Books); diff != "" {
		t.Errorf("books at the end (-want +got):\n%s", diff)
	}
	var missing []string
	for _, op := range check.BusinessOperations() {
		if !strings.HasPrefix(op, "webhook ") && res.PerOperation[op] == 0 {
			missing = append(missing, op)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("business operations the walk never sent: %s", strings.Join(missing, ", "))
	}
	// Every control operation but those NotWalked names (with its reason).
	missing = nil
	for _, op := range check.ControlOperations() {
		if check.Counts.PerOperation[op] == 0 && !slices.Contains(NotWalked, op) {
			missing = append(missing, op)
		}
		if check.Counts.PerOperation[op] > 0 && slices.Contains(NotWalked, op) {
			t.Errorf("%s is walked but listed in NotWalked", op)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("control operations the walk never sent: %s", strings.Join(missing, ", "))
	}
	if res.Webhooks == 0 {
		t.Error("no webhook delivery received")
	}
	// Broken and faulted requests are part of every walk.
	if check.Counts.RefusedInvalid == 0 {
		t.Error("no request refused as invalid: the walk breaks none on purpose")
	}
}

// TestWalkFindsDifferences: simulators seeded differently answer with
// other ids, and the walk reports each such answer with the request and
// both answers.
func TestWalkFindsDifferences(t *testing.T) {
	t.Parallel()
	res := run(t, Config{Seed: 1, Steps: 50, KeepDiffs: 5,
		Targets: []string{newSim(t, simulator.WithSeed(1)).URL(), newSim(t, simulator.WithSeed(2)).URL()}})
	if res.DiffCount == 0 || len(res.Diffs) != 5 {
		t.Fatalf("%d differences, %d kept; want some, 5 kept", res.DiffCount, len(res.Diffs))
	}
	d := res.Diffs[0]
	if d.Op == "" || d.Kind == "" || d.Sent == "" || len(d.Answers) != 2 || d.Answers[0] == d.Answers[1] {
		t.Errorf("first difference incomplete: %+v", d)
	}
	if !strings.Contains(d.String(), d.Sent[:10]) || !strings.HasPrefix(d.Key(), d.Op+" "+d.Kind) {
		t.Errorf("difference text: %q, key %q", d.String(), d.Key())
	}
}

// TestNormalise: what the comparison reads as equal, with why.
func TestNormalise(t *testing.T) {
	t.Parallel()
	hdr := func(kv ...string) map[string][]string {
		h := map[string][]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			h[kv[i]] = append(h[kv[i]], kv[i+1])
		}
		return h
	}
	const a, b = "http://127.0.0.1:1000", "http://127.0.0.1:2000"
	dated := func(d string) *answer { return &answer{status: 200, header: hdr("Date", d)} }
	if normalise(dated("Mon, 01 Jan 2026 00:00:00 GMT"), a, true) == normalise(dated("Mon, 01 Jan 2026 00:00:01 GMT"), b, true) {
		t.Error("CompareDate: two Date headers compared equal")
	}
	for _, tc := range []struct {
		name  string
		x, y  *answer
		equal bool
	}{
		{"Date follows the wall clock in older builds", &answer{status: 200, header: hdr("Date", "Mon, 01 Jan 2026 00:00:00 GMT")}, &answer{status: 200, header: hdr("Date", "Thu, 26 Nov 2026 23:00:00 GMT")}, true},
		{"each simulator's own base URL", &answer{status: 201, body: []byte(`{"hosted_url":"` + a + `/_sim/step-up/x"}`)}, &answer{status: 201, body: []byte(`{"hosted_url":"` + b + `/_sim/step-up/x"}`)}, true},
		{"state digests are keyed per process", &answer{status: 200, body: []byte(`{"digest":"sha256:` + strings.Repeat("a", 64) + `"}`)}, &answer{status: 200, body: []byte(`{"digest":"sha256:` + strings.Repeat("b", 64) + `"}`)}, true},
		{"the host and the client's address in a recorded input", &answer{status: 200, body: []byte(`{"host":"127.0.0.1:1000","remote":"127.0.0.1:5000"}`)}, &answer{status: 200, body: []byte(`{"host":"127.0.0.1:2000","remote":"127.0.0.1:6000"}`)}, true},
		{"another status", &answer{status: 200}, &answer{status: 201}, false},
		{"another request id", &answer{status: 200, header: hdr("X-Request-Id", "req_1_a")}, &answer{status: 200, header: hdr("X-Request-Id", "req_1_b")}, false},
		{"another body", &answer{status: 200, body: []byte(`{"id":"a"}`)}, &answer{status: 200, body: []byte(`{"id":"b"}`)}, false},
		{"a drop and an answer", &answer{dropped: true, err: "connection closed without an answer"}, &answer{status: 502}, false},
	} {
		if got := normalise(tc.x, a, false) == normalise(tc.y, b, false); got != tc.equal {
			t.Errorf("%s: equal %v, want %v:\n%s\n---\n%s", tc.name, got, tc.equal, normalise(tc.x, a, false), normalise(tc.y, b, false))
		}
	}
}

// TestAllowlist: the file's format, and which differences an entry allows.
func TestAllowlist(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{
		"GET /v1/assets | Date",
		"GET /v1/assets | | fix | TestX",
		"a | b | c | d | e",
	} {
		if _, err := ParseAllowlist(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: parsed, want an error", bad)
		}
	}
	al, err := ParseAllowlist(strings.NewReader("# deliberate fixes\n\nGET /v1/cards/{id} | \"status\":\"lost\" | lost cards read lost | TestLost\n* | x-step-up | step-up header refused | TestStepUp\nGET /v1/never | zzz | unused | TestNone\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		d        Diff
		fix, tst string
	}{
		{Diff{Op: "GET /v1/cards/{id}", Answers: []string{`200 {"status":"lost"}`, `200 {"status":"frozen"}`}}, "lost cards read lost", "TestLost"},
		{Diff{Op: "GET /v1/cards/{id}", Answers: []string{`200 {"status":"active"}`, `200 {}`}}, "", ""},
		{Diff{Op: "POST /v1/cards/{id}/pin", Sent: "POST /v1/cards/x/pin\nx-step-up: ch_1\n", Answers: []string{"400", "200"}}, "step-up header refused", "TestStepUp"},
	} {
		fix, tst, ok := al.Match(tc.d)
		if fix != tc.fix || tst != tc.tst || ok != (tc.fix != "") {
			t.Errorf("%s: matched %q %q %v, want %q %q", tc.d.Op, fix, tst, ok, tc.fix, tc.tst)
		}
	}
	if diff := cmp.Diff([]string{"line 5: GET /v1/never | zzz"}, al.Unused()); diff != "" {
		t.Errorf("unused entries (-want +got):\n%s", diff)
	}
}

// TestGroupsMatchEachDifference: a group is allowed only when every one of
// its differences matches an entry; one matching difference of the group
// does not carry an unmatched one of the same operation, part and statuses.
func TestGroupsMatchEachDifference(t *testing.T) {
	t.Parallel()
	al, err := ParseAllowlist(strings.NewReader("GET /v1/cards/{id} | \"status\":\"lost\" | lost cards read lost | TestLost\n"))
	if err != nil {
		t.Fatal(err)
	}
	lost := Diff{Op: "GET /v1/cards/{id}", Kind: "body", Answers: []string{"200\n{\"status\":\"lost\"}", "200\n{\"status\":\"frozen\"}"}}
	other := Diff{Op: "GET /v1/cards/{id}", Kind: "body", Answers: []string{"200\n{\"status\":\"active\"}", "200\n{}"}}
	for _, tc := range []struct {
		name      string
		diffs     []Diff
		unmatched int
		allowed   bool
	}{
		{"every difference matches", []Diff{lost, lost}, 0, true},
		{"one of the group does not", []Diff{lost, other, lost}, 1, false},
		{"none matches", []Diff{other}, 1, false},
	} {
		gs := Groups{}
		for _, d := range tc.diffs {
			gs.Add(d, al, 5)
		}
		if len(gs) != 1 {
			t.Fatalf("%s: %d groups, want the differences in one", tc.name, len(gs))
		}
		for _, g := range gs {
			if g.N != len(tc.diffs) || g.Unmatched != tc.unmatched || g.Allowed() != tc.allowed || len(g.Examples) != tc.unmatched {
				t.Errorf("%s: %+v, want %d differences, %d unmatched (as examples), allowed %v", tc.name, g, len(tc.diffs), tc.unmatched, tc.allowed)
			}
		}
	}
}
