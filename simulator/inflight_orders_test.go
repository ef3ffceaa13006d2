package simulator_test

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
)

// remitStates are the remittance statuses an order can be in (public
// names), each reached the way the service gets there.
var remitStates = []string{"pending", "reviewing", "platform_reviewing", "dispatching", "processing", "needs_reconfirm", "completed", "failed", "refunded"}

// remitNext is the remittance state machine as the guide states it:
// action, then from-status, then to-status; an absent pair is
// state_invalid. pending advances only when the prepaid covers the order
// (the rows start with an empty prepaid account).
var remitNext = map[string]map[string]string{
	"advance": {"reviewing": "dispatching", "platform_reviewing": "dispatching", "needs_reconfirm": "dispatching",
		"dispatching": "processing", "processing": "completed"},
	"dispatch": {"reviewing": "processing", "platform_reviewing": "processing", "dispatching": "processing", "needs_reconfirm": "processing"},
	"complete": {"processing": "completed"},
	"fail": {"pending": "failed", "reviewing": "failed", "platform_reviewing": "failed", "dispatching": "failed",
		"processing": "failed", "needs_reconfirm": "failed"},
	"refund":          {"completed": "refunded"},
	"needs_reconfirm": {"reviewing": "needs_reconfirm", "platform_reviewing": "needs_reconfirm", "dispatching": "needs_reconfirm", "processing": "needs_reconfirm"},
}

// remitCase is a remittance brought to a state.
type remitCase struct {
	member   string
	id, key  string
	merchant bool
	quote    *remittance.Quote
	prepaid0 string // prepaid available before the order was created
}

const remitPayer = "payer" // member-funded rows: 5000 USDT, KYC 1

// remitIn creates a remittance and drives it to state. pending and
// platform_reviewing are merchant-funded (merchant_hosted), the others
// member-funded; the simulator must have been started with remitOpts.
func remitIn(e *edge, state string) remitCase {
	e.t.Helper()
	rc := remitCase{member: remitPayer, merchant: state == "pending" || state == "platform_reviewing", key: uuidN(4242)}
	gbp := "100.00"
	if state == "reviewing" {
		gbp = "800.00" // customer_total at or above 1000 goes to review
	}
	if rc.merchant {
		if err := e.sim.Merchant.Set(simulator.MerchantSettings{Model: simulator.MerchantHosted}); err != nil {
			e.t.Fatal(err)
		}
		if state == "pending" {
			if err := e.sim.Merchant.WithdrawPrepaid("USDT", ""); err != nil {
				e.t.Fatal(err)
			}
		}
	}
	p0, _ := e.sim.Merchant.PrepaidBalance("USDT")
	rc.prepaid0 = p0.String()
	res, err := e.remit(rc.member, gbp, rc.merchant, mwallet.WithIdempotencyKey(rc.key))
	if err != nil {
		e.t.Fatalf("create: %v", err)
	}
	rc.id, rc.quote = res.ID, res.Quote
	steps := map[string][]string{
		"processing":      {"dispatch"},
		"needs_reconfirm": {"needs_reconfirm"},
		"completed":       {"dispatch", "complete"},
		"failed":          {"fail"},
		"refunded":        {"dispatch", "complete", "refund"},
	}[state]
	for _, a := range steps {
		e.mustAct("remittances/"+rc.id+"/"+a, nil)
	}
	if got := e.remitOrder(rc.member, rc.id).Status; string(got) != state {
		e.t.Fatalf("order reached %s, want %s", got, state)
	}
	return rc
}

var remitOpts = []simulator.Option{simulator.WithMember(simulator.MemberSeed{ExternalID: remitPayer, KYCLevel: 1, Balances: map[string]string{"USDT": "5000"}})}

// wantRemitMoney checks where the order's money is in status st; topUp is
// what was added to the prepaid account since the order was created.
func wantRemitMoney(e *edge, rc remitCase, st string, topUp string) {
	e.t.Helper()
	prepaidBefore := sumUSDT(e.t, rc.prepaid0, topUp)
	locked, total := rc.quote.LockedAmount.String(), rc.quote.CustomerTotal.String()
	spent := func(v string) string { return sumUSDT(e.t, "5000", "-"+v) }
	if rc.merchant {
		switch st {
		case "pending", "failed", "refunded":
			e.wantPrepaid(prepaidBefore, "0.000000")
		case "completed":
			e.wantPrepaid(sumUSDT(e.t, prepaidBefore, "-"+total), "0.000000")
		default:
			e.wantPrepaid(sumUSDT(e.t, prepaidBefore, "-"+locked), locked)
		}
		e.wantFunds(rc.member, "5000.000000", "0.000000")
		return
	}
	switch st {
	case "failed", "refunded":
		e.wantFunds(rc.member, "5000.000000", "0.000000")
	case "completed":
		e.wantFunds(rc.member, spent(total), "0.000000")
	default:
		e.wantFunds(rc.member, spent(locked), locked)
	}
}

