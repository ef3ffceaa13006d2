package cards

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
)

// fakeHost answers the card line's Host from kerneltest's ledger, a map of
// members and sets of what the other lines would say.
type fakeHost struct {
	svc         *kerneltest.Services
	members     map[string]*api.Member
	inReview    map[string]bool
	bindings    map[string]bool // quick KYC bindings that are active
	compensated []string
}

func newFakeHost(svc *kerneltest.Services) *fakeHost {
	return &fakeHost{svc: svc, members: map[string]*api.Member{},
		inReview: map[string]bool{}, bindings: map[string]bool{}}
}

func (h *fakeHost) Member(_ *kernel.Tx, id string) *api.Member                { return h.members[id] }
func (h *fakeHost) KYCInReview(_ *kernel.Tx, m *api.Member) bool              { return h.inReview[m.ID] }
func (h *fakeHost) BindingActive(_ *kernel.Tx, _ *api.Member, id string) bool { return h.bindings[id] }
func (h *fakeHost) AllocateBinding(_ *kernel.Tx, _ *api.Member, _ string) (string, error) {
	h.bindings["qkb_new"] = true
	return "qkb_new", nil
}
func (h *fakeHost) CompensateBinding(_ *kernel.Tx, id, _ string) error {
	h.bindings[id] = false
	h.compensated = append(h.compensated, id)
	return nil
}
func (h *fakeHost) RequireStepUp(*api.Request, string) error { return nil }

// fixture is a line on fake services with one member holding 1000 USDT at
// KYC level 1 (mem_1) and one at level 2 (mem_2).
type fixture struct {
	svc *kerneltest.Services
	h   *fakeHost
	l   *Line
	tx  *kernel.Tx
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	svc := kerneltest.New()
	svc.Scales["USDC"] = 6
	svc.Scales["BTC"] = 8
	h := newFakeHost(svc)
	for _, m := range []*api.Member{{ID: "mem_1", KYCLevel: 1}, {ID: "mem_2", KYCLevel: 2}} {
		h.members[m.ID] = m
		svc.Set(kernel.MemberAvailable(m.ID), "USDT", money.MustParse("1000", 6))
	}
	tx := svc.Begin()
	f := &fixture{svc: svc, h: h, l: New(svc.Kernel(), tx, h, []byte("0123456789abcdef0123456789abcdef"), 6), tx: tx}
	t.Cleanup(f.tx.End)
	return f
}

