package simulator_test

import (
	"testing"

	"github.com/google/uuid"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/kyc"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
)

// gate is a change that happens while an object waits on a deferred path:
// it applies to a member (external id) or to the merchant.
type gate struct {
	name  string
	apply func(e *edge, member string)
	// undo makes the member readable again through the API (a suspended or
	// blocklisted member is member_not_found), so the row can read the
	// object afterwards.
	undo func(e *edge, member string)
}

func memberStatusGate(status string) gate {
	g := gate{name: "member " + status, apply: func(e *edge, m string) {
		e.mustAct("members/"+m+"/status", map[string]string{"status": status})
	}}
	if status == "suspended" || status == "blocklisted" {
		g.undo = func(e *edge, m string) { e.mustAct("members/"+m+"/status", map[string]string{"status": "active"}) }
	}
	return g
}

var (
	gateKYCUpdate = gate{name: "KYC profile updated (back to review)", apply: func(e *edge, m string) { e.mustAct("kyc/"+m+"/update", nil) }}
	gateBanned    = memberStatusGate("banned")
	gateFrozen    = memberStatusGate("frozen")
	gateSuspended = memberStatusGate("suspended")
	gateBlocked   = memberStatusGate("blocklisted")
	gateMerchant  = gate{name: "merchant suspended", apply: func(e *edge, _ string) {
		e.mustAct("merchant", map[string]string{"status": "suspended"})
	}, undo: func(e *edge, _ string) { e.mustAct("merchant", map[string]string{"status": "active"}) }}
	memberGates = []gate{gateKYCUpdate, gateBanned, gateFrozen, gateSuspended, gateBlocked}
)

// gateRow is one (deferred path × gate) pair of the README's table "Limits
// and gates on deferred paths".
type gateRow struct {
	pair string
	opts []simulator.Option
	run  func(e *edge)
}

func runGates(t *testing.T, rows []gateRow) {
	t.Helper()
	in := make([]inflightRow, len(rows))
	for i, r := range rows {
		in[i] = inflightRow(r)
	}
	runInflight(t, in)
}

// wantFailed asserts that a remittance failed with failure code and that
// remittance.order.failed was sent.
func wantRemitFailed(e *edge, member, id, code string) {
	e.t.Helper()
	o := e.remitOrder(member, id)
	if o.Status != remittance.StatusFailed || o.FailureCode != code {
		e.t.Fatalf("order %s is %s (failure_code %q), want failed with %s", id, o.Status, o.FailureCode, code)
	}
	if e.events("remittance.order.failed") == 0 {
		e.t.Fatal("no remittance.order.failed event")
	}
}

