package remittance_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

func TestPayees(t *testing.T) {
	t.Parallel()
	_, c := simtest.New(t)
	ctx := context.Background()
	var currencies []string
	for p, err := range c.Remittances.Payees(ctx, member1, mwallet.ListParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Sscanf(p.ID, "pye_%d", new(int)); err != nil || p.Status != "active" || p.Summary == "" {
			t.Fatalf("payee %+v", p)
		}
		currencies = append(currencies, p.Currency)
	}
	if diff := cmp.Diff([]string{"NGN", "BHD", "PHP", "USD", "EUR", "JPY", "GBP"}, currencies); diff != "" {
		t.Fatalf("fixture payees, newest first (-want +got):\n%s", diff)
	}
	created, err := c.Remittances.CreatePayee(ctx, member1, remittance.PayeeParams{Country: "gb", Currency: "gbp", HolderName: "Bob Jones", AccountNumber: "GB33BUKB20201555555555"})
	if err != nil {
		t.Fatal(err)
	}
	if created.Corridor != "GB-GBP" || created.Summary != "GBP ****5555" || created.Response.StatusCode != 201 {
		t.Fatalf("created %+v", *created)
	}
	_, err = c.Remittances.CreatePayee(ctx, member1, remittance.PayeeParams{Country: "GB", Currency: "GBP", HolderName: "Bob Jones", AccountNumber: "GB33BUKB20201555555555"})
	simtest.WantCode(t, err, mwallet.CodeDuplicateResource)

	_, err = c.Remittances.CreatePayee(ctx, member1, remittance.PayeeParams{Country: "GBR", Currency: "ZZZ", HolderName: "Bob", AccountNumber: "12-34"})
	e := simtest.WantCode(t, err, mwallet.CodeInvalidFields)
	want := []mwallet.FieldError{
		{Key: "country", Reason: "must be an ISO 3166 alpha-2 code"},
		{Key: "currency", Reason: "currency not offered for payees"},
		{Key: "account_number", Reason: "4 to 34 letters and digits"},
	}
	if diff := cmp.Diff(want, e.Fields); diff != "" {
		t.Fatalf("fields (-want +got):\n%s", diff)
	}
	_, err = c.Remittances.CreatePayee(ctx, member1, remittance.PayeeParams{Country: "GB", Currency: "GBP", AccountNumber: "12345678"})
	var pe *mwallet.ParamError
	if !errors.As(err, &pe) || pe.Param != "HolderName" {
		t.Fatalf("missing holder: %v", err)
	}
	p := remittance.PayeeParams{AccountNumber: "GB33BUKB20201555555555"}
	for _, s := range []string{p.String(), fmt.Sprintf("%v %+v %#v", p, p, p)} {
		if strings.Contains(s, "GB33BUKB2020155555") {
			t.Fatalf("account number printed: %s", s)
		}
	}
}

func TestQueryVPApplications(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t, simulator.WithMember(simulator.MemberSeed{ExternalID: "fresh", KYCLevel: 0}))
	ctx := context.Background()
	for _, members := range [][]string{nil, make([]string, 101), {"member-1", " "}} {
		if len(members) == 101 {
			for i := range members {
				members[i] = "member-1"
			}
		}
		_, err := c.Remittances.QueryVPApplications(ctx, members)
		if !errors.Is(err, mwallet.ErrInvalidParam) || mwallet.CodeOf(err) != mwallet.CodeInvalidRequest {
			t.Fatalf("%d members: %v", len(members), err)
		}
	}
	id := simtest.MemberID(t, sim, member1)
	query := []string{"unknown", id, "fresh", member1, id[len("mem_"):], "mem_00000000-0000-4000-8000-000000000000"}
	res, err := c.Remittances.QueryVPApplications(ctx, query)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != len(query) {
		t.Fatalf("%d items", len(res.Items))
	}
	for i, it := range res.Items {
		if it.Query != query[i] {
			t.Fatalf("item %d answers %q, want %q", i, it.Query, query[i])
		}
	}
	for _, i := range []int{0, 4, 5} {
		if it := res.Items[i]; it.Error != mwallet.CodeMemberNotFound || it.Application != nil {
			t.Fatalf("item %d %+v", i, it)
		}
	}
	a, b := res.Items[1], res.Items[3]
	if a.Error != "" || a.MemberID != id || a.ExternalMemberID != member1 || a.Application == nil || a.Application.Status != "approved" || a.Stage != "active" {
		t.Fatalf("member-1 %+v", a)
	}
	if b.Application == nil || b.Application.ID != a.Application.ID {
		t.Fatalf("the two forms of member-1 disagree: %+v %+v", a, b)
	}
	if f := res.Items[2]; f.Error != "" || f.Application != nil || f.Stage != "not_applied" {
		t.Fatalf("fresh %+v", f)
	}
}

