// Package simtest holds the test support shared by the module's test
// packages: a simulator whose books are checked when the test ends, service
// error assertions, member id look-ups and journal balances.
//
// It imports the root package, so only external test packages (package
// mwallet_test, qrpay_test, simulator_test, ...) can use it; the root
// package's own internal tests cannot.
package simtest

import (
	"errors"
	"testing"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
)

// Start starts a simulator for t. It fails t at once when an option was
// invalid (SetupErr), and when t ends it asserts that the books balance
// (CheckLedger) and then closes the simulator.
func Start(t testing.TB, opts ...simulator.Option) *simulator.Simulator {
	t.Helper()
	sim := simulator.New(opts...)
	t.Cleanup(sim.Close)
	if err := sim.SetupErr(); err != nil {
		t.Fatalf("simulator setup: %v", err)
	}
	t.Cleanup(func() {
		if err := sim.CheckLedger(); err != nil {
			t.Errorf("CheckLedger: %v", err)
		}
	})
	return sim
}

// New is Start followed by sim.Client(): a started, checked simulator and a
// ready client for it.
func New(t testing.TB, opts ...simulator.Option) (*simulator.Simulator, *mwclient.Client) {
	t.Helper()
	sim := Start(t, opts...)
	return sim, sim.Client()
}

// AsError returns the service error in err's chain, or fails t.
func AsError(t testing.TB, err error) *mwallet.Error {
	t.Helper()
	var e *mwallet.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want a *mwallet.Error", err, err)
	}
	return e
}

// WantCode asserts that err is a service error with code and with the HTTP
// status the specification documents for code, and returns it.
func WantCode(t testing.TB, err error, code mwallet.Code) *mwallet.Error {
	t.Helper()
	var e *mwallet.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want *mwallet.Error %s", err, err, code)
	}
	if e.Code != code {
		t.Fatalf("code = %s (HTTP %d: %s), want %s", e.Code, e.HTTPStatus, e.Message, code)
	}
	if want := code.HTTPStatus(); e.HTTPStatus != want {
		t.Fatalf("%s: HTTP status = %d, want %d", code, e.HTTPStatus, want)
	}
	return e
}

// MemberID returns the mem_ id of the member with external id ext, read from
// its member.created event; it fails t when there is none.
func MemberID(t testing.TB, sim *simulator.Simulator, ext string) string {
	t.Helper()
	for _, e := range sim.Events() {
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
	for _, e := range sim.Events() {
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
func Journal(t testing.TB, sim *simulator.Simulator, account, asset string) string {
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
func Available(t testing.TB, sim *simulator.Simulator, ext, asset string) string {
	t.Helper()
	return Journal(t, sim, simulator.MemberAvailable(MemberID(t, sim, ext)), asset)
}

// Locked returns the journal balance (see Journal) of the locked account of
// the member with external id ext.
func Locked(t testing.TB, sim *simulator.Simulator, ext, asset string) string {
	t.Helper()
	return Journal(t, sim, simulator.MemberLocked(MemberID(t, sim, ext)), asset)
}
