package simulator_test

import (
	"testing"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/simulator"
)

// inflightRow is one pair of the "Operations in flight" table of guide/qr-payments-and-in-flight.md:
// an operation on an object while another on the same object is in flight,
// played through the SDK and the control API. Every row ends with balanced
// books and the invariants (no money on an ended card, no hold without a
// live order).
type inflightRow struct {
	pair string // "in flight × operation"
	opts []simulator.Option
	run  func(e *edge)
}

func runInflight(t *testing.T, rows []inflightRow) {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r.pair] {
			t.Fatalf("pair %q listed twice", r.pair)
		}
		seen[r.pair] = true
		t.Run(r.pair, func(t *testing.T) {
			t.Parallel()
			e := newEdge(t, r.opts...)
			r.run(e)
			e.books()
		})
	}
}

// TestInflightCards covers the card line: a top-up in flight against every
// card operation, money arriving on a closing or ended card, and the
// application's first top-up against approval, rejection, the card limit
// and the compensation of its quick KYC binding.
func TestInflightCards(t *testing.T) {
	t.Parallel()
	const m = member1
	// virtualInFlight issues a virtual card (fee 5) and starts a top-up of
	// 10 (fee 0.10): 984.90 available, 10.10 held.
	virtualInFlight := func(e *edge) (card, topup string) {
		e.t.Helper()
		card = e.issue(m, "cpd_virtual_std", "")
		topup = e.topUp(m, card, "10")
		e.wantFunds(m, "984.900000", "10.100000")
		return card, topup
	}
	closeCheck := func(e *edge, card string) *cards.CloseCheck {
		e.t.Helper()
		cc, err := e.c.Cards.CheckClose(e.ctx, m, card)
		if err != nil {
			e.t.Fatal(err)
		}
		return cc
	}
	blockedBy := func(cc *cards.CloseCheck, b cards.CloseBlocker) bool {
		for _, r := range cc.Reasons {
			if r == b {
				return true
			}
		}
		return false
	}
	replace := func(e *edge, card string) string {
		e.t.Helper()
		r, err := e.c.Cards.Replace(e.ctx, m, card, cards.ReplaceParams{})
		if err != nil {
			e.t.Fatalf("replace: %v", err)
		}
		return r.CardID
	}
	closeCard := func(e *edge, card string) {
		e.t.Helper()
		if _, err := e.c.Cards.Close(e.ctx, m, card, cards.CloseParams{}); err != nil {
			e.t.Fatalf("close: %v", err)
		}
	}
	// endedBy puts a zero-balance virtual card in an ended status the way
	// an integrator gets there.
	endedBy := func(e *edge, status cards.CardStatus) (card, replacement string) {
		e.t.Helper()
		card = e.issue(m, "cpd_virtual_std", "")
		switch status {
		case cards.CardClosed:
			closeCard(e, card)
			e.mustAct("cards/"+card+"/close_complete", nil)
		case cards.CardReplaced:
			replacement = replace(e, card)
		case cards.CardExpired:
			e.mustAct("cards/"+card+"/set_status", map[string]string{"status": "expired"})
		}
		e.wantCard(m, card, status, "0.00")
		return card, replacement
	}

	rows := []inflightRow{
		{pair: "top-up in flight × close-check", run: func(e *edge) {
			card, tp := virtualInFlight(e)
			if cc := closeCheck(e, card); cc.Closable || !blockedBy(cc, cards.CloseBlockedTopUpInFlight) {
				e.t.Fatalf("close-check with a top-up in flight = %+v, want not closable (topup_in_flight)", cc)
			}
			e.mustAct("cards/topups/"+tp+"/credit", nil)
			if cc := closeCheck(e, card); cc.Closable || blockedBy(cc, cards.CloseBlockedTopUpInFlight) || !blockedBy(cc, cards.CloseBlockedBalance) {
				e.t.Fatalf("close-check after the credit = %+v, want balance_remaining only", cc)
			}
		}},
		{pair: "top-up in flight × close", run: func(e *edge) {
			card, tp := virtualInFlight(e)
			_, err := e.c.Cards.Close(e.ctx, m, card, cards.CloseParams{})
			e.wantErr(err, mwallet.CodeAPIError) // unsettled funds, as the contract answers them
			e.wantCard(m, card, cards.CardActive, "0.00")
			e.mustAct("cards/topups/"+tp+"/credit", nil)
			e.wantCard(m, card, cards.CardActive, "10.00")
			e.wantFunds(m, "984.900000", "0.000000")
		}},
		{pair: "top-up rejected × close", run: func(e *edge) {
			card, tp := virtualInFlight(e)
			e.mustAct("cards/topups/"+tp+"/reject", nil)
			e.wantFunds(m, "995.000000", "0.000000")
			if cc := closeCheck(e, card); !cc.Closable {
				e.t.Fatalf("close-check after the rejection = %+v", cc)
			}
			closeCard(e, card)
			e.mustAct("cards/"+card+"/close_complete", nil)
			e.wantCard(m, card, cards.CardClosed, "0.00")
			e.wantActCode("cards/topups/"+tp+"/credit", nil, "state_invalid")
		}},
		{pair: "top-up in flight × close after a timeout", run: func(e *edge) {
			card, tp := virtualInFlight(e)
			e.mustAct("cards/topups/"+tp+"/timeout", nil)
			_, err := e.c.Cards.Close(e.ctx, m, card, cards.CloseParams{})
			e.wantErr(err, mwallet.CodeAPIError)
			if cc := closeCheck(e, card); !blockedBy(cc, cards.CloseBlockedTopUpInFlight) {
				e.t.Fatalf("a timed-out top-up is still in flight: %+v", cc)
			}
			e.mustAct("cards/topups/"+tp+"/credit", nil) // reconciliation
			e.wantCard(m, card, cards.CardActive, "10.00")
		}},
		{pair: "top-up in flight × replace", run: func(e *edge) {
			card, tp := virtualInFlight(e)
			nc := replace(e, card)
			e.mustAct("cards/topups/"+tp+"/credit", nil)
			e.wantCard(m, card, cards.CardReplaced, "0.00")
			e.wantCard(m, nc, cards.CardActive, "10.00")
			e.wantFunds(m, "984.900000", "0.000000")
		}},
		{pair: "top-up in flight × replace, then rejected", run: func(e *edge) {
			card, tp := virtualInFlight(e)
			nc := replace(e, card)
			if cc := closeCheck(e, nc); !blockedBy(cc, cards.CloseBlockedTopUpInFlight) {
				e.t.Fatalf("the replacement does not see the top-up heading to it: %+v", cc)
			}
			e.mustAct("cards/topups/"+tp+"/reject", nil)
			e.wantCard(m, nc, cards.CardActive, "0.00")
			e.wantFunds(m, "995.000000", "0.000000")
		}},
		{pair: "top-up in flight × freeze", run: func(e *edge) {
			card, tp := virtualInFlight(e)
			if _, err := e.c.Cards.Freeze(e.ctx, m, card); err != nil {
				e.t.Fatal(err)
			}
			e.mustAct("cards/topups/"+tp+"/credit", nil)
			e.wantCard(m, card, cards.CardFrozen, "10.00")
		}},
		{pair: "top-up in flight × unfreeze", run: func(e *edge) {
			card := e.issue(m, "cpd_virtual_std", "")
			if _, err := e.c.Cards.Freeze(e.ctx, m, card); err != nil {
				e.t.Fatal(err)
			}
			tp := e.topUp(m, card, "10") // frozen cards accept top-ups
			if _, err := e.c.Cards.Unfreeze(e.ctx, m, card); err != nil {
				e.t.Fatal(err)
			}
			e.mustAct("cards/topups/"+tp+"/credit", nil)
			e.wantCard(m, card, cards.CardActive, "10.00")
		}},
		{pair: "top-up in flight × lost, then replaced", run: func(e *edge) {
			card := e.activePhysical(m) // fee 25, shipping 15
			tp := e.topUp(m, card, "10")
			if _, err := stepUp(e, func(o ...mwallet.CallOption) (*cards.LostResult, error) {
				return e.c.Cards.ReportLost(e.ctx, m, card, cards.LostKindStolen, o...)
			}); err != nil {
				e.t.Fatalf("lost: %v", err)
			}
			e.mustAct("cards/topups/"+tp+"/credit", nil)
			e.wantCard(m, card, cards.CardLost, "10.00") // a lost card keeps its money until replaced
			nc := replace(e, card)
			e.wantCard(m, card, cards.CardReplaced, "0.00")
			e.wantCard(m, nc, cards.CardUnactivated, "10.00")
		}},
		{pair: "top-up in flight × lost, replaced before the credit", run: func(e *edge) {
			card := e.activePhysical(m)
			tp := e.topUp(m, card, "10")
			if _, err := stepUp(e, func(o ...mwallet.CallOption) (*cards.LostResult, error) {
				return e.c.Cards.ReportLost(e.ctx, m, card, cards.LostKindLost, o...)
			}); err != nil {
				e.t.Fatalf("lost: %v", err)
			}
			nc := replace(e, card)
			e.mustAct("cards/topups/"+tp+"/credit", nil)
			e.wantCard(m, card, cards.CardReplaced, "0.00")
			e.wantCard(m, nc, cards.CardUnactivated, "10.00")
		}},
		{pair: "unactivated card × top-up (activate never races a top-up)", run: func(e *edge) {
			card := e.issue(m, "cpd_physical_std", "")
			e.mustAct("cards/"+card+"/ship", nil)
			_, err := e.c.Cards.TopUp(e.ctx, m, card, cards.TopUpParams{Amount: usdtAmt("10"), SourceAsset: "USDT"})
			e.wantErr(err, mwallet.CodeStateInvalid)
			e.wantFunds(m, "960.000000", "0.000000")
		}},
		{pair: "top-up in flight × top-up", run: func(e *edge) {
			card, tp1 := virtualInFlight(e)
			tp2 := e.topUp(m, card, "20")
			e.wantFunds(m, "964.700000", "30.300000")
			e.mustAct("cards/topups/"+tp1+"/credit", nil)
			if cc := closeCheck(e, card); !blockedBy(cc, cards.CloseBlockedTopUpInFlight) {
				e.t.Fatalf("second top-up not seen in flight: %+v", cc)
			}
			e.mustAct("cards/topups/"+tp2+"/credit", nil)
			e.wantCard(m, card, cards.CardActive, "30.00")
		}},
		{pair: "top-up credited × credit again", run: func(e *edge) {
			card, tp := virtualInFlight(e)
			e.mustAct("cards/topups/"+tp+"/credit", nil)
			e.wantActCode("cards/topups/"+tp+"/credit", nil, "state_invalid")
			e.wantActCode("cards/topups/"+tp+"/reject", nil, "state_invalid")
			e.wantCard(m, card, cards.CardActive, "10.00")
		}},
		{pair: "closing card × top-up", run: func(e *edge) {
			card := e.issue(m, "cpd_virtual_std", "")
			closeCard(e, card)
			_, err := e.c.Cards.TopUp(e.ctx, m, card, cards.TopUpParams{Amount: usdtAmt("10"), SourceAsset: "USDT"})
			e.wantErr(err, mwallet.CodeStateInvalid)
			e.wantFunds(m, "995.000000", "0.000000")
		}},
		{pair: "closing card × credit transaction, then closed", run: func(e *edge) {
			card := e.issue(m, "cpd_virtual_std", "")
			closeCard(e, card)
			e.mustAct("cards/"+card+"/transactions", map[string]any{"kind": "refund", "status": "succeed", "direction": "credit", "amount": "500", "bill_amount": "500"})
			e.wantCard(m, card, cards.CardClosing, "5.00")
			e.mustAct("cards/"+card+"/close_complete", nil)
			e.wantCard(m, card, cards.CardClosed, "0.00")
			e.wantFunds(m, "1000.000000", "0.000000")
			if n := e.events("card.withdraw.completed"); n != 1 {
				e.t.Fatalf("card.withdraw.completed sent %d times, want 1", n)
			}
		}},
		{pair: "closing card × close_complete twice", run: func(e *edge) {
			card := e.issue(m, "cpd_virtual_std", "")
			closeCard(e, card)
			e.mustAct("cards/"+card+"/close_complete", nil)
			e.wantActCode("cards/"+card+"/close_complete", nil, "state_invalid")
		}},
		{pair: "closed card × credit transaction", run: func(e *edge) {
			card, _ := endedBy(e, cards.CardClosed)
			if r := e.cardTx(card, "credit", "700"); r.status != 200 {
				e.t.Fatalf("credit on a closed card: %v", r)
			}
			e.wantCard(m, card, cards.CardClosed, "0.00")
			e.wantFunds(m, "1002.000000", "0.000000") // 995 + 7 returned to the wallet
			if n := e.events("card.withdraw.completed"); n != 1 {
				e.t.Fatalf("card.withdraw.completed sent %d times, want 1", n)
			}
		}},
		{pair: "expired card × credit transaction", run: func(e *edge) {
			card, _ := endedBy(e, cards.CardExpired)
			if r := e.cardTx(card, "credit", "700"); r.status != 200 {
				e.t.Fatalf("credit on an expired card: %v", r)
			}
			e.wantCard(m, card, cards.CardExpired, "0.00")
			e.wantFunds(m, "1002.000000", "0.000000")
		}},
		{pair: "replaced card × credit transaction", run: func(e *edge) {
			card, nc := endedBy(e, cards.CardReplaced)
			if r := e.cardTx(card, "credit", "700"); r.status != 200 {
				e.t.Fatalf("credit on a replaced card: %v", r)
			}
			e.wantCard(m, card, cards.CardReplaced, "0.00")
			e.wantCard(m, nc, cards.CardActive, "7.00")
		}},
		{pair: "replaced twice × credit transaction", run: func(e *edge) {
			card, nc := endedBy(e, cards.CardReplaced)
			nc2 := replace(e, nc)
			if r := e.cardTx(card, "credit", "700"); r.status != 200 {
				e.t.Fatalf("credit on a replaced card: %v", r)
			}
			e.wantCard(m, nc, cards.CardReplaced, "0.00")
			e.wantCard(m, nc2, cards.CardActive, "7.00")
		}},
		{pair: "replaced, replacement closed × credit transaction", run: func(e *edge) {
			card, nc := endedBy(e, cards.CardReplaced)
			closeCard(e, nc)
			e.mustAct("cards/"+nc+"/close_complete", nil)
			if r := e.cardTx(card, "credit", "700"); r.status != 200 {
				e.t.Fatalf("credit on a replaced card: %v", r)
			}
			e.wantCard(m, nc, cards.CardClosed, "0.00")
			e.wantFunds(m, "1002.000000", "0.000000")
		}},
		{pair: "closed card × debit transaction", run: func(e *edge) {
			card, _ := endedBy(e, cards.CardClosed)
			r := e.cardTx(card, "debit", "100")
			if r.status/100 == 2 || r.code() != "state_invalid" {
				e.t.Fatalf("debit on a closed card: %v, want state_invalid", r)
			}
		}},
		{pair: "replaced card × debit transaction", run: func(e *edge) {
			card, nc := endedBy(e, cards.CardReplaced)
			e.cardTx(nc, "credit", "500")
			r := e.cardTx(card, "debit", "100")
			if r.status/100 == 2 || r.code() != "state_invalid" {
				e.t.Fatalf("debit on a replaced card: %v, want state_invalid", r)
			}
			e.wantCard(m, nc, cards.CardActive, "5.00")
		}},
		{pair: "replaced card × top-up", run: func(e *edge) {
			card, _ := endedBy(e, cards.CardReplaced)
			_, err := e.c.Cards.TopUp(e.ctx, m, card, cards.TopUpParams{Amount: usdtAmt("10"), SourceAsset: "USDT"})
			e.wantErr(err, mwallet.CodeStateInvalid)
			e.wantFunds(m, "995.000000", "0.000000")
		}},
		{pair: "replaced card × close", run: func(e *edge) {
			card, _ := endedBy(e, cards.CardReplaced)
			closeCard(e, card) // 200 closing, no upstream request
			e.wantCard(m, card, cards.CardReplaced, "0.00")
		}},
		{pair: "replaced card × replace", run: func(e *edge) {
			card, _ := endedBy(e, cards.CardReplaced)
			_, err := e.c.Cards.Replace(e.ctx, m, card, cards.ReplaceParams{})
			e.wantErr(err, mwallet.CodeStateInvalid)
		}},
		{pair: "closed card × freeze", run: func(e *edge) {
			card, _ := endedBy(e, cards.CardClosed)
			_, err := e.c.Cards.Freeze(e.ctx, m, card)
			e.wantErr(err, mwallet.CodeStateInvalid)
		}},
	}
	// An operator override ends a card with money on it and a top-up in
	// flight: the top-up is rejected (hold back to available) and the
	// balance returns to the member's wallet.
	for _, st := range []cards.CardStatus{cards.CardClosed, cards.CardExpired, cards.CardReplaced} {
		rows = append(rows, inflightRow{pair: "top-up in flight × operator sets " + string(st), run: func(e *edge) {
			card, tp1 := virtualInFlight(e)
			e.mustAct("cards/topups/"+tp1+"/credit", nil)
			tp2 := e.topUp(m, card, "10")
			e.wantFunds(m, "974.800000", "10.100000")
			e.mustAct("cards/"+card+"/set_status", map[string]string{"status": string(st)})
			e.wantCard(m, card, st, "0.00")
			e.wantFunds(m, "994.900000", "0.000000") // 974.80 + 10.10 released + 10.00 withdrawn
			e.wantActCode("cards/topups/"+tp2+"/credit", nil, "state_invalid")
			if n := e.events("card.withdraw.completed"); n != 1 {
				e.t.Fatalf("card.withdraw.completed sent %d times, want 1", n)
			}
		}})
	}
	// Applications: the first top-up held while the application is under
	// review.
	rows = append(rows,
		inflightRow{pair: "application with first top-up × approve, then reject", run: func(e *edge) {
			app := e.mustApply(m, cards.ApplyParams{ProductID: "cpd_virtual_std", FirstTopUp: usdtAmt("20")})
			e.wantFunds(m, "975.000000", "20.000000")
			e.mustAct("cards/applications/"+app.ID+"/approve", nil)
			e.wantActCode("cards/applications/"+app.ID+"/reject", nil, "state_invalid")
			got := e.application(m, app.ID)
			e.wantCard(m, got.CardID, cards.CardActive, "20.00")
			e.wantFunds(m, "975.000000", "0.000000")
		}},
		inflightRow{pair: "application with first top-up × reject, then approve", run: func(e *edge) {
			app := e.mustApply(m, cards.ApplyParams{ProductID: "cpd_virtual_std", FirstTopUp: usdtAmt("20")})
			e.mustAct("cards/applications/"+app.ID+"/reject", nil)
			e.wantActCode("cards/applications/"+app.ID+"/approve", nil, "state_invalid")
			e.wantFunds(m, "1000.000000", "0.000000")
		}},
		inflightRow{pair: "application in flight × card limit", run: func(e *edge) {
			if err := e.sim.Cards.SetLimit("virtual", 1); err != nil {
				e.t.Fatal(err)
			}
			first := e.mustApply(m, cards.ApplyParams{ProductID: "cpd_virtual_std", FirstTopUp: usdtAmt("10")})
			_, err := e.apply(m, cards.ApplyParams{ProductID: "cpd_virtual_std", FirstTopUp: usdtAmt("10")})
			e.wantErr(err, mwallet.CodeAPIError) // card limit reached: the application in flight holds the slot
			e.wantFunds(m, "985.000000", "10.000000")
			e.mustAct("cards/applications/"+first.ID+"/reject", nil)
			e.mustApply(m, cards.ApplyParams{ProductID: "cpd_virtual_std"})
			e.wantFunds(m, "995.000000", "0.000000")
		}},
	)
	// Quick KYC bindings used by an application.
	nokyc := simulator.WithMember(simulator.MemberSeed{ExternalID: "nokyc", Balances: map[string]string{"USDT": "100"}})
	quickApply := func(e *edge) (app *cards.Application, binding string) {
		e.t.Helper()
		app = e.mustApply("nokyc", cards.ApplyParams{ProductID: "cpd_virtual_std", FirstTopUp: usdtAmt("10"), QuickKYCEmail: "nokyc@example.com"})
		e.wantFunds("nokyc", "75.000000", "10.000000") // quick KYC 10, fee 5, first top-up 10 held
		for b, err := range e.c.KYC.QuickBindings(e.ctx, "nokyc", mwallet.ListParams{}) {
			if err != nil {
				e.t.Fatal(err)
			}
			binding = b.ID
		}
		if binding == "" {
			e.t.Fatal("no quick KYC binding allocated")
		}
		return app, binding
	}
	rows = append(rows,
		inflightRow{pair: "application on a quick binding × compensate the binding", opts: []simulator.Option{nokyc}, run: func(e *edge) {
			app, b := quickApply(e)
			e.mustAct("kyc/quick/"+b+"/compensate", map[string]string{"compensation_source": "admin"})
			if got := e.application("nokyc", app.ID); got.Status != cards.ApplicationRejected {
				e.t.Fatalf("application on a compensated binding is %s, want rejected", got.Status)
			}
			e.wantFunds("nokyc", "100.000000", "0.000000")
			ev := e.lastEvent("kyc.quick.compensated")
			if ev.Extra["application_id"] != app.ID {
				e.t.Fatalf("kyc.quick.compensated = %+v, want application_id %s", ev, app.ID)
			}
			e.wantActCode("cards/applications/"+app.ID+"/approve", nil, "state_invalid")
		}},
		inflightRow{pair: "compensated binding × compensate again", opts: []simulator.Option{nokyc}, run: func(e *edge) {
			_, b := quickApply(e)
			e.mustAct("kyc/quick/"+b+"/compensate", nil)
			e.wantActCode("kyc/quick/"+b+"/compensate", nil, "state_invalid")
			e.wantFunds("nokyc", "100.000000", "0.000000")
		}},
		inflightRow{pair: "application issued on a quick binding × compensate the binding", opts: []simulator.Option{nokyc}, run: func(e *edge) {
			app, b := quickApply(e)
			e.mustAct("cards/applications/"+app.ID+"/approve", nil)
			e.mustAct("kyc/quick/"+b+"/compensate", map[string]string{"compensation_source": "admin"})
			got := e.application("nokyc", app.ID)
			e.wantCard("nokyc", got.CardID, cards.CardActive, "10.00")
			e.wantFunds("nokyc", "85.000000", "0.000000") // the usage fee is refunded, the card stays
		}},
		inflightRow{pair: "application on a quick binding × reject", opts: []simulator.Option{nokyc}, run: func(e *edge) {
			app, b := quickApply(e)
			e.mustAct("cards/applications/"+app.ID+"/reject", nil)
			e.wantFunds("nokyc", "100.000000", "0.000000") // the first upstream failure compensates the binding
			e.wantActCode("kyc/quick/"+b+"/compensate", nil, "state_invalid")
		}},
	)
	runInflight(t, rows)
}
