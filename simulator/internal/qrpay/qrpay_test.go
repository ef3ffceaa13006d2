package qrpay

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
)

var errShort = kernel.ErrInsufficientFunds

// fakeHost is a Host with two assets (USDT and USDC, scale 6), a ledger
// of balances that refuses to take a member or prepaid account below zero,
// and a step-up that passes for x-step-up "ok". The clock, ids, amounts
// and events are the transaction's (newServices).
type fakeHost struct {
	feeBps  int64
	bal     map[string]money.Amount // account|asset
	entries []string
}

func newFakeHost() *fakeHost {
	h := &fakeHost{bal: map[string]money.Amount{}}
	h.bal["member:mem_1:available|USDT"] = money.MustParse("100", 6)
	h.bal["merchant:prepaid|USDT"] = money.MustParse("100", 6)
	return h
}

// newServices are the kernel's services for the line's tests: the test
// clock and the fake host's two assets.
func newServices() *kerneltest.Services {
	svc := kerneltest.New()
	svc.Clock = testTime
	svc.Scales["USDC"] = 6
	svc.Catalogue = assets
	return svc
}

// events names the events emitted, in order.
func events(svc *kerneltest.Services) []string {
	var out []string
	for _, e := range svc.Events {
		out = append(out, fmt.Sprintf("%s %s %s %s v%d", e.Type, e.ObjectID, e.MemberID, e.Status, e.Version))
	}
	return out
}

func (h *fakeHost) Member(_ *kernel.Tx, id string) *api.Member {
	for _, m := range []*api.Member{member1, noKYC, frozen} {
		if m.ID == id {
			return m
		}
	}
	return nil
}
func (h *fakeHost) RequireStepUp(c *api.Request, _ string) error {
	if c.StepUp == "ok" {
		return nil
	}
	return api.NewErr("step_up_required", "strong authentication required")
}
func (h *fakeHost) MerchantFeeRateBps(*kernel.Tx) int64 { return h.feeBps }

// assets are the fake catalogue (newServices).
var assets = []kernel.Asset{{Code: "USDT", LedgerScale: 6, DisplayScale: 2}, {Code: "USDC", LedgerScale: 6, DisplayScale: 2}}

func (h *fakeHost) AssetAllowed(_ *kernel.Tx, code string) bool {
	for _, a := range assets {
		if a.Code == code {
			return true
		}
	}
	return false
}
func (h *fakeHost) Balance(_ *kernel.Tx, account, asset string) money.Amount {
	if b, ok := h.bal[account+"|"+asset]; ok {
		return b
	}
	return money.Zero(6)
}
func (h *fakeHost) Post(_ *kernel.Tx, _ time.Time, memo string, legs ...kernel.Posting) error {
	next := map[string]money.Amount{}
	for _, p := range legs {
		k := p.Account + "|" + p.Asset
		cur, ok := next[k]
		if !ok {
			cur = h.Balance(nil, p.Account, p.Asset)
		}
		sum, err := cur.Add(p.Amount)
		if err != nil {
			return err
		}
		if sum.Sign() < 0 && (strings.HasPrefix(p.Account, "member:") || strings.HasPrefix(p.Account, "merchant:prepaid")) {
			return fmt.Errorf("%s: %w", k, errShort)
		}
		next[k] = sum
	}
	for k, v := range next {
		h.bal[k] = v
	}
	h.entries = append(h.entries, memo)
	return nil
}

var (
	member1  = &api.Member{ID: "mem_1", ExternalID: "m-1", Status: "active", KYCLevel: 1, PaymentPriority: kernel.ListOf("USDT", "USDC")}
	noKYC    = &api.Member{ID: "mem_2", ExternalID: "m-2", Status: "active", PaymentPriority: kernel.ListOf("USDT")}
	frozen   = &api.Member{ID: "mem_3", ExternalID: "m-3", Status: "frozen", KYCLevel: 1, PaymentPriority: kernel.ListOf("USDT")}
	testTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
)