// do runs a handler of the line for member memberID.
func (f *fixture) do(t *testing.T, method, target, memberID string, body any, h func(*api.Request) (int, any, error), path map[string]string) (int, map[string]any, error) {
	t.Helper()
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	r := httptest.NewRequest(method, target, nil)
	for k, v := range path {
		r.SetPathValue(k, v)
	}
	c := &api.Request{Tx: f.tx, Req: r, Now: f.svc.Clock, Member: f.h.members[memberID], Body: raw, Header: http.Header{}}
	st, out, err := h(c)
	if err != nil {
		return st, nil, err
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return st, m, nil
}

// TestQuoteGates runs every reason of an invoice's can_apply false against
// the line alone: each row breaks one gate for one product.
func TestQuoteGates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		member  string
		product string
		query   string
		breakIt func(f *fixture)
		want    string
	}{
		{name: "eligible", member: "mem_1", product: "cpd_virtual_std", want: ""},
		{name: "restricted member", member: "mem_1", product: "cpd_virtual_std", breakIt: func(f *fixture) { f.h.members["mem_1"].Status = "frozen" }, want: reasonMemberRestricted},
		{name: "KYC in review", member: "mem_2", product: "cpd_virtual_std", breakIt: func(f *fixture) { f.h.inReview["mem_2"] = true }, want: reasonKYCRequired},
		{name: "KYC level below the product's", member: "mem_1", product: "cpd_virtual_premium", want: reasonKYCRequired},
		{name: "KYC country blocked", member: "mem_1", product: "cpd_virtual_review", breakIt: func(f *fixture) { f.l.SetKYCCountry(f.tx, "mem_1", "US") }, want: reasonKYCCountry},
		{name: "outstanding penalties", member: "mem_1", product: "cpd_virtual_std", breakIt: func(f *fixture) { f.l.SetPenalty(f.tx, "mem_1", true) }, want: reasonPenalties},
		{name: "card limit", member: "mem_1", product: "cpd_virtual_std", breakIt: func(f *fixture) { f.l.SetLimit(f.tx, "virtual", 0) }, want: reasonCardLimit},
		{name: "no deliverable address", member: "mem_1", product: "cpd_physical_std", breakIt: func(f *fixture) {
			f.l.AddShippingAddress(f.tx, "mem_1", "FR", true)
			list, _ := f.l.st.addresses.Get(f.tx, "mem_1")
			f.l.st.addresses.Put(f.tx, "mem_1", list.From(2))
		}, want: reasonNoAddress},
		{name: "binding not active", member: "mem_1", product: "cpd_virtual_std", query: "?quick_kyc_binding_id=qkb_gone", want: reasonBindingNotActive},
		{name: "binding active", member: "mem_1", product: "cpd_virtual_std", query: "?quick_kyc_binding_id=qkb_ok",
			breakIt: func(f *fixture) { f.h.bindings["qkb_ok"] = true }, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if tt.breakIt != nil {
				tt.breakIt(f)
			}
			_, out, err := f.do(t, http.MethodGet, "/v1/cards/products/"+tt.product+"/quote"+tt.query, tt.member, nil,
				f.l.handleCardQuote, map[string]string{"id": tt.product})
			if err != nil {
				t.Fatal(err)
			}
			got := struct {
				CanApply bool
				Reason   string
			}{out["can_apply"].(bool), out["reason"].(string)}
			want := struct {
				CanApply bool
				Reason   string
			}{tt.want == "", tt.want}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("quote (-want +got):\n%s", diff)
			}
		})
	}
}