// TestGatesRemittances: every deferred path of a remittance against every
// gate of the line. A queued order is judged when it would advance (the
// prepaid covers it and the merchant is active); a held order when it moves
// towards the upstream. One that no longer passes fails with the gate's
// code and what it held returns; a queued one held nothing.
func TestGatesRemittances(t *testing.T) {
	t.Parallel()
	const m = remitPayer
	merchantHosted := func(e *edge) {
		e.t.Helper()
		if err := e.sim.Merchant.Set(simulator.MerchantSettings{Model: simulator.MerchantHosted}); err != nil {
			e.t.Fatal(err)
		}
		if err := e.sim.Merchant.WithdrawPrepaid("USDT", ""); err != nil {
			e.t.Fatal(err)
		}
	}
	queue := func(e *edge, gbp string) string {
		e.t.Helper()
		res, err := e.remit(m, gbp, true)
		if err != nil || res.Status != remittance.StatusPending {
			e.t.Fatalf("queue: %+v, %v", res, err)
		}
		return res.ID
	}
	// The queued paths: each makes the prepaid cover the queue (and the
	// merchant active), which advances it oldest first.
	queuedPaths := []struct {
		name string
		run  func(e *edge)
	}{
		{"prepaid top-up (merchant/prepaid/topup)", func(e *edge) {
			e.mustAct("merchant/prepaid/topup", map[string]string{"asset": "USDT", "amount": "20000"})
		}},
		{"prepaid set by the operator (POST /_sim/merchant)", func(e *edge) {
			e.mustAct("merchant", map[string]any{"prepaid": map[string]string{"USDT": "20000"}})
		}},
		{"merchant active again with the prepaid funded", func(e *edge) {
			e.mustAct("merchant", map[string]string{"status": "suspended"})
			e.mustAct("merchant/prepaid/topup", map[string]string{"asset": "USDT", "amount": "20000"})
			e.mustAct("merchant", map[string]string{"status": "active"})
		}},
	}
	var rows []gateRow
	for _, p := range queuedPaths {
		for _, g := range memberGates {
			want := "request_rejected"
			if g.name == gateKYCUpdate.name {
				want = "kyc_required"
			}
			rows = append(rows, gateRow{pair: "queued remittance advancing: " + p.name + " × " + g.name, opts: remitOpts, run: func(e *edge) {
				merchantHosted(e)
				id := queue(e, "100.00")
				g.apply(e, m)
				p.run(e)
				if g.undo != nil {
					g.undo(e, m)
				}
				wantRemitFailed(e, m, id, want)
				e.wantPrepaid("20000.000000", "0.000000") // nothing was held, nothing moves
			}})
		}
		// The daily limit as of the moment the queue advances: three queued
		// orders of 3,823.656051 (11,470.968153 in all) against 10,000.
		rows = append(rows, gateRow{pair: "queued remittance advancing: " + p.name + " × daily limit", opts: remitOpts, run: func(e *edge) {
			merchantHosted(e)
			a, b, c := queue(e, "3000.00"), queue(e, "3000.00"), queue(e, "3000.00")
			p.run(e)
			held := "0"
			for _, id := range []string{a, b} {
				o := e.remitOrder(m, id)
				if o.Status != remittance.StatusPlatformReviewing {
					e.t.Fatalf("order %s is %s, want platform_reviewing", id, o.Status)
				}
				held = sumUSDT(e.t, held, o.LockedAmount.String())
			}
			wantRemitFailed(e, m, c, "limit_exceeded")
			// A direct order the same day is refused alike.
			_, err := e.remit(m, "3000.00", true)
			e.wantErr(err, mwallet.CodeLimitExceeded)
			e.wantPrepaid(sumUSDT(e.t, "20000", "-"+held), held)
		}})
		if p.name != queuedPaths[2].name {
			rows = append(rows, gateRow{pair: "queued remittance advancing: " + p.name + " × merchant suspended", opts: remitOpts, run: func(e *edge) {
				merchantHosted(e)
				id := queue(e, "100.00")
				gateMerchant.apply(e, m)
				p.run(e)
				if st := e.remitOrder(m, id).Status; st != remittance.StatusPending {
					e.t.Fatalf("order is %s while the merchant is suspended, want pending", st)
				}
				gateMerchant.undo(e, m) // active again: the queue advances
				if st := e.remitOrder(m, id).Status; st != remittance.StatusPlatformReviewing {
					e.t.Fatalf("order is %s once the merchant is active, want platform_reviewing", st)
				}
			}})
		}
	}
	rows = append(rows, gateRow{pair: "queued remittance: control advance × prepaid short", opts: remitOpts, run: func(e *edge) {
		merchantHosted(e)
		id := queue(e, "100.00")
		gateKYCUpdate.apply(e, m)
		e.wantActCode("remittances/"+id+"/advance", nil, "state_invalid") // judged by no gate until it would advance
		if st := e.remitOrder(m, id).Status; st != remittance.StatusPending {
			e.t.Fatalf("order is %s, want pending", st)
		}
	}})

	// Held orders moving towards the upstream.
	type heldPath struct {
		name  string
		state string // where the order waits when the gate changes
		run   func(e *edge, id string)
		moved remittance.Status // where it goes when nothing stops it
	}
	heldPaths := []heldPath{
		{name: "reviewed order dispatched (dispatch)", state: "reviewing", moved: remittance.StatusProcessing,
			run: func(e *edge, id string) { e.act("remittances/"+id+"/dispatch", nil) }},
		{name: "reviewed order advanced (advance)", state: "reviewing", moved: remittance.StatusDispatching,
			run: func(e *edge, id string) { e.act("remittances/"+id+"/advance", nil) }},
		{name: "reconfirmed order (needs_reconfirm, advance)", state: "needs_reconfirm", moved: remittance.StatusDispatching,
			run: func(e *edge, id string) { e.act("remittances/"+id+"/advance", nil) }},
		{name: "dispatching order sent (dispatch)", state: "dispatching", moved: remittance.StatusProcessing,
			run: func(e *edge, id string) { e.act("remittances/"+id+"/dispatch", nil) }},
		{name: "outcome mode after 1h (natural path)", state: "dispatching", moved: remittance.StatusCompleted,
			run: func(e *edge, id string) {
				e.mustAct("outcomes", map[string]string{"object_id": id, "mode": "after:1h"})
				e.mustAct("clock", map[string]int{"advance_seconds": 3600})
			}},
	}
	biz := simulator.WithMember(simulator.MemberSeed{ExternalID: "biz", KYCLevel: 2, Balances: map[string]string{"USDT": "5000"}})
	rich := simulator.WithMember(simulator.MemberSeed{ExternalID: "rich", KYCLevel: 1, Balances: map[string]string{"USDT": "20000"}})
	heldIn := func(e *edge, member string, line remittance.Line, state string) (string, string) {
		e.t.Helper()
		gbp := "100.00"
		if state == "reviewing" {
			gbp = "800.00"
		}
		p := e.remitParams(member, gbp, false)
		p.Line = line
		if line == remittance.LinePOBO {
			p.PurposeCode = remittance.PurposeGoodsPurchased
		}
		res, err := e.c.Remittances.Create(e.ctx, member, p)
		if err != nil {
			e.t.Fatalf("create: %v", err)
		}
		if state == "needs_reconfirm" {
			e.mustAct("remittances/"+res.ID+"/needs_reconfirm", nil)
		}
		if st := e.remitOrder(member, res.ID).Status; string(st) != state {
			e.t.Fatalf("order is %s, want %s", st, state)
		}
		return res.ID, res.Quote.LockedAmount.String()
	}
	for _, p := range heldPaths {
		for _, g := range memberGates {
			want := "request_rejected"
			if g.name == gateKYCUpdate.name {
				want = "kyc_required"
			}
			rows = append(rows, gateRow{pair: "held remittance: " + p.name + " × " + g.name, opts: remitOpts, run: func(e *edge) {
				id, _ := heldIn(e, m, remittance.LineExpress, p.state)
				g.apply(e, m)
				p.run(e, id)
				if g.undo != nil {
					g.undo(e, m)
				}
				wantRemitFailed(e, m, id, want)
				e.wantFunds(m, "5000.000000", "0.000000") // the hold is returned
			}})
		}
		rows = append(rows,
			gateRow{pair: "held remittance: " + p.name + " × pobo subaccount inactive", opts: []simulator.Option{biz}, run: func(e *edge) {
				id, _ := heldIn(e, "biz", remittance.LinePOBO, p.state)
				if err := e.sim.Merchant.SetPOBOSubaccount(false); err != nil {
					e.t.Fatal(err)
				}
				p.run(e, id)
				wantRemitFailed(e, "biz", id, "product_not_available")
				e.wantFunds("biz", "5000.000000", "0.000000")
			}},
			// Gates that do not stop an order already held: the merchant's
			// status governs requests and the queue, and the held order
			// reserved its limits when it was held.
			gateRow{pair: "held remittance: " + p.name + " × merchant suspended", opts: remitOpts, run: func(e *edge) {
				id, _ := heldIn(e, m, remittance.LineExpress, p.state)
				gateMerchant.apply(e, m)
				p.run(e, id)
				gateMerchant.undo(e, m)
				if st := e.remitOrder(m, id).Status; st != p.moved {
					e.t.Fatalf("order is %s, want %s", st, p.moved)
				}
			}},
			gateRow{pair: "held remittance: " + p.name + " × daily limit reached meanwhile", opts: []simulator.Option{rich}, run: func(e *edge) {
				id, _ := heldIn(e, "rich", remittance.LineExpress, p.state)
				for i := 0; i < 2; i++ { // 2 × 3,823.66 more today
					if _, err := e.remit("rich", "3000.00", false); err != nil {
						e.t.Fatal(err)
					}
				}
				_, err := e.remit("rich", "3000.00", false)
				e.wantErr(err, mwallet.CodeLimitExceeded)
				p.run(e, id)
				if st := e.remitOrder("rich", id).Status; st != p.moved {
					e.t.Fatalf("order is %s, want %s (its limit was reserved when held)", st, p.moved)
				}
			}},
		)
	}
	rows = append(rows, gateRow{pair: "remittance create replayed × KYC profile updated", opts: remitOpts, run: func(e *edge) {
		key := uuid.NewString()
		res, err := e.remit(m, "100.00", false, mwallet.WithIdempotencyKey(key))
		if err != nil {
			e.t.Fatal(err)
		}
		gateKYCUpdate.apply(e, m)
		again, err := e.remit(m, "100.00", false, mwallet.WithIdempotencyKey(key))
		if err != nil || !again.Duplicated || again.ID != res.ID {
			e.t.Fatalf("replay after the KYC update: %+v, %v; want the stored order", again, err)
		}
		e.wantFunds(m, sumUSDT(e.t, "5000", "-"+res.Quote.LockedAmount.String()), res.Quote.LockedAmount.String())
		_, err = e.remit(m, "100.00", false) // a new order is refused
		e.wantErr(err, mwallet.CodeKYCRequired)
	}})
	runGates(t, rows)
}