// TestInflightRemittances plays every control action, the create replay,
// a read and a prepaid top-up on an order in every status: the state
// machine moves or answers state_invalid, and the money is where the
// status says, never left on a final order.
func TestInflightRemittances(t *testing.T) {
	t.Parallel()
	var rows []inflightRow
	for _, st := range remitStates {
		for _, action := range []string{"advance", "dispatch", "complete", "fail", "refund", "needs_reconfirm"} {
			want, ok := remitNext[action][st]
			rows = append(rows, inflightRow{pair: "remittance " + st + " × " + action, opts: remitOpts, run: func(e *edge) {
				rc := remitIn(e, st)
				r := e.act("remittances/"+rc.id+"/"+action, nil)
				switch {
				case !ok && (r.status != 400 || r.code() != "state_invalid"):
					e.t.Fatalf("%s on %s: %v, want state_invalid", action, st, r)
				case ok && r.status != 200:
					e.t.Fatalf("%s on %s: %v, want %s", action, st, r, want)
				case !ok:
					want = st
				}
				got := e.remitOrder(rc.member, rc.id)
				if string(got.Status) != want {
					e.t.Fatalf("%s on %s: order is %s, want %s", action, st, got.Status, want)
				}
				wantRemitMoney(e, rc, want, "0")
			}})
		}
		rows = append(rows,
			inflightRow{pair: "remittance " + st + " × create replayed", opts: remitOpts, run: func(e *edge) {
				rc := remitIn(e, st)
				res, err := e.remit(rc.member, map[bool]string{true: "800.00", false: "100.00"}[st == "reviewing"], rc.merchant, mwallet.WithIdempotencyKey(rc.key))
				if err != nil {
					e.t.Fatalf("replay: %v", err)
				}
				if !res.Duplicated || res.ID != rc.id || string(res.Status) != st || res.Quote != nil {
					e.t.Fatalf("replay = %s, want the same order, duplicated, status %s", jsonOf(res), st)
				}
				wantRemitMoney(e, rc, st, "0")
			}},
			inflightRow{pair: "remittance " + st + " × prepaid top-up", opts: remitOpts, run: func(e *edge) {
				rc := remitIn(e, st)
				e.mustAct("merchant/prepaid/topup", map[string]string{"asset": "USDT", "amount": "5000"})
				want := st
				if st == "pending" {
					want = "platform_reviewing" // only a queued order moves
				}
				if got := e.remitOrder(rc.member, rc.id).Status; string(got) != want {
					e.t.Fatalf("after a prepaid top-up the order is %s, want %s", got, want)
				}
				wantRemitMoney(e, rc, want, "5000")
			}},
		)
	}
	runInflight(t, rows)
}

// qrStates are the QR order statuses an order can reach; processing is
// also played after a timed-out notice. expired and canceled are never
// produced (the contract shows no transition into them).
var qrStates = []string{"processing", "processing (timed out)", "completed", "failed", "refunded"}

// qrNext is the QR state machine of the contract; an absent pair is
// state_invalid.
var qrNext = map[string]map[string]string{
	"complete": {"processing": "completed", "processing (timed out)": "completed"},
	"fail":     {"processing": "failed", "processing (timed out)": "failed"},
	"refund":   {"completed": "refunded"},
	"timeout":  {"processing": "processing", "processing (timed out)": "processing"},
}

// TestInflightQROrders plays every upstream outcome, the payment replay and
// a read on a QR order in every status.
func TestInflightQROrders(t *testing.T) {
	t.Parallel()
	const m = member1
	qrIn := func(e *edge, st string) (*qrpay.Order, string) {
		e.t.Helper()
		o, key, err := e.qrPay(m, thaiQR("250.00", "1"))
		if err != nil || o.Status != qrpay.StatusProcessing {
			e.t.Fatalf("pay: %+v, %v", o, err)
		}
		for _, a := range map[string][]string{"processing (timed out)": {"timeout"}, "completed": {"complete"}, "failed": {"fail"}, "refunded": {"complete", "refund"}}[st] {
			e.mustAct("qrpay/orders/"+o.ID+"/"+a, nil)
		}
		return o, key
	}
	wantMoney := func(e *edge, o *qrpay.Order, st string) {
		e.t.Helper()
		total := o.CustomerTotal.String()
		switch st {
		case "processing":
			e.wantFunds(m, sumUSDT(e.t, "1000", "-"+total), total)
		case "completed":
			e.wantFunds(m, sumUSDT(e.t, "1000", "-"+total), "0.000000")
		default:
			e.wantFunds(m, "1000.000000", "0.000000")
		}
	}
	var rows []inflightRow
	for _, st := range qrStates {
		for _, action := range []string{"complete", "fail", "refund", "timeout"} {
			want, ok := qrNext[action][st]
			rows = append(rows, inflightRow{pair: "QR order " + st + " × " + action, run: func(e *edge) {
				o, _ := qrIn(e, st)
				r := e.act("qrpay/orders/"+o.ID+"/"+action, nil)
				switch {
				case !ok && (r.status != 400 || r.code() != "state_invalid"):
					e.t.Fatalf("%s on %s: %v, want state_invalid", action, st, r)
				case ok && r.status != 200:
					e.t.Fatalf("%s on %s: %v, want %s", action, st, r, want)
				case !ok:
					want = st
					if st == "processing (timed out)" {
						want = "processing"
					}
				}
				got, err := e.c.QRPay.Order(e.ctx, m, o.ID)
				if err != nil {
					e.t.Fatal(err)
				}
				if string(got.Status) != want {
					e.t.Fatalf("%s on %s: order is %s, want %s", action, st, got.Status, want)
				}
				wantMoney(e, o, want)
			}})
		}
		rows = append(rows, inflightRow{pair: "QR order " + st + " × payment replayed", run: func(e *edge) {
			o, key := qrIn(e, st)
			again, err := e.c.QRPay.Pay(e.ctx, m, qrpay.PayParams{CodeValue: thaiQR("250.00", "1")}, mwallet.WithIdempotencyKey(key))
			if err != nil {
				e.t.Fatalf("replay: %v", err)
			}
			if again.ID != o.ID || !again.Response.Replayed {
				e.t.Fatalf("replay = %+v, want the stored answer for %s", again, o.ID)
			}
			want := st
			if st == "processing (timed out)" {
				want = "processing"
			}
			wantMoney(e, o, want) // a replay moves nothing
		}})
	}
	runInflight(t, rows)
}