// call runs the endpoint of method and target on the line.
func call(t *testing.T, l *Line, tx *kernel.Tx, m *api.Member, method, target, body, stepUp string) (int, any, error) {
	t.Helper()
	for _, e := range l.Endpoints() {
		prefix := strings.TrimSuffix(e.Pattern, "{id}")
		byID := prefix != e.Pattern && strings.HasPrefix(target, prefix)
		if e.Method != method || (e.Pattern != target && !byID) {
			continue
		}
		r := httptest.NewRequest(method, target, strings.NewReader(body))
		if byID {
			r.SetPathValue("id", strings.TrimPrefix(target, prefix))
		}
		c := &api.Request{Tx: tx, Req: r, Now: testTime, Body: []byte(body), Member: m, StepUp: stepUp, Header: http.Header{}}
		return e.Handle(c)
	}
	t.Fatalf("no endpoint %s %s", method, target)
	return 0, nil, nil
}

func codeOf(err error) string {
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae.Code
	}
	if err != nil {
		return "error"
	}
	return ""
}

func field(body any, key string) any {
	if m, ok := body.(map[string]any); ok {
		return m[key]
	}
	return nil
}

// TestLineOnItsOwn runs the QR line's rules against a fake host, in order:
// the line needs nothing of the simulator but its Host.
func TestLineOnItsOwn(t *testing.T) {
	t.Parallel()
	svc := newServices()
	tx := svc.Begin()
	defer tx.End()
	h := newFakeHost()
	svc.Ledger = h
	l := New(svc.Kernel(), tx, h)
	pp := `{"code_value":"` + sampleqr.PromptPay + `"}`
	custom := func(extra string) string { return `{"code_value":"` + sampleqr.PromptPayCustom + `"` + extra + `}` }
	steps := []struct {
		name, method, target, body, stepUp string
		m                                  *api.Member
		status                             int
		code                               string
		key                                string // a field of the answer to compare
		want                               any
	}{
		{"decode", "POST", "/v1/qrpay/decode", pp, "", member1, 200, "", "payee", "BAAN THAI KITCHEN"},
		{"decode: no code", "POST", "/v1/qrpay/decode", `{}`, "", member1, 0, "invalid_request", "", nil},
		{"decode: not a code", "POST", "/v1/qrpay/decode", `{"code_value":"hello"}`, "", member1, 0, "qr_code_invalid", "", nil},
		{"schemes", "GET", "/v1/qrpay/schemes", "", "", nil, 200, "", "", nil},
		{"quote", "POST", "/v1/qrpay/quotes", pp, "", member1, 200, "", "acquirer_amount", "250.00"},
		{"quote: custom code without amount", "POST", "/v1/qrpay/quotes", custom(""), "", member1, 0, "invalid_request", "", nil},
		{"quote: custom code, other currency", "POST", "/v1/qrpay/quotes", custom(`,"amount":"10","currency":"SGD"`), "", member1, 0, "invalid_fields", "", nil},
		{"quote: fixed code with an amount", "POST", "/v1/qrpay/quotes", `{"code_value":"` + sampleqr.PromptPay + `","amount":"1"}`, "", member1, 0, "invalid_fields", "", nil},
		{"quote: funding_source merchant on platform_hosted", "POST", "/v1/qrpay/quotes", `{"code_value":"` + sampleqr.PromptPay + `","funding_source":"merchant"}`, "", member1, 0, "invalid_fields", "", nil},
		{"quote: below the line's KYC level", "POST", "/v1/qrpay/quotes", pp, "", noKYC, 0, "kyc_required", "", nil},
		{"quote: unknown preferred asset", "POST", "/v1/qrpay/quotes", `{"code_value":"` + sampleqr.PromptPay + `","preferred_asset":"BTC"}`, "", member1, 0, "invalid_fields", "", nil},
		{"pay: step-up first", "POST", "/v1/qrpay/payments", pp, "", member1, 0, "step_up_required", "", nil},
		{"pay: frozen member", "POST", "/v1/qrpay/payments", pp, "ok", frozen, 0, "api_error", "", nil},
		{"pay", "POST", "/v1/qrpay/payments", pp, "ok", member1, 201, "", "customer_total", "7.308109"},
		{"pay: custom amount too large for the balance", "POST", "/v1/qrpay/payments", custom(`,"amount":"60000"`), "ok", member1, 0, "api_error", "", nil},
		{"get order", "GET", "/v1/qrpay/orders/qrp_u5", "", "", member1, 200, "", "status", "processing"},
		{"get order of another member", "GET", "/v1/qrpay/orders/qrp_u5", "", "", noKYC, 0, "not_found", "", nil},
	}
	for _, s := range steps {
		status, body, err := call(t, l, tx, s.m, s.method, s.target, s.body, s.stepUp)
		if status != s.status || codeOf(err) != s.code {
			t.Errorf("%s: status %d, code %q (%v); want %d, %q", s.name, status, codeOf(err), err, s.status, s.code)
			continue
		}
		if s.key != "" {
			if diff := cmp.Diff(s.want, field(body, s.key)); diff != "" {
				t.Errorf("%s: %s (-want +got):\n%s", s.name, s.key, diff)
			}
		}
	}
	// One payment held its full debit, and is in flight.
	if diff := cmp.Diff([]string{"qrpay hold qrp_u5"}, h.entries); diff != "" {
		t.Errorf("ledger entries (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{Collection + " qrp_u5"}, svc.InFlightLog); diff != "" {
		t.Errorf("in flight (-want +got):\n%s", diff)
	}
	wantHolds := []Hold{{Owner: "qrp_u5 (processing)", Account: "member:mem_1:locked", Asset: "USDT", Amount: money.MustParse("7.308109", 6)}}
	if diff := cmp.Diff(wantHolds, l.Holds(tx)); diff != "" {
		t.Errorf("Holds (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"step_up", "quote", "hold", "notice"}, l.Trace(tx, "u5")); diff != "" {
		t.Errorf("Trace (-want +got):\n%s", diff)
	}
	if got := l.UpstreamCalls(tx); got != (UpstreamStats{Quotes: 4, Notices: 1}) {
		t.Errorf("UpstreamCalls = %+v", got)
	}
	// The memo holds the one quote that reached the upstream; it expires
	// 60 seconds later, not before.
	if n := l.MemoLen(tx); n != 1 || len(svc.Expiries) != 1 || !strings.HasPrefix(svc.Expiries[0], MemoWindow+" ") {
		t.Fatalf("memo: %d entries, scheduled %q; want 1, 1 on %s", n, svc.Expiries, MemoWindow)
	}
	memoKey := strings.TrimPrefix(svc.Expiries[0], MemoWindow+" ")
	l.ExpireMemo(tx, memoKey, testTime.Add(59*time.Second))
	if n := l.MemoLen(tx); n != 1 {
		t.Errorf("memo expired early: %d entries", n)
	}
	l.ExpireMemo(tx, memoKey, testTime.Add(qrQuoteMemo))
	if n := l.MemoLen(tx); n != 0 {
		t.Errorf("memo not expired: %d entries", n)
	}
}

// TestTransitions walks the QR order state machine through Action: every
// row of transitions, and an action the status does not allow.
func TestTransitions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		actions []string
		code    string // of the last action
		status  string
		events  []string
		entries []string
	}{
		{"complete", []string{"complete"}, "", "completed",
			[]string{"qrpay.order.completed u3 mem_1 completed v3"}, []string{"qrpay hold qrp_u3", "qrpay complete qrp_u3"}},
		{"fail", []string{"fail"}, "", "failed",
			[]string{"qrpay.order.failed u3 mem_1 failed v3"}, []string{"qrpay hold qrp_u3", "qrpay fail qrp_u3"}},
		{"timeout keeps processing", []string{"timeout"}, "", "processing", nil, []string{"qrpay hold qrp_u3"}},
		{"refund after complete", []string{"complete", "refund"}, "", "refunded",
			[]string{"qrpay.order.completed u3 mem_1 completed v3", "qrpay.order.refunded u3 mem_1 refunded v4"},
			[]string{"qrpay hold qrp_u3", "qrpay complete qrp_u3", "qrpay refund qrp_u3"}},
		{"refund while processing", []string{"refund"}, "state_invalid", "processing", nil, []string{"qrpay hold qrp_u3"}},
		{"fail after complete", []string{"complete", "fail"}, "state_invalid", "completed",
			[]string{"qrpay.order.completed u3 mem_1 completed v3"}, []string{"qrpay hold qrp_u3", "qrpay complete qrp_u3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			svc := newServices()
			tx := svc.Begin()
			defer tx.End()
			h := newFakeHost()
			svc.Ledger = h
			l := New(svc.Kernel(), tx, h)
			if _, _, err := call(t, l, tx, member1, "POST", "/v1/qrpay/payments", `{"code_value":"`+sampleqr.PromptPay+`"}`, "ok"); err != nil {
				t.Fatal(err)
			}
			var out map[string]any
			var err error
			for _, a := range tt.actions {
				out, err = l.Action(tx, "qrp_u3", a)
			}
			if codeOf(err) != tt.code {
				t.Fatalf("last action: %v, want %q", err, tt.code)
			}
			if err == nil && out["status"] != tt.status {
				t.Errorf("answer status %v, want %s", out["status"], tt.status)
			}
			if got := l.Orders(tx)[0].Status; got != tt.status {
				t.Errorf("status %s, want %s", got, tt.status)
			}
			if diff := cmp.Diff(tt.events, events(svc)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.entries, h.entries); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
			if _, err := l.Action(tx, "qrp_nope", "complete"); codeOf(err) != "not_found" {
				t.Errorf("unknown order: %v, want not_found", err)
			}
		})
	}
}

