package mwclient_test

import (
	"context"
	"fmt"
	"iter"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/kyc"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
	"github.com/mwallet/mwallet-go/webhooks"
)

const member = simulator.DefaultMemberExternalID

// page is a page of any list reduced to what the resume proof needs.
type page struct {
	ids     []string
	next    string
	hasMore bool
	resp    *mwallet.Response
}

// pagesOf reduces a typed Pages iterator to page values.
func pagesOf[T any](seq iter.Seq2[*mwallet.Page[T], error], id func(T) string) iter.Seq2[page, error] {
	return func(yield func(page, error) bool) {
		for p, err := range seq {
			if err != nil {
				yield(page{}, err)
				return
			}
			out := page{next: p.NextCursor, hasMore: p.HasMore, resp: p.Response}
			for _, item := range p.Data {
				out.ids = append(out.ids, id(item))
			}
			if !yield(out, nil) {
				return
			}
		}
	}
}

// itemsOf reduces a typed item iterator to ids.
func itemsOf[T any](seq iter.Seq2[T, error], id func(T) string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for item, err := range seq {
			if !yield(id(item), err) || err != nil {
				return
			}
		}
	}
}

// resumable is one list that takes mwallet.ListParams: how to create its
// objects, and its item and page iterators for a given ListParams.
type resumable struct {
	name string
	// n objects are created before the walk; one more after it stops.
	n, limit, stopAfter int
	setup               func(t *testing.T, sim *simulator.Simulator, c *mwclient.Client) any
	create              func(t *testing.T, sim *simulator.Simulator, c *mwclient.Client, state any, i int)
	items               func(c *mwclient.Client, state any, p mwallet.ListParams) iter.Seq2[string, error]
	pages               func(c *mwclient.Client, state any, p mwallet.ListParams) iter.Seq2[page, error]
}

var ctx = context.Background()

// fund gives the fixture member enough USDT for n paid objects.
func fund(t *testing.T, c *mwclient.Client) {
	t.Helper()
	if _, err := c.Deposits.Create(ctx, member, deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("100000", 6), Reference: "fund"}); err != nil {
		t.Fatal(err)
	}
}

func deposit(t *testing.T, c *mwclient.Client, i int) {
	t.Helper()
	if _, err := c.Deposits.Create(ctx, member, deposits.CreateParams{Asset: "USDC", Amount: money.MustParse("1", 6), Reference: fmt.Sprintf("resume-%02d", i)}); err != nil {
		t.Fatal(err)
	}
}

func issueCard(t *testing.T, sim *simulator.Simulator, c *mwclient.Client) string {
	t.Helper()
	app, err := c.Cards.Apply(ctx, member, cards.ApplyParams{ProductID: "cpd_virtual_std", SourceAsset: "USDT", ClientKey: cards.NewClientKey()})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Cards.ApproveApplication(app.ID); err != nil {
		t.Fatal(err)
	}
	got, err := c.Cards.GetApplication(ctx, member, app.ID)
	if err != nil || got.CardID == "" {
		t.Fatalf("application %+v: %v", got, err)
	}
	return got.CardID
}