// TestApplicationOutcomes applies for a virtual card with a first top-up
// and plays each outcome: approval issues the card and credits the top-up;
// rejection refunds the fee and releases the hold; a gate broken in between
// turns the approval into a rejection; a withdrawn binding rejects without
// compensating it again. The ledger and the line's views agree after each.
func TestApplicationOutcomes(t *testing.T) {
	t.Parallel()
	usdt := func(v string) money.Amount { return money.MustParse(v, 6) }
	tests := []struct {
		name      string
		binding   string
		outcome   func(f *fixture, id string) error
		status    string
		available money.Amount // mem_1's available balance after
		card      money.Amount // the card's balance after (issued only)
		reason    string
		events    []string
		comp      []string
	}{
		{name: "approved", outcome: func(f *fixture, id string) error { _, err := f.l.ApproveApplication(f.tx, id); return err },
			status: "issued", available: usdt("975"), card: usdt("20"),
			events: []string{"card.application.submitted", "card.application.approved", "card.topup.credited"}},
		{name: "rejected", outcome: func(f *fixture, id string) error { _, err := f.l.RejectApplication(f.tx, id); return err },
			status: "rejected", available: usdt("1000"),
			events: []string{"card.application.submitted", "card.application.rejected"}},
		{name: "gate broken before approval", outcome: func(f *fixture, id string) error {
			f.l.SetPenalty(f.tx, "mem_1", true)
			_, err := f.l.ApproveApplication(f.tx, id)
			return err
		}, status: "rejected", available: usdt("1000"), reason: reasonPenalties,
			events: []string{"card.application.submitted", "card.application.rejected"}},
		{name: "rejected on a binding: compensated", binding: "qkb_1",
			outcome: func(f *fixture, id string) error { _, err := f.l.RejectApplication(f.tx, id); return err },
			status:  "rejected", available: usdt("1000"), comp: []string{"qkb_1"},
			events: []string{"card.application.submitted", "card.application.rejected"}},
		{name: "binding withdrawn", binding: "qkb_1", outcome: func(f *fixture, id string) error {
			f.h.bindings["qkb_1"] = false
			ids, err := f.l.BindingWithdrawn(f.tx, "qkb_1")
			if err == nil && !cmp.Equal(ids, []string{id}) {
				t.Errorf("BindingWithdrawn = %v, want [%s]", ids, id)
			}
			return err
		}, status: "rejected", available: usdt("1000"),
			events: []string{"card.application.submitted", "card.application.rejected"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			body := map[string]string{"source_asset": "USDT", "product_id": "cpd_virtual_std", "first_topup": "20"}
			if tt.binding != "" {
				f.h.bindings[tt.binding] = true
				body["quick_kyc_binding_id"] = tt.binding
			}
			st, out, err := f.do(t, http.MethodPost, "/v1/cards/applications", "mem_1", body, f.l.handleCardApply, nil)
			if err != nil || st != 201 {
				t.Fatalf("apply: %d %v", st, err)
			}
			id := out["id"].(string)
			if got := f.svc.Read(kernel.MemberLocked("mem_1"), "USDT"); got.Cmp(usdt("20")) != 0 {
				t.Fatalf("first top-up held %s, want 20", got)
			}
			if diff := cmp.Diff([]string{CollectionApplications + " " + id}, f.svc.InFlightLog); diff != "" {
				t.Errorf("in flight (-want +got):\n%s", diff)
			}
			if err := tt.outcome(f, id); err != nil {
				t.Fatal(err)
			}
			a, _ := f.l.st.apps.Get(f.tx, id)
			if a.Status != tt.status || a.RejectReason != tt.reason {
				t.Errorf("application %s (%q), want %s (%q)", a.Status, a.RejectReason, tt.status, tt.reason)
			}
			if got := f.svc.Read(kernel.MemberAvailable("mem_1"), "USDT"); got.Cmp(tt.available) != 0 {
				t.Errorf("available %s, want %s", got, tt.available)
			}
			if got := f.svc.Read(kernel.MemberLocked("mem_1"), "USDT"); !got.IsZero() {
				t.Errorf("locked %s after the outcome, want 0", got)
			}
			if tt.status == "issued" {
				if got := f.svc.Read(cardAccount(a.CardID), LedgerAsset); got.Cmp(tt.card) != 0 {
					t.Errorf("card balance %s, want %s", got, tt.card)
				}
			}
			var events []string
			for _, e := range f.svc.Events {
				events = append(events, e.Type)
			}
			if diff := cmp.Diff(tt.events, events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.comp, f.h.compensated); diff != "" {
				t.Errorf("compensated (-want +got):\n%s", diff)
			}
			if holds, errs := f.l.Holds(f.tx); len(holds) != 0 || len(errs) != 0 {
				t.Errorf("holds after the outcome: %v %v", holds, errs)
			}
			if v := f.l.Violations(f.tx); len(v) != 0 {
				t.Errorf("violations: %v", v)
			}
		})
	}
}