// TestControls: the line's control methods; a refused one changes nothing.
func TestControls(t *testing.T) {
	t.Parallel()
	svc := newServices()
	tx := svc.Begin()
	defer tx.End()
	h := newFakeHost()
	svc.Ledger = h
	l := New(svc.Kernel(), tx, h)
	pp := `{"code_value":"` + sampleqr.PromptPay + `"}`
	decode := func() string {
		_, _, err := call(t, l, tx, member1, "POST", "/v1/qrpay/decode", pp, "")
		return codeOf(err)
	}
	if err := l.SetScenario(tx, sampleqr.PromptPay, "reject", "nope"); err == nil || decode() != "" {
		t.Errorf("unknown scenario: %v, decode %q; want an error and nothing set", err, decode())
	}
	if err := l.SetScenario(tx, sampleqr.PromptPay, ScenarioReject); err != nil || decode() != "qr_code_invalid" {
		t.Errorf("reject scenario: %v, decode %q", err, decode())
	}
	if err := l.SetScenario(tx, sampleqr.PromptPay); err != nil || decode() != "" {
		t.Errorf("cleared scenarios: %v, decode %q", err, decode())
	}
	l.SetEnabled(tx, false)
	if got := decode(); got != "service_unavailable" {
		t.Errorf("line off: decode %q", got)
	}
	l.SetEnabled(tx, true)
	for _, bad := range []string{"0", "-1", "x", "NaN"} {
		if err := l.SetFiatRate(tx, "THB", bad); err == nil {
			t.Errorf("rate %q accepted", bad)
		}
	}
	if err := l.SetFiatRate(tx, "THB", "0.058"); err != nil {
		t.Fatal(err)
	}
	_, body, err := call(t, l, tx, member1, "POST", "/v1/qrpay/quotes", pp, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := field(field(body, "chosen"), "customer_total"); got != "14.616218" {
		t.Errorf("quote at the doubled rate: customer_total %v, want 14.616218", got)
	}
	if diff := cmp.Diff([]string{"blocked", "corridor", "payer_fields", "range", "reject", "timeout", "upstream_error"}, Scenarios()); diff != "" {
		t.Errorf("Scenarios (-want +got):\n%s", diff)
	}
	if OrderID(" u1 ") != "qrp_u1" || OrderID("qrp_u1") != "qrp_u1" {
		t.Errorf("OrderID: %q %q", OrderID(" u1 "), OrderID("qrp_u1"))
	}
}

// TestViolations: an order left pending outside its payment request is a
// violation, and its hold still counts.
func TestViolations(t *testing.T) {
	t.Parallel()
	svc := newServices()
	tx := svc.Begin()
	defer tx.End()
	h := newFakeHost()
	svc.Ledger = h
	l := New(svc.Kernel(), tx, h)
	if v := l.Violations(tx); len(v) != 0 {
		t.Fatalf("fresh line: %v", v)
	}
	o := order{ID: "qrp_p", MemberID: member1.ID, Status: "pending",
		Plan: plan{Asset: "USDT", CustomerTotal: money.MustParse("2", 6)}, From: "member:mem_1:available", Locked: "member:mem_1:locked"}
	l.st.orders.Put(tx, o.ID, o)
	if diff := cmp.Diff([]string{"QR order qrp_p is left pending outside its payment request"}, l.Violations(tx)); diff != "" {
		t.Errorf("Violations (-want +got):\n%s", diff)
	}
	want := []Hold{{Owner: "qrp_p (pending)", Account: "member:mem_1:locked", Asset: "USDT", Amount: money.MustParse("2", 6)}}
	if diff := cmp.Diff(want, l.Holds(tx)); diff != "" {
		t.Errorf("Holds (-want +got):\n%s", diff)
	}
	if !l.Has(tx, "qrp_p") || l.Has(tx, "p") {
		t.Errorf("Has: exact ids only")
	}
}