// TestGatesQR: a payment executes only when it is resent after the hosted
// step-up screen; that resend passes every gate again. The upstream's
// outcome of an accepted payment is not gated, and a replay moves nothing.
func TestGatesQR(t *testing.T) {
	t.Parallel()
	big := simulator.WithMember(simulator.MemberSeed{ExternalID: "big", KYCLevel: 2, Balances: map[string]string{"USDT": "10000"}})
	type resendGate struct {
		g      gate
		member string
		thb    string
		code   mwallet.Code
	}
	gates := []resendGate{
		{g: gateKYCUpdate, member: member1, thb: "250.00", code: mwallet.CodeAPIError},
		{g: gate{name: "KYC level down to 1 (threshold 1000 USD needs 2)", apply: func(e *edge, m string) {
			e.mustAct("kyc/"+m+"/approve", map[string]int{"level": 1})
		}}, member: "big", thb: "40000.00", code: mwallet.CodeAPIError},
		{g: gateFrozen, member: member1, thb: "250.00", code: mwallet.CodeAPIError},
		{g: gateBanned, member: member1, thb: "250.00", code: mwallet.CodeAPIError},
		{g: gateSuspended, member: member1, thb: "250.00", code: mwallet.CodeMemberNotFound},
		{g: gateBlocked, member: member1, thb: "250.00", code: mwallet.CodeMemberNotFound},
		{g: gate{name: "daily limit used by another payment", apply: func(e *edge, m string) {
			if o, _, err := e.qrPay(m, thaiQR("60000.00", "other")); err != nil || o.Status != qrpay.StatusProcessing {
				e.t.Fatalf("other payment: %+v, %v", o, err)
			}
		}}, member: "big", thb: "60000.00", code: mwallet.CodeAPIError},
		{g: gate{name: "QR line switched off", apply: func(e *edge, _ string) {
			if err := e.sim.QRPay.SetEnabled(false); err != nil {
				e.t.Fatal(err)
			}
		}}, member: member1, thb: "250.00", code: mwallet.CodeServiceUnavailable},
		{g: gateMerchant, member: member1, thb: "250.00", code: mwallet.CodeMerchantDisabled},
	}
	var rows []gateRow
	for _, rg := range gates {
		rows = append(rows, gateRow{pair: "QR payment resent after step-up × " + rg.g.name, opts: []simulator.Option{big}, run: func(e *edge) {
			key := uuid.NewString()
			p := qrpay.PayParams{CodeValue: thaiQR(rg.thb, "1")}
			_, err := e.c.QRPay.Pay(e.ctx, rg.member, p, mwallet.WithIdempotencyKey(key))
			su, ok := mwallet.AsStepUp(err)
			if !ok {
				e.t.Fatalf("first call: %v", err)
			}
			if err := e.sim.StepUp.Complete(su.ChallengeID); err != nil {
				e.t.Fatal(err)
			}
			a0, l0 := e.funds(rg.member, "USDT")
			rg.g.apply(e, rg.member)
			a1, l1 := e.funds(rg.member, "USDT")
			_, err = e.c.QRPay.Pay(e.ctx, rg.member, p, mwallet.WithIdempotencyKey(key), mwallet.WithStepUp(su.ChallengeID))
			e.wantErr(err, rg.code)
			if a, l := e.funds(rg.member, "USDT"); a != a1 || l != l1 {
				e.t.Fatalf("a refused payment moved money: %s/%s -> %s/%s (before the gate %s/%s)", a1, l1, a, l, a0, l0)
			}
		}})
	}
	for _, g := range []gate{gateFrozen, gateKYCUpdate, gateBanned} {
		rows = append(rows, gateRow{pair: "QR outcome after 1 minute × " + g.name, run: func(e *edge) {
			e.mustAct("outcomes", map[string]string{"collection": string(simulator.CollectionQROrders), "mode": "after:1m"})
			o, _, err := e.qrPay(member1, thaiQR("250.00", "1"))
			if err != nil {
				e.t.Fatal(err)
			}
			g.apply(e, member1)
			e.mustAct("clock", map[string]int{"advance_seconds": 60})
			got, err := e.c.QRPay.Order(e.ctx, member1, o.ID)
			if err != nil || got.Status != qrpay.StatusCompleted {
				e.t.Fatalf("order after the outcome: %+v, %v; the upstream's outcome is not gated", got, err)
			}
			e.wantFunds(member1, sumUSDT(e.t, "1000", "-"+o.CustomerTotal.String()), "0.000000")
		}})
	}
	for _, g := range []gate{gateFrozen, gateSuspended} {
		rows = append(rows, gateRow{pair: "QR payment replayed × " + g.name, run: func(e *edge) {
			o, key, err := e.qrPay(member1, thaiQR("250.00", "1"))
			if err != nil {
				e.t.Fatal(err)
			}
			g.apply(e, member1)
			again, err := e.c.QRPay.Pay(e.ctx, member1, qrpay.PayParams{CodeValue: thaiQR("250.00", "1")}, mwallet.WithIdempotencyKey(key))
			if g.undo != nil {
				e.wantErr(err, mwallet.CodeMemberNotFound) // the gateway finds no member before any replay
				g.undo(e, member1)
			} else if err != nil || again.ID != o.ID || !again.Response.Replayed {
				e.t.Fatalf("replay: %+v, %v; want the stored answer", again, err)
			}
			total := o.CustomerTotal.String()
			e.wantFunds(member1, sumUSDT(e.t, "1000", "-"+total), total)
		}})
	}
	runGates(t, rows)
}

