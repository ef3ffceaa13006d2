// Package simtest starts a contract simulator for one test and checks it
// when the test ends, so every integration test gets the same guarantees in
// one line:
//
//	func TestDepositIsCredited(t *testing.T) {
//		t.Parallel()
//		sim, client := simtest.New(t) // its own state, ledger and clock, and a client wired to it
//		_, err := client.Deposits.Create(context.Background(), "member-1",
//			deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("25", 6), Reference: "ref-1"})
//		if err != nil {
//			t.Fatal(err)
//		}
//		available, _, err := sim.Members.Balance("member-1", "USDT")
//		if err != nil || available.String() != "1025.000000" {
//			t.Errorf("available = %s (%v)", available, err)
//		}
//	}
//
// New is the way to start one. Start returns the simulator alone, for a
// test that passes options to its client (sim.Client(opts...)) or needs
// several. Both fail the test at
// once when an option is invalid, for example a WithMember seed that cannot
// be created. When the test ends, its cleanup runs the simulator's
// end-of-test checks, reporting each failure with Errorf, and then closes the
// simulator: CheckLedger (every asset sums to zero over all accounts and no
// account is negative), then CheckInvariants (what a balanced ledger cannot
// show: no balance on an ended card, every locked amount owned by a live
// order, every live order holding its amount).
//
// When the test has failed by then, the cleanup also writes the
// simulator's recording (every input it received, see
// simulator.Simulator.Recording) to a file and logs its path with the
// command that replays it locally:
//
//	mwallet-sim serve -replay PATH
//
// or, in Go, simulator.ReadRecordingFile(PATH) and
// simulator.New(simulator.WithRecording(rec)). The file goes to the
// directory named by MWALLET_SIMTEST_ARTIFACTS (a CI job uploads it), or to
// os.TempDir() when that is unset. It holds the simulator's test
// credentials and everything the test sent.
//
// The helpers assert service errors (WantCode, AsError), find members and
// events (MemberID, EventsOf), and sum the ledger journal independently of
// the simulator's running balances (Journal, Available, Locked).
//
// The functions that can fail the test take a TB, which *testing.T and
// *testing.B satisfy.
package simtest

import (
	"errors"
	"fmt"
	"os"
	"regexp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
)

// TB is the part of testing.TB that simtest uses. *testing.T, *testing.B
// and *testing.F satisfy it, as does any testing.TB.
type TB interface {
	Helper()
	Cleanup(func())
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// check is one end-of-test check of a simulator.
type check struct {
	name string
	run  func() error
}

// endChecks lists the checks the cleanup of Start runs, in order.
func endChecks(sim *simulator.Simulator) []check {
	return []check{
		{"CheckLedger", sim.CheckLedger},
		{"CheckInvariants", sim.CheckInvariants},
	}
}

// Start starts a simulator for t. When an option is invalid it calls
// t.Fatalf (and returns nil if Fatalf returns). When t ends, its cleanup
// runs the end-of-test checks (see the package documentation), reports each
// failure with t.Errorf, and closes the simulator.
func Start(t TB, opts ...simulator.Option) *simulator.Simulator {
	t.Helper()
	sim, err := simulator.New(opts...)
	if err != nil {
		t.Fatalf("simtest: %v", err)
		return nil
	}
	t.Cleanup(func() {
		for _, c := range endChecks(sim) {
			if err := c.run(); err != nil {
				t.Errorf("simtest: %s: %v", c.name, err)
			}
		}
		if f, ok := t.(interface{ Failed() bool }); ok && f.Failed() {
			leaveRecording(t, sim)
		}
		sim.Close()
	})
	return sim
}

// New is Start followed by sim.Client(): a simulator checked at the end of t
// and an SDK client wired to it (its URL, credentials, HTTP client and
// clock). It returns nils when Start fails t and t.Fatalf returns.
func New(t TB, opts ...simulator.Option) (*simulator.Simulator, *mwclient.Client) {
	t.Helper()
	sim := Start(t, opts...)
	if sim == nil {
		return nil, nil
	}
	return sim, sim.Client()
}

// AsError returns the service error in err's chain, or fails t.
func AsError(t TB, err error) *mwallet.Error {
	t.Helper()
	var e *mwallet.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want a *mwallet.Error", err, err)
	}
	return e
}