// TestInflightDeposits: a deposit is credited in the request that posts
// it; nothing of it is ever in flight. A second posting of its reference,
// under another key or the same one, is answered with the first and
// credits nothing.
func TestInflightDeposits(t *testing.T) {
	t.Parallel()
	const m = member1
	post := func(e *edge, key string) *deposits.Deposit {
		e.t.Helper()
		d, err := e.c.Deposits.Create(e.ctx, m, deposits.CreateParams{Asset: "USDT", Amount: usdtAmt("25"), Reference: "ref-1"}, mwallet.WithIdempotencyKey(key))
		if err != nil {
			e.t.Fatal(err)
		}
		return d
	}
	runInflight(t, []inflightRow{
		{pair: "deposit credited × same reference, new key", run: func(e *edge) {
			post(e, uuidN(1))
			if d := post(e, uuidN(2)); !d.Replayed {
				e.t.Fatalf("second posting = %+v, want replayed", d)
			}
			e.wantFunds(m, "1025.000000", "0.000000")
		}},
		{pair: "deposit credited × same key", run: func(e *edge) {
			post(e, uuidN(1))
			if d := post(e, uuidN(1)); !d.Response.Replayed {
				e.t.Fatalf("resend = %+v, want an idempotent replay", d.Response)
			}
			e.wantFunds(m, "1025.000000", "0.000000")
		}},
	})
}

// TestInflightTablesMatchReadme keeps the guide's "Operations in flight"
// matrices and the tables these tests play identical.
func TestInflightTablesMatchReadme(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("guide/qr-payments-and-in-flight.md")
	if err != nil {
		t.Fatal(err)
	}
	// matrix reads the table whose header starts with head: first column
	// the status, then one column per action; "—" is state_invalid.
	matrix := func(head string, actions []string) map[string]map[string]string {
		out := map[string]map[string]string{}
		lines := strings.Split(string(b), "\n")
		start := -1
		for i, l := range lines {
			if strings.HasPrefix(l, head) {
				start = i + 2
			}
		}
		if start < 0 {
			t.Fatalf("guide/qr-payments-and-in-flight.md has no table %q", head)
		}
		for _, l := range lines[start:] {
			if !strings.HasPrefix(l, "|") {
				break
			}
			cells := strings.Split(strings.Trim(l, "|"), "|")
			from := strings.TrimSpace(cells[0])
			for i, a := range actions {
				to := strings.TrimSpace(cells[i+1])
				if strings.HasPrefix(to, "—") {
					continue
				}
				to, _, _ = strings.Cut(to, " (")
				if out[a] == nil {
					out[a] = map[string]string{}
				}
				out[a][from] = to
			}
		}
		return out
	}
	remit := matrix("| status | advance | dispatch |", []string{"advance", "dispatch", "complete", "fail", "refund", "needs_reconfirm"})
	if diff := cmp.Diff(remitNext, remit); diff != "" {
		t.Errorf("the guide's remittance matrix differs from the tested table (-tested +guide):\n%s", diff)
	}
	qr := matrix("| status | complete | fail |", []string{"complete", "fail", "refund", "timeout"})
	for _, m := range qr {
		if v, ok := m["processing, notice timed out"]; ok {
			delete(m, "processing, notice timed out")
			m["processing (timed out)"] = v
		}
	}
	if diff := cmp.Diff(qrNext, qr); diff != "" {
		t.Errorf("the guide's QR matrix differs from the tested table (-tested +guide):\n%s", diff)
	}
}