// TestViolations breaks each of the line's structural rules in its state
// and checks that Violations or Holds names it.
func TestViolations(t *testing.T) {
	t.Parallel()
	usdt := func(v string) money.Amount { return money.MustParse(v, 6) }
	card := func(f *fixture) *simCard {
		return f.l.newCard(f.tx, f.h.members["mem_1"], "cpd_virtual_std", "", "virtual")
	}
	tests := []struct {
		name    string
		corrupt func(f *fixture)
		want    []string // violations
		holds   []Hold
	}{
		{name: "none", corrupt: func(f *fixture) { card(f) }},
		{name: "balance on an ended card", corrupt: func(f *fixture) {
			c := card(f)
			f.svc.Set(cardAccount(c.ID), LedgerAsset, usdt("1"))
			c.Status = "expired"
			f.l.putCard(f.tx, c)
		}, want: []string{"card crd_u2 is expired but holds 1.000000 USDT"}},
		{name: "top-up in flight towards an ended card", corrupt: func(f *fixture) {
			c := card(f)
			f.l.putTopUp(f.tx, &cardTopUp{ID: "ctp_z", CardID: c.ID, MemberID: "mem_1", Asset: "USDT", Funding: "member",
				Amount: usdt("10"), Fee: usdt("0.1"), Status: "processing"})
			c.Status = "closed"
			f.l.putCard(f.tx, c)
		}, want: []string{"top-up ctp_z is in flight towards card crd_u2, which is closed"},
			holds: []Hold{{Owner: "ctp_z (processing)", Account: kernel.MemberLocked("mem_1"), Asset: "USDT", Amount: usdt("10.1")}}},
		{name: "top-up in flight towards no card", corrupt: func(f *fixture) {
			f.l.putTopUp(f.tx, &cardTopUp{ID: "ctp_m", CardID: "crd_gone", MemberID: "mem_1", Asset: "USDT", Funding: "merchant",
				Amount: usdt("10"), Fee: usdt("0"), Status: "processing"})
		}, want: []string{"top-up ctp_m is in flight towards card crd_gone, which is missing"},
			holds: []Hold{{Owner: "ctp_m (processing)", Account: kernel.AccountMerchantPrepaidLocked, Asset: "USDT", Amount: usdt("10")}}},
		{name: "final top-up holds nothing", corrupt: func(f *fixture) {
			c := card(f)
			f.l.putTopUp(f.tx, &cardTopUp{ID: "ctp_y", CardID: c.ID, MemberID: "mem_1", Asset: "USDT", Funding: "member",
				Amount: usdt("10"), Fee: usdt("0.1"), Status: "failed"})
		}},
		{name: "application on an inactive binding", corrupt: func(f *fixture) {
			f.l.putApp(f.tx, &cardApplication{ID: "cap_b", MemberID: "mem_1", Status: "submitted", QuickBindingID: "qkb_x",
				SourceAsset: "USDT", Funding: "member", FirstTopUp: usdt("5")})
		}, want: []string{"card application cap_b is submitted on quick KYC binding qkb_x, which is no longer active"},
			holds: []Hold{{Owner: "cap_b (submitted, first top-up)", Account: kernel.MemberLocked("mem_1"), Asset: "USDT", Amount: usdt("5")}}},
		{name: "issued application without its card", corrupt: func(f *fixture) {
			f.l.putApp(f.tx, &cardApplication{ID: "cap_i", MemberID: "mem_1", Status: "issued", CardID: "crd_gone", FirstTopUp: usdt("0")})
		}, want: []string{`card application cap_i is issued but its card "crd_gone" does not exist`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			tt.corrupt(f)
			if diff := cmp.Diff(tt.want, f.l.Violations(f.tx)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			holds, errs := f.l.Holds(f.tx)
			if diff := cmp.Diff(tt.holds, holds, cmp.Comparer(func(a, b money.Amount) bool { return a.Cmp(b) == 0 && a.Scale() == b.Scale() })); diff != "" || len(errs) != 0 {
				t.Errorf("holds (-want +got):\n%s %v", diff, errs)
			}
		})
	}
}

// TestCardMoves holds the card state table against the contract's: every
// trigger from every status.
func TestCardMoves(t *testing.T) {
	t.Parallel()
	allowed := map[string][]string{
		"activate":       {"unactivated"},
		"lost":           {"unactivated", "active", "frozen", "pending", "expired", "replaced"},
		"close":          {"unactivated", "active", "frozen", "pending", "lost"},
		"close_complete": {"closing"},
		"topup":          {"active", "frozen", "pending"},
		"freeze":         {"active"},
		"unfreeze":       {"frozen"},
		"replace":        {"active", "frozen", "lost"},
	}
	got := map[string][]string{}
	for trigger := range cardMoves {
		for _, st := range Statuses() {
			if (&simCard{Status: st}).allowed(trigger) {
				got[trigger] = append(got[trigger], st)
			}
		}
	}
	if diff := cmp.Diff(allowed, got); diff != "" {
		t.Errorf("card moves (-want +got):\n%s", diff)
	}
}

// TestCardAmountError: the card line's answers to a refused top-up amount.
func TestCardAmountError(t *testing.T) {
	t.Parallel()
	svc := kerneltest.New()
	svc.Scales["USDC"], svc.Scales["BTC"] = 6, 8
	tx := svc.Begin()
	defer tx.End()
	type answer struct {
		Code, Message string
		Fields        any
	}
	for _, tc := range []struct {
		field, asset, in string
		want             answer
	}{
		{"first_topup", "USDT", "1.0000001", answer{"invalid_fields", "first_topup must be a non-negative decimal string in USDT with at most 6 decimals", []map[string]string{{"key": "first_topup"}}}},
		{"amount", "BTC", "-1", answer{"invalid_fields", "amount must be a non-negative decimal string in BTC with at most 8 decimals", []map[string]string{{"key": "amount"}}}},
		{"amount", "USDC", "1e2", answer{"invalid_fields", "amount must be a non-negative decimal string in USDC with at most 6 decimals", []map[string]string{{"key": "amount"}}}},
		{"amount", "XRP", "1", answer{"product_not_available", "source asset XRP is not available", nil}},
	} {
		_, err := nonNegAmount(tx, tc.asset, tc.in)
		if err == nil {
			t.Fatalf("%s %q accepted", tc.asset, tc.in)
		}
		var ae *api.Error
		if !errors.As(cardAmountError(tc.field, tc.asset, err), &ae) {
			t.Fatalf("cardAmountError is not an *api.Error")
		}
		got := answer{ae.Code, ae.Message, ae.Extra["fields"]}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s %s %q (-want +got):\n%s", tc.field, tc.asset, tc.in, diff)
		}
	}
}

