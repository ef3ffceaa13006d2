package remittance_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/internal/api"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
)

const member1 = simulator.DefaultMemberExternalID

// newSim starts an isolated simulator whose books are checked at the end.
func newSim(t *testing.T, opts ...simulator.Option) (*simulator.Simulator, *mwallet.Client) {
	t.Helper()
	sim := simulator.New(opts...)
	t.Cleanup(sim.Close)
	t.Cleanup(func() {
		if err := sim.CheckLedger(); err != nil {
			t.Errorf("CheckLedger: %v", err)
		}
	})
	return sim, sim.Client()
}

// memberID returns the mem_ id of an external member id, from member.created.
func memberID(t *testing.T, sim *simulator.Simulator, ext string) string {
	t.Helper()
	for _, e := range sim.Events() {
		if e.Type == "member.created" && e.ExternalMemberID == ext {
			return "mem_" + e.ObjectID
		}
	}
	t.Fatalf("no member.created event for %q", ext)
	return ""
}

// balance sums the journal postings of account in asset.
func balance(sim *simulator.Simulator, account, asset string) string {
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
				panic(err)
			}
			*sum = v
		}
	}
	if sum == nil {
		return "0"
	}
	return sum.String()
}

func available(t *testing.T, sim *simulator.Simulator, ext, asset string) string {
	t.Helper()
	return balance(sim, simulator.MemberAvailable(memberID(t, sim, ext)), asset)
}

func locked(t *testing.T, sim *simulator.Simulator, ext, asset string) string {
	t.Helper()
	return balance(sim, simulator.MemberLocked(memberID(t, sim, ext)), asset)
}

// payeeOf returns the member's first payee in currency.
func payeeOf(t *testing.T, c *mwallet.Client, member, currency string) remittance.Payee {
	t.Helper()
	for p, err := range c.Remittances.Payees(context.Background(), member, api.ListParams{}) {
		if err != nil {
			t.Fatalf("Payees: %v", err)
		}
		if p.Currency == currency {
			return p
		}
	}
	t.Fatalf("member %s has no %s payee", member, currency)
	return remittance.Payee{}
}

func listOrders(t *testing.T, c *mwallet.Client, member string) []remittance.Order {
	t.Helper()
	var out []remittance.Order
	for o, err := range c.Remittances.List(context.Background(), member, api.ListParams{}) {
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		out = append(out, o)
	}
	return out
}

// apiErr asserts err is a *api.Error with code and returns it.
func apiErr(t *testing.T, err error, code api.Code) *api.Error {
	t.Helper()
	var e *api.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want *api.Error %s", err, err, code)
	}
	if e.Code != code {
		t.Fatalf("code = %s (%s), want %s", e.Code, e.Message, code)
	}
	if want := code.HTTPStatus(); e.HTTPStatus != want {
		t.Fatalf("HTTP status = %d, want %d", e.HTTPStatus, want)
	}
	return e
}

func fieldKeys(e *api.Error) string {
	var keys []string
	for _, f := range e.Fields {
		keys = append(keys, f.Key)
	}
	return strings.Join(keys, ",")
}