// WantCode asserts that err is a service error with code and with the HTTP
// status the specification documents for code, and returns it; otherwise it
// fails t.
func WantCode(t TB, err error, code mwallet.Code) *mwallet.Error {
	t.Helper()
	var e *mwallet.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want *mwallet.Error %s", err, err, code)
		return nil
	}
	if e.Code != code {
		t.Fatalf("code = %s (HTTP %d: %s), want %s", e.Code, e.HTTPStatus, e.Message, code)
		return e
	}
	if want := code.HTTPStatus(); e.HTTPStatus != want {
		t.Fatalf("%s: HTTP status = %d, want %d", code, e.HTTPStatus, want)
	}
	return e
}

// MemberID returns the mem_ id of the member with external id ext, read from
// its member.created event; it fails t when there is none.
func MemberID(t TB, sim *simulator.Simulator, ext string) string {
	t.Helper()
	for _, e := range sim.Events.List() {
		if e.Type == "member.created" && e.ExternalMemberID == ext {
			return "mem_" + e.ObjectID
		}
	}
	t.Fatalf("no member.created event for %q", ext)
	return ""
}

// EventsOf returns the simulator's events of type typ, oldest first.
func EventsOf(sim *simulator.Simulator, typ string) []simulator.Event {
	var out []simulator.Event
	for _, e := range sim.Events.List() {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// Journal sums the journal postings of a ledger account in asset,
// independently of the simulator's running balances. It returns "0" when
// the account has no posting in asset, otherwise the sum at the postings'
// scale ("0.000000" when they cancel out). An addition error fails t.
func Journal(t TB, sim *simulator.Simulator, account, asset string) string {
	t.Helper()
	var sum *money.Amount
	for _, e := range sim.LedgerEntries() {
		for _, p := range e.Postings {
			if p.Account != account || p.Asset != asset {
				continue
			}
			if sum == nil {
				z := money.Zero(p.Amount.Scale())
				sum = &z
			}
			v, err := sum.Add(p.Amount)
			if err != nil {
				t.Fatalf("journal of %s %s: %v", account, asset, err)
				return ""
			}
			*sum = v
		}
	}
	if sum == nil {
		return "0"
	}
	return sum.String()
}

// Available returns the journal balance (see Journal) of the available
// account of the member with external id ext.
func Available(t TB, sim *simulator.Simulator, ext, asset string) string {
	t.Helper()
	return Journal(t, sim, simulator.MemberAvailable(MemberID(t, sim, ext)), asset)
}

// Locked returns the journal balance (see Journal) of the locked account of
// the member with external id ext.
func Locked(t TB, sim *simulator.Simulator, ext, asset string) string {
	t.Helper()
	return Journal(t, sim, simulator.MemberLocked(MemberID(t, sim, ext)), asset)
}

// ArtifactsEnv names the environment variable holding the directory where
// a failed test's recording is written (default os.TempDir()).
const ArtifactsEnv = "MWALLET_SIMTEST_ARTIFACTS"

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// leaveRecording writes the recording of sim for a failed test and logs
// where it is and how to replay it.
func leaveRecording(t TB, sim *simulator.Simulator) {
	t.Helper()
	logf := t.Errorf
	if l, ok := t.(interface{ Logf(string, ...any) }); ok {
		logf = l.Logf
	}
	rec, err := sim.Recording()
	if err != nil {
		logf("simtest: no recording of this test: %v", err)
		return
	}
	dir := os.Getenv(ArtifactsEnv)
	if dir == "" {
		dir = os.TempDir()
	}
	name := "test"
	if n, ok := t.(interface{ Name() string }); ok {
		name = unsafeName.ReplaceAllString(n.Name(), "_")
	}
	path, err := writeRecording(dir, name, rec)
	if err != nil {
		logf("simtest: no recording of this test: %v", err)
		return
	}
	logf("simtest: the simulator's recording of this test (%d inputs) is %s\n"+
		"\treplay it: mwallet-sim serve -replay %s   (go install github.com/mwallet/mwallet-go/cmd/mwallet-sim@latest)\n"+
		"\tor in Go:  rec, _ := simulator.ReadRecordingFile(%q); sim, _ := simulator.New(simulator.WithRecording(rec))",
		rec.Len(), path, path, path)
}

func writeRecording(dir, name string, rec *simulator.Recording) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "mwallet-sim-"+name+"-*.jsonl")
	if err != nil {
		return "", err
	}
	if _, err := rec.WriteTo(f); err != nil {
		_ = f.Close()
		return "", fmt.Errorf("writing %s: %w", f.Name(), err)
	}
	return f.Name(), f.Close()
}