// TestAtScaleOfReportsInexactAmounts checks that re-expressing an amount in
// another asset reports an error, instead of panicking inside a request,
// when the target asset is unknown or its ledger scale cannot hold the
// amount exactly.
func TestAtScaleOfReportsInexactAmounts(t *testing.T) {
	t.Parallel()
	svc := kerneltest.New()
	svc.Scales["BTC"] = 8
	tx := svc.Begin()
	defer tx.End()
	tests := []struct {
		name    string
		asset   string
		amount  string
		scale   int
		want    string
		wantErr bool
	}{
		{name: "same scale", asset: "USDT", amount: "12.5", scale: 6, want: "12.500000"},
		{name: "wider scale", asset: "BTC", amount: "12.5", scale: 6, want: "12.50000000"},
		{name: "narrower scale exact", asset: "USDT", amount: "1.25", scale: 8, want: "1.250000"},
		{name: "narrower scale inexact", asset: "USDT", amount: "0.00000001", scale: 8, wantErr: true},
		{name: "unknown asset", asset: "XYZ", amount: "1", scale: 6, wantErr: true},
	}
	for _, tt := range tests {
		a, err := money.Parse(tt.amount, tt.scale)
		if err != nil {
			t.Fatal(err)
		}
		got, err := atScaleOf(tx, tt.asset, a)
		if tt.wantErr {
			if err == nil {
				t.Errorf("%s: atScaleOf(%s, %s) = %s, want an error", tt.name, tt.asset, a, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: atScaleOf(%s, %s): %v", tt.name, tt.asset, a, err)
			continue
		}
		if got.String() != tt.want {
			t.Errorf("%s: atScaleOf(%s, %s) = %s, want %s", tt.name, tt.asset, a, got, tt.want)
		}
	}
}