func TestQuoteProductsConversionDates(t *testing.T) {
	t.Parallel()
	_, c := simtest.New(t)
	ctx := context.Background()
	jpy := payeeOf(t, c, member1, "JPY")
	q, err := c.Remittances.Quote(ctx, member1, remittance.QuoteParams{PayeeID: jpy.ID, PayoutAmount: "14820", PayoutCurrency: "JPY", SlippageBps: 100})
	if err != nil {
		t.Fatal(err)
	}
	// 14820 JPY / 148.20 = 100 exactly; plus the 2 USDT fee; × 1.01.
	if q.CustomerTotal.String() != "102.000000" || q.LockedAmount.String() != "103.020000" || q.IndicativeRate != "148.20" || q.Line != remittance.LineExpress {
		t.Fatalf("quote %+v", q)
	}
	_, err = c.Remittances.Quote(ctx, member1, remittance.QuoteParams{PayeeID: jpy.ID, PayoutAmount: "14820.5", PayoutCurrency: "JPY"})
	if !errors.Is(err, mwallet.ErrInvalidParam) {
		t.Fatalf("quote with decimals for JPY: %v", err)
	}
	n := 0
	for p, err := range c.Remittances.Products(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if p.Line == remittance.LinePOBO && (p.RequiredKYCLevel != 2 || p.Queues) || p.Line == remittance.LineExpress && (p.RequiredKYCLevel != 1 || !p.Queues) {
			t.Fatalf("product %+v", p)
		}
		for _, code := range p.PurposeCodes {
			if !code.Known() {
				t.Fatalf("product lists unknown purpose %s", code)
			}
		}
	}
	if n != 12 {
		t.Fatalf("%d products, want 2 lines × 6 served corridors", n)
	}
	var dates []string
	for d, err := range c.Remittances.ConversionDates(ctx, "gbp") {
		if err != nil {
			t.Fatal(err)
		}
		dates = append(dates, d.Date)
	}
	// 2026-01-01 is a Thursday.
	if diff := cmp.Diff([]string{"2026-01-01", "2026-01-02", "2026-01-05", "2026-01-06", "2026-01-07"}, dates); diff != "" {
		t.Fatalf("dates (-want +got):\n%s", diff)
	}
	for _, err := range c.Remittances.ConversionDates(ctx, "NGN") {
		simtest.WantCode(t, err, mwallet.CodeCorridorNotSupported)
	}
}

func TestPayoutHelpers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cur, in, want string
		ok            bool
	}{
		{"GBP", "10.5", "10.50", true},
		{"gbp", "10", "10.00", true},
		{"JPY", "1000.00", "1000", true},
		{"KRW", "5000", "5000", true},
		{"BHD", "1.25", "1.250", true},
		{"GBP", "10.505", "", false},
		{"JPY", "1000.5", "", false},
		{"XXX1", "1", "", false},
		{"GBP", "-1", "", false},
	}
	for _, tt := range tests {
		got, err := remittance.NormalizePayout(tt.cur, tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("NormalizePayout(%s, %s) = %q, %v", tt.cur, tt.in, got, err)
		}
	}
	if n, ok := remittance.MinorUnits("usd"); !ok || n != 2 {
		t.Fatalf("USD minor units %d %v", n, ok)
	}
	if len(remittance.PurposeCodes()) != 23 {
		t.Fatalf("%d purpose codes", len(remittance.PurposeCodes()))
	}
	if remittance.Status("on_hold").Known() || !remittance.StatusPending.Known() || remittance.Status("on_hold").IsFinal() {
		t.Fatal("unknown status handling")
	}
	if remittance.OrderID("abc") != "rmt_abc" || remittance.OrderID("rmt_abc") != "rmt_abc" {
		t.Fatal("OrderID")
	}
}

// TestVPQueryServiceRules checks the batch query on the service side: 1 to
// 100 identifiers (0 or 101 is invalid_request, 100 is answered), and a
// member of another merchant is member_not_found in either identifier form,
// exactly like an unknown one.
func TestVPQueryServiceRules(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	foreignID, err := sim.Members.Create(simulator.MemberSeed{ExternalID: "foreign-1", KYCLevel: 1, MerchantID: "mch_someone_else"})
	if err != nil {
		t.Fatal(err)
	}
	hundred := make([]string, 100)
	for i := range hundred {
		hundred[i] = member1
	}
	tests := []struct {
		name    string
		members []string
		code    mwallet.Code // "" when answered
		missing []int        // items answered member_not_found
	}{
		{name: "none", members: []string{}, code: mwallet.CodeInvalidRequest},
		{name: "101", members: append(append([]string{}, hundred...), member1), code: mwallet.CodeInvalidRequest},
		{name: "blank item", members: []string{member1, ""}, code: mwallet.CodeInvalidRequest},
		{name: "100", members: hundred},
		{name: "foreign member by external id", members: []string{member1, "foreign-1"}, missing: []int{1}},
		{name: "foreign member by mem_ id", members: []string{foreignID, member1}, missing: []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out struct {
				Items []struct {
					Query    string `json:"query"`
					Error    string `json:"error"`
					MemberID string `json:"member_id"`
				} `json:"items"`
			}
			_, err := c.Do(ctx, &mwallet.Request{Method: "POST", Path: "/v1/remit/vp/applications/query", Body: map[string]any{"members": tt.members}}, &out)
			if tt.code != "" {
				simtest.WantCode(t, err, tt.code)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Items) != len(tt.members) {
				t.Fatalf("%d items for %d members", len(out.Items), len(tt.members))
			}
			missing := map[int]bool{}
			for _, i := range tt.missing {
				missing[i] = true
			}
			for i, it := range out.Items {
				if it.Query != tt.members[i] {
					t.Errorf("item %d answers %q, want %q", i, it.Query, tt.members[i])
				}
				if missing[i] != (it.Error == string(mwallet.CodeMemberNotFound)) || missing[i] != (it.MemberID == "") {
					t.Errorf("item %d (%s): error %q member_id %q", i, it.Query, it.Error, it.MemberID)
				}
			}
		})
	}
}