// Every list that takes ListParams is resumable: walk some pages, stop,
// create a newer object, resume from the saved NextCursor with a new
// iterator, and get exactly the rest of the first walk, none repeated and
// none lost. The item iterator resumes from the same cursor alike.
func TestEveryResumableListResumesFromItsCursor(t *testing.T) {
	t.Parallel()
	cases := []resumable{
		{
			name: "deposits.List", n: 45, limit: 10, stopAfter: 2,
			create: func(t *testing.T, _ *simulator.Simulator, c *mwclient.Client, _ any, i int) { deposit(t, c, i) },
			items: func(c *mwclient.Client, _ any, p mwallet.ListParams) iter.Seq2[string, error] {
				return itemsOf(c.Deposits.List(ctx, deposits.ListParams{ListParams: p}), func(d deposits.Deposit) string { return d.ID })
			},
			pages: func(c *mwclient.Client, _ any, p mwallet.ListParams) iter.Seq2[page, error] {
				return pagesOf(c.Deposits.ListPages(ctx, deposits.ListParams{ListParams: p}), func(d deposits.Deposit) string { return d.ID })
			},
		},
		{
			// Each deposit queues one deposit.credited delivery row.
			name: "webhooks.Deliveries.List", n: 45, limit: 10, stopAfter: 3,
			create: func(t *testing.T, _ *simulator.Simulator, c *mwclient.Client, _ any, i int) { deposit(t, c, i) },
			items: func(c *mwclient.Client, _ any, p mwallet.ListParams) iter.Seq2[string, error] {
				return itemsOf(c.Webhooks.List(ctx, p), func(d webhooks.Delivery) string { return d.ID })
			},
			pages: func(c *mwclient.Client, _ any, p mwallet.ListParams) iter.Seq2[page, error] {
				return pagesOf(c.Webhooks.ListPages(ctx, p), func(d webhooks.Delivery) string { return d.ID })
			},
		},
		{
			name: "remittance.List", n: 45, limit: 10, stopAfter: 2,
			setup: func(t *testing.T, _ *simulator.Simulator, c *mwclient.Client) any {
				fund(t, c)
				for p, err := range c.Remittances.Payees(ctx, member, mwallet.ListParams{}) {
					if err != nil {
						t.Fatal(err)
					}
					if p.Currency == "GBP" {
						return p
					}
				}
				t.Fatal("no GBP payee")
				return nil
			},
			create: func(t *testing.T, _ *simulator.Simulator, c *mwclient.Client, state any, i int) {
				payee := state.(remittance.Payee)
				if _, err := c.Remittances.Create(ctx, member, remittance.CreateParams{PayeeID: payee.ID, PayoutAmount: "10.00",
					PayoutCurrency: payee.Currency, SlippageBps: 100, PurposeCode: remittance.PurposeFamilySupport}); err != nil {
					t.Fatal(err)
				}
			},
			items: func(c *mwclient.Client, _ any, p mwallet.ListParams) iter.Seq2[string, error] {
				return itemsOf(c.Remittances.List(ctx, member, p), func(o remittance.Order) string { return o.ID })
			},
			pages: func(c *mwclient.Client, _ any, p mwallet.ListParams) iter.Seq2[page, error] {
				return pagesOf(c.Remittances.ListPages(ctx, member, p), func(o remittance.Order) string { return o.ID })
			},
		},
		{
			name: "remittance.Payees", n: 45, limit: 10, stopAfter: 2,
			create: func(t *testing.T, _ *simulator.Simulator, c *mwclient.Client, _ any, i int) {
				if _, err := c.Remittances.CreatePayee(ctx, member, remittance.PayeeParams{Country: "GB", Currency: "GBP",
					HolderName: fmt.Sprintf("Holder %02d", i), AccountNumber: fmt.Sprintf("GB33BUKB202015555555%02d", i)}); err != nil {
					t.Fatal(err)
				}
			},
			items: func(c *mwclient.Client, _ any, p mwallet.ListParams) iter.Seq2[string, error] {
				return itemsOf(c.Remittances.Payees(ctx, member, p), func(p remittance.Payee) string { return p.ID })
			},
			pages: func(c *mwclient.Client, _ any, p mwallet.ListParams) iter.Seq2[page, error] {
				return pagesOf(c.Remittances.PayeePages(ctx, member, p), func(p remittance.Payee) string { return p.ID })
			},
		},
		{
			name: "cards.List", n: 45, limit: 10, stopAfter: 2,
			setup: func(t *testing.T, sim *simulator.Simulator, c *mwclient.Client) any {
				fund(t, c)
				if err := sim.Cards.SetLimit("virtual", 100); err != nil {
					t.Fatal(err)
				}
				return nil
			},
			create: func(t *testing.T, sim *simulator.Simulator, c *mwclient.Client, _ any, _ int) { issueCard(t, sim, c) },
			items: func(c *mwclient.Client, _ any, p mwallet.ListParams) iter.Seq2[string, error] {
				return itemsOf(c.Cards.List(ctx, member, p), func(c cards.Card) string { return c.ID })
			},
			pages: func(c *mwclient.Client, _ any, p mwallet.ListParams) iter.Seq2[page, error] {
				return pagesOf(c.Cards.ListPages(ctx, member, p), func(c cards.Card) string { return c.ID })
			},
		},
		{
			name: "cards.Transactions", n: 45, limit: 10, stopAfter: 2,
			setup: func(t *testing.T, sim *simulator.Simulator, c *mwclient.Client) any {
				fund(t, c)
				return issueCard(t, sim, c)
			},
			create: func(t *testing.T, sim *simulator.Simulator, _ *mwclient.Client, state any, i int) {
				// Occurred one minute apart, the later the newer; the one
				// created after the stop is the newest.
				at := sim.Clock.Now().Add(-time.Duration(100-i) * time.Minute)
				if _, err := sim.Cards.AddTransaction(state.(string), simulator.CardTransaction{Kind: "auth", Status: "declined",
					Direction: "none", Amount: "0", AuthCode: fmt.Sprint("R", i), OccurredAt: at}); err != nil {
					t.Fatal(err)
				}
			},
			items: func(c *mwclient.Client, state any, p mwallet.ListParams) iter.Seq2[string, error] {
				return itemsOf(c.Cards.Transactions(ctx, member, state.(string), cards.TransactionListParams{ListParams: p}), func(tx cards.Transaction) string { return tx.ID })
			},
			pages: func(c *mwclient.Client, state any, p mwallet.ListParams) iter.Seq2[page, error] {
				return pagesOf(c.Cards.TransactionPages(ctx, member, state.(string), cards.TransactionListParams{ListParams: p}), func(tx cards.Transaction) string { return tx.ID })
			},
		},
		{
			// A member holds at most five quick profiles.
			name: "kyc.QuickBindings", n: kyc.MaxQuickBindings - 1, limit: 2, stopAfter: 1,
			create: func(t *testing.T, _ *simulator.Simulator, c *mwclient.Client, _ any, _ int) {
				if _, err := c.KYC.CreateQuickBinding(ctx, member, kyc.QuickBindingParams{}); err != nil {
					t.Fatal(err)
				}
			},
			items: func(c *mwclient.Client, _ any, p mwallet.ListParams) iter.Seq2[string, error] {
				return itemsOf(c.KYC.QuickBindings(ctx, member, p), func(b kyc.QuickBinding) string { return b.ID })
			},
			pages: func(c *mwclient.Client, _ any, p mwallet.ListParams) iter.Seq2[page, error] {
				return pagesOf(c.KYC.QuickBindingPages(ctx, member, p), func(b kyc.QuickBinding) string { return b.ID })
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t)
			c := sim.Client()
			var state any
			if tc.setup != nil {
				state = tc.setup(t, sim, c)
			}
			before := collect(t, tc.items(c, state, mwallet.ListParams{}))
			// The clock moves between creations, as it does for the real
			// service: each object is newer than the one before.
			for i := 0; i < tc.n; i++ {
				sim.Clock.Advance(time.Second)
				tc.create(t, sim, c, state, i)
			}
			full := collect(t, tc.items(c, state, mwallet.ListParams{Limit: tc.limit}))
			if len(full) != len(before)+tc.n || len(full) <= tc.limit*tc.stopAfter {
				t.Fatalf("%d items listed, want %d + %d, more than %d pages of %d", len(full), len(before), tc.n, tc.stopAfter, tc.limit)
			}

			// Walk stopAfter pages, keep the cursor, stop.
			var first []string
			var saved string
			pages := 0
			for p, err := range tc.pages(c, state, mwallet.ListParams{Limit: tc.limit}) {
				if err != nil {
					t.Fatal(err)
				}
				if len(p.ids) != tc.limit || !p.hasMore || p.next == "" || p.resp == nil || p.resp.StatusCode != 200 || p.resp.RequestID == "" {
					t.Fatalf("page %d: %d items, has_more %v, next %q, response %+v", pages+1, len(p.ids), p.hasMore, p.next, p.resp)
				}
				first = append(first, p.ids...)
				saved = p.next
				if pages++; pages == tc.stopAfter {
					break
				}
			}
			// Something newer arrives before the listing resumes.
			sim.Clock.Advance(time.Second)
			tc.create(t, sim, c, state, tc.n)

			// A new page iterator from the saved cursor gives exactly the rest.
			var rest []string
			last := page{hasMore: true}
			for p, err := range tc.pages(c, state, mwallet.ListParams{Limit: tc.limit, Cursor: saved}) {
				if err != nil {
					t.Fatal(err)
				}
				rest = append(rest, p.ids...)
				last = p
			}
			if last.hasMore || last.next != "" {
				t.Errorf("last page: has_more %v, next %q", last.hasMore, last.next)
			}
			if diff := cmp.Diff(full[:len(first)], first); diff != "" {
				t.Errorf("first pages (-full walk +got):\n%s", diff)
			}
			if diff := cmp.Diff(full[len(first):], rest); diff != "" {
				t.Errorf("resumed pages (-rest of the full walk +got):\n%s", diff)
			}
			// The item iterator resumes from the same cursor alike.
			if diff := cmp.Diff(full[len(first):], collect(t, tc.items(c, state, mwallet.ListParams{Limit: tc.limit, Cursor: saved}))); diff != "" {
				t.Errorf("resumed items (-rest of the full walk +got):\n%s", diff)
			}
			seen := map[string]bool{}
			for _, id := range append(first, rest...) {
				if seen[id] {
					t.Errorf("%s listed twice", id)
				}
				seen[id] = true
			}
			// A walk from the start sees the newer object first.
			if again := collect(t, tc.items(c, state, mwallet.ListParams{})); len(again) != len(full)+1 || seen[again[0]] {
				t.Errorf("a new walk lists %d items starting with %s; want %d starting with the newer one", len(again), again[0], len(full)+1)
			}
			if err := sim.CheckLedger(); err != nil {
				t.Error(err)
			}
		})
	}
}

func collect(t *testing.T, seq iter.Seq2[string, error]) []string {
	t.Helper()
	var out []string
	for id, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	return out
}