// TestGatesCards: an application is issued by a later approval (the control
// action or an outcome mode); the approval passes the product's gates
// again, and one that no longer passes is rejected with everything
// returned. The KYC profile under review stops issuing on the direct path
// too, quick KYC included, before anything is charged.
func TestGatesCards(t *testing.T) {
	t.Parallel()
	const m = member1
	type approvalGate struct {
		g       gate
		product string
		first   string
		reason  string // reject_reason; "" means the approval still issues
	}
	country := gate{name: "KYC country now restricted", apply: func(e *edge, m string) {
		if err := e.sim.Cards.SetKYCCountry(m, "US"); err != nil {
			e.t.Fatal(err)
		}
	}}
	penalties := gate{name: "outstanding penalties", apply: func(e *edge, m string) {
		if err := e.sim.Cards.SetPenalty(m, true); err != nil {
			e.t.Fatal(err)
		}
	}}
	productOff := gate{name: "product disabled", apply: func(e *edge, _ string) {
		if err := e.sim.Cards.SetProductEnabled("cpd_virtual_review", false); err != nil {
			e.t.Fatal(err)
		}
	}}
	limit := gate{name: "card limit lowered to 0", apply: func(e *edge, _ string) {
		if err := e.sim.Cards.SetLimit("virtual", 0); err != nil {
			e.t.Fatal(err)
		}
	}}
	approvals := []approvalGate{
		{g: gateKYCUpdate, product: "cpd_virtual_std", first: "10", reason: "kyc_required"},
		{g: country, product: "cpd_virtual_review", first: "20", reason: "kyc_country_restricted"},
		{g: penalties, product: "cpd_virtual_std", first: "10", reason: "outstanding_penalties"},
		{g: gateBanned, product: "cpd_virtual_std", first: "10", reason: "member_restricted"},
		{g: gateFrozen, product: "cpd_virtual_std", first: "10", reason: "member_restricted"},
		{g: gateSuspended, product: "cpd_virtual_std", first: "10", reason: "member_restricted"},
		{g: gateBlocked, product: "cpd_virtual_std", first: "10", reason: "member_restricted"},
		{g: productOff, product: "cpd_virtual_review", first: "20", reason: "product_not_available"},
		{g: limit, product: "cpd_virtual_std", first: "10", reason: ""},
	}
	var rows []gateRow
	for _, ag := range approvals {
		for _, path := range []string{"approve action", "outcome mode after 1h"} {
			rows = append(rows, gateRow{pair: "card application " + path + " × " + ag.g.name, run: func(e *edge) {
				if path != "approve action" {
					e.mustAct("outcomes", map[string]string{"collection": string(simulator.CollectionCardApplications), "mode": "after:1h"})
				}
				app := e.mustApply(m, cards.ApplyParams{ProductID: ag.product, FirstTopUp: usdtAmt(ag.first)})
				ag.g.apply(e, m)
				var out map[string]any
				if path == "approve action" {
					out = e.mustAct("cards/applications/"+app.ID+"/approve", nil)
				} else {
					e.mustAct("clock", map[string]int{"advance_seconds": 3600})
				}
				if ag.g.undo != nil {
					ag.g.undo(e, m)
				}
				got := e.application(m, app.ID)
				if ag.reason == "" {
					if got.Status != cards.ApplicationIssued {
						e.t.Fatalf("application is %s, want issued (it held its slot)", got.Status)
					}
					e.wantCard(m, got.CardID, cards.CardActive, ag.first+".00")
					return
				}
				if got.Status != cards.ApplicationRejected {
					e.t.Fatalf("application is %s, want rejected (%s)", got.Status, ag.reason)
				}
				if out != nil && out["reject_reason"] != ag.reason {
					e.t.Fatalf("approve answered %v, want reject_reason %s", out, ag.reason)
				}
				e.wantFunds(m, "1000.000000", "0.000000") // fee refunded, first top-up released
				if e.events("card.application.rejected") != 1 || e.events("card.topup.credited") != 0 {
					e.t.Fatal("want one card.application.rejected and no card.topup.credited")
				}
			}})
		}
	}
	l1 := simulator.WithMember(simulator.MemberSeed{ExternalID: "l1", KYCLevel: 1, Balances: map[string]string{"USDT": "100"}})
	rows = append(rows,
		gateRow{pair: "card apply with quick_kyc_email × KYC profile updated", opts: []simulator.Option{l1}, run: func(e *edge) {
			gateKYCUpdate.apply(e, "l1")
			_, err := e.apply("l1", cards.ApplyParams{ProductID: "cpd_virtual_std", QuickKYCEmail: "l1@example.com"})
			e.wantErr(err, mwallet.CodeAPIError) // KYC not passed: issuing stops while the profile is under review
			e.wantFunds("l1", "100.000000", "0.000000")
			if n := e.events("card.application.submitted"); n != 0 {
				e.t.Fatalf("%d applications created", n)
			}
		}},
		gateRow{pair: "card apply with a quick binding × KYC profile updated", opts: []simulator.Option{l1}, run: func(e *edge) {
			gateKYCUpdate.apply(e, "l1")
			b, err := e.c.KYC.CreateQuickBinding(e.ctx, "l1", kyc.QuickBindingParams{Email: "l1b@example.com"})
			if err != nil {
				e.t.Fatal(err)
			}
			_, err = e.apply("l1", cards.ApplyParams{ProductID: "cpd_virtual_std", QuickKYCBindingID: b.ID})
			e.wantErr(err, mwallet.CodeAPIError)
			e.wantFunds("l1", "90.000000", "0.000000") // only the binding's own usage fee
		}},
		gateRow{pair: "card invoice × KYC profile updated", opts: []simulator.Option{l1}, run: func(e *edge) {
			gateKYCUpdate.apply(e, "l1")
			inv, err := e.c.Cards.Quote(e.ctx, "l1", "cpd_virtual_std", cards.QuoteParams{})
			if err != nil {
				e.t.Fatal(err)
			}
			if inv.CanApply || inv.Reason != "kyc_required" {
				e.t.Fatalf("invoice under review: can_apply %v reason %q", inv.CanApply, inv.Reason)
			}
		}},
		gateRow{pair: "card apply replayed by client_key × KYC profile updated", run: func(e *edge) {
			key := cards.NewClientKey()
			app := e.mustApply(m, cards.ApplyParams{ClientKey: key, ProductID: "cpd_virtual_std"})
			gateKYCUpdate.apply(e, m)
			again, err := e.apply(m, cards.ApplyParams{ClientKey: key, ProductID: "cpd_virtual_std"})
			if err != nil || again.ID != app.ID {
				e.t.Fatalf("client_key resend: %+v, %v; want the existing application", again, err)
			}
			e.wantFunds(m, "995.000000", "0.000000") // charged once
		}},
		gateRow{pair: "card top-up credited after 1 minute × member frozen", run: func(e *edge) {
			card := e.issue(m, "cpd_virtual_std", "")
			e.mustAct("outcomes", map[string]string{"collection": string(simulator.CollectionCardTopups), "mode": "after:1m"})
			e.topUp(m, card, "10")
			gateFrozen.apply(e, m)
			e.mustAct("clock", map[string]int{"advance_seconds": 60})
			e.wantCard(m, card, cards.CardActive, "10.00") // the issuer's credit is not gated
		}},
		gateRow{pair: "card top-up replayed × member frozen", run: func(e *edge) {
			card := e.issue(m, "cpd_virtual_std", "")
			key := uuid.NewString()
			p := cards.TopUpParams{Amount: usdtAmt("10"), SourceAsset: "USDT"}
			first, err := e.c.Cards.TopUp(e.ctx, m, card, p, mwallet.WithIdempotencyKey(key))
			if err != nil {
				e.t.Fatal(err)
			}
			gateFrozen.apply(e, m)
			again, err := e.c.Cards.TopUp(e.ctx, m, card, p, mwallet.WithIdempotencyKey(key))
			if err != nil || again.ID != first.ID || !again.Response.Replayed {
				e.t.Fatalf("replay: %+v, %v", again, err)
			}
			e.wantFunds(m, "984.900000", "10.100000")   // held once
			_, err = e.c.Cards.TopUp(e.ctx, m, card, p) // a new top-up is refused
			e.wantErr(err, mwallet.CodeAPIError)
		}},
	)
	runGates(t, rows)
}

// TestGatesDeposits: a deposit executes in its request; a later posting of
// the same reference, or a replay of the same key, answers the first
// posting and credits nothing, whatever the member's status now.
func TestGatesDeposits(t *testing.T) {
	t.Parallel()
	const m = member1
	post := func(e *edge, key string) (*deposits.Deposit, error) {
		return e.c.Deposits.Create(e.ctx, m, deposits.CreateParams{Asset: "USDT", Amount: usdtAmt("25"), Reference: "ref-g"}, mwallet.WithIdempotencyKey(key))
	}
	runGates(t, []gateRow{
		{pair: "deposit reference reposted × member frozen", run: func(e *edge) {
			if _, err := post(e, uuidN(1)); err != nil {
				e.t.Fatal(err)
			}
			gateFrozen.apply(e, m)
			d, err := post(e, uuidN(2))
			if err != nil || !d.Replayed {
				e.t.Fatalf("repost: %+v, %v; want the first posting", d, err)
			}
			e.wantFunds(m, "1025.000000", "0.000000")
			_, err = e.c.Deposits.Create(e.ctx, m, deposits.CreateParams{Asset: "USDT", Amount: usdtAmt("25"), Reference: "ref-new"})
			e.wantErr(err, mwallet.CodeRequestRejected) // a new deposit is refused
		}},
		{pair: "deposit replayed by key × member frozen", run: func(e *edge) {
			if _, err := post(e, uuidN(1)); err != nil {
				e.t.Fatal(err)
			}
			gateFrozen.apply(e, m)
			d, err := post(e, uuidN(1))
			if err != nil || !d.Response.Replayed {
				e.t.Fatalf("replay: %+v, %v", d, err)
			}
			e.wantFunds(m, "1025.000000", "0.000000")
		}},
	})
}
