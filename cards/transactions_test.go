package cards_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// seedTransactions adds six transactions to a card holding 100.00 and
// returns their ids by letter, oldest (A) to newest (F).
func seedTransactions(t *testing.T, sim *simulator.Simulator, id string) (map[string]string, time.Time) {
	t.Helper()
	t0 := sim.Clock.Now()
	rows := []struct {
		name string
		tx   simulator.CardTransaction
	}{
		{"A", simulator.CardTransaction{Kind: "auth", Status: "succeed", Direction: "debit", Amount: "1250", BillAmount: "1250", AuthCode: "AC1",
			MerchantName: "Coffee", MCC: "5814", BankFee: "12", ZinfraFee: "3", OccurredAt: t0.Add(-5 * time.Hour)}},
		{"B", simulator.CardTransaction{Kind: "auth", Status: "pending", Direction: "debit", Amount: "500", AuthCode: "AC2", OccurredAt: t0.Add(-4 * time.Hour)}},
		{"C", simulator.CardTransaction{Kind: "refund", Status: "succeed", Direction: "credit", Amount: "300", BillAmount: "300", AuthCode: "AC1", OccurredAt: t0.Add(-3 * time.Hour)}},
		{"D", simulator.CardTransaction{Kind: "auth", Status: "declined", Direction: "none", Amount: "0", BillAmount: "0", AuthCode: "AC3", OccurredAt: t0.Add(-2 * time.Hour)}},
		{"E", simulator.CardTransaction{Kind: "fee", Status: "succeed", Direction: "debit", Amount: "100", BillAmount: "100",
			OriginalAmount: "15000", OriginalCurrency: "JPY", OccurredAt: t0.Add(-1 * time.Hour)}},
		{"F", simulator.CardTransaction{Kind: "auth", Status: "succeed", Direction: "unknown", Amount: "700", AuthCode: "AC4", OccurredAt: t0.Add(-30 * time.Minute)}},
	}
	ids := map[string]string{}
	// Added out of order: the list is ordered by occurred_at, not arrival.
	for _, i := range []int{3, 0, 5, 1, 4, 2} {
		txID, err := sim.Cards.AddTransaction(id, rows[i].tx)
		if err != nil {
			t.Fatalf("add %s: %v", rows[i].name, err)
		}
		ids[rows[i].name] = txID
	}
	return ids, t0
}

func listTx(t *testing.T, cl *mwclient.Client, id string, f cards.TransactionListParams) ([]cards.Transaction, error) {
	t.Helper()
	var out []cards.Transaction
	for tx, err := range cl.Cards.Transactions(ctx, member, id, f) {
		if err != nil {
			return out, err
		}
		out = append(out, tx)
	}
	return out, nil
}

func TestTransactionFilters(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	card := issueVirtual(t, sim, cl, "100")
	ids, t0 := seedTransactions(t, sim, card)
	bare := func(l string) string { return strings.TrimPrefix(ids[l], "ctx_") }
	tests := []struct {
		name string
		f    cards.TransactionListParams
		want string // letters, newest first
	}{
		{"no filter", cards.TransactionListParams{}, "FEDCBA"},
		{"id with prefix", cards.TransactionListParams{ID: ids["C"]}, "C"},
		{"id without prefix", cards.TransactionListParams{ID: bare("C")}, "C"},
		{"id miss", cards.TransactionListParams{ID: "ctx_00000000-0000-4000-8000-000000000000"}, ""},
		{"auth_code matches several", cards.TransactionListParams{AuthCode: "AC1"}, "CA"},
		{"auth_code is case-sensitive", cards.TransactionListParams{AuthCode: "ac1"}, ""},
		{"kind", cards.TransactionListParams{Kind: cards.TransactionKindAuth}, "FDBA"},
		{"kind open set", cards.TransactionListParams{Kind: "refund"}, "C"},
		{"kind unknown gives empty", cards.TransactionListParams{Kind: "AUTH"}, ""},
		{"kind at 64 characters", cards.TransactionListParams{Kind: cards.TransactionKind(strings.Repeat("k", 64))}, ""},
		{"status", cards.TransactionListParams{Status: cards.TransactionSucceeded}, "FECA"},
		{"status unknown gives empty", cards.TransactionListParams{Status: "settled"}, ""},
		{"direction debit", cards.TransactionListParams{Direction: cards.DirectionDebit}, "EBA"},
		{"direction credit", cards.TransactionListParams{Direction: cards.DirectionCredit}, "C"},
		{"direction none", cards.TransactionListParams{Direction: cards.DirectionNone}, "D"},
		{"direction unknown", cards.TransactionListParams{Direction: cards.DirectionUnknown}, "F"},
		{"from is inclusive", cards.TransactionListParams{From: t0.Add(-3 * time.Hour)}, "FEDC"},
		{"to is exclusive", cards.TransactionListParams{To: t0.Add(-3 * time.Hour)}, "BA"},
		{"from and to", cards.TransactionListParams{From: t0.Add(-4 * time.Hour), To: t0.Add(-time.Hour)}, "DCB"},
		{"from in another zone", cards.TransactionListParams{From: t0.Add(-3 * time.Hour).In(time.FixedZone("UTC+8", 8*3600))}, "FEDC"},
		{"combined", cards.TransactionListParams{Kind: cards.TransactionKindAuth, Direction: cards.DirectionDebit, AuthCode: "AC2"}, "B"},
		{"small pages", cards.TransactionListParams{ListParams: mwallet.ListParams{Limit: 2}}, "FEDCBA"},
	}
	letter := map[string]string{}
	for l, id := range ids {
		letter[id] = l
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := listTx(t, cl, card, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			var s strings.Builder
			for _, tx := range got {
				s.WriteString(letter[tx.ID])
			}
			if s.String() != tt.want {
				t.Fatalf("got %q, want %q", s.String(), tt.want)
			}
		})
	}
	// Balance effects: -12.50 +3.00 -1.00; pending, none and unknown move nothing.
	if b := getCard(t, cl, card).Balance; !b.Equal(money.MustParse("89.50", 2)) {
		t.Fatalf("card balance %s, want 89.50", b)
	}
	checkBooks(t, sim)
}

func TestTransactionFields(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	card := issueVirtual(t, sim, cl, "100")
	ids, t0 := seedTransactions(t, sim, card)
	got, err := listTx(t, cl, card, cards.TransactionListParams{})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]cards.Transaction{}
	for _, tx := range got {
		byID[tx.ID] = tx
	}
	cents := func(s string) *money.Amount { a := money.MustParse(s, 2); return &a }
	a := byID[ids["A"]]
	wantA := cards.Transaction{ID: ids["A"], Kind: "auth", Status: "succeed", Direction: cards.DirectionDebit, Amount: *cents("12.50"),
		Currency: "USD", Scale: 2, BillAmount: cents("12.50"), OriginalAmount: "1250", OriginalCurrency: "USD",
		BankFee: cents("0.12"), ZinfraFee: cents("0.03"), FeeCurrency: "USD", FeeScale: 2, MerchantName: "Coffee", MCC: "5814",
		AuthCode: "AC1", OccurredAt: t0.Add(-5 * time.Hour)}
	if diff := cmp.Diff(wantA, a, cmp.Comparer(money.Amount.Equal)); diff != "" {
		t.Fatalf("transaction A (-want +got):\n%s", diff)
	}
	signed := []struct {
		l    string
		want string
	}{{"A", "-12.50"}, {"C", "3.00"}, {"D", "0.00"}, {"E", "-1.00"}}
	for _, s := range signed {
		v, err := byID[ids[s.l]].Signed()
		if err != nil || v.String() != s.want {
			t.Errorf("%s signed = %s, %v; want %s", s.l, v, err, s.want)
		}
	}
	if _, err := byID[ids["F"]].Signed(); !errors.Is(err, cards.ErrUnknownDirection) {
		t.Errorf("unknown direction signed: %v, want ErrUnknownDirection", err)
	}
	if b := byID[ids["B"]].BillAmount; b != nil {
		t.Errorf("bill_amount unknown but read as %s", b)
	}
	if d := byID[ids["D"]]; d.BillAmount == nil || !d.BillAmount.IsZero() || !d.Amount.IsZero() {
		t.Errorf("D bill %v amount %s: zero bill only with zero amount", d.BillAmount, d.Amount)
	}
	if e := byID[ids["E"]]; e.OriginalAmount != "15000" || e.OriginalCurrency != "JPY" {
		t.Errorf("E original %s %s", e.OriginalAmount, e.OriginalCurrency)
	}
	checkBooks(t, sim)
}

func TestTransactionPagination(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	card := issueVirtual(t, sim, cl, "")
	t0 := sim.Clock.Now()
	const n = 45
	for i := 0; i < n; i++ {
		at := t0.Add(-time.Duration(i/3) * time.Minute) // three rows share each timestamp
		if _, err := sim.Cards.AddTransaction(card, simulator.CardTransaction{Kind: "auth", Status: "declined", Direction: "none", Amount: "0",
			AuthCode: fmt.Sprint("P", i), OccurredAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	var got []cards.Transaction
	var pages int
	for page, err := range cl.Cards.TransactionPages(ctx, member, card, cards.TransactionListParams{ListParams: mwallet.ListParams{Limit: 10}}) {
		if err != nil {
			t.Fatal(err)
		}
		pages++
		got = append(got, page.Data...)
	}
	if len(got) != n || pages != 5 {
		t.Fatalf("%d transactions in %d pages, want %d in 5", len(got), pages, n)
	}
	seen := map[string]bool{}
	for i, tx := range got {
		if seen[tx.ID] {
			t.Fatalf("%s listed twice", tx.ID)
		}
		seen[tx.ID] = true
		if i > 0 && tx.OccurredAt.After(got[i-1].OccurredAt) {
			t.Fatalf("not newest first at %d", i)
		}
	}
	// A cursor that cannot be decoded restarts from the first page.
	first, err := listTx(t, cl, card, cards.TransactionListParams{ListParams: mwallet.ListParams{Limit: 100, Cursor: "not-a-cursor"}})
	if err != nil || len(first) != n || first[0].ID != got[0].ID {
		t.Fatalf("undecodable cursor: %d rows, %v", len(first), err)
	}
	checkBooks(t, sim)
}

// TestTransactionQueryErrors checks the service's own validation, bypassing
// the SDK's client-side checks.
func TestTransactionQueryErrors(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	card := issueVirtual(t, sim, cl, "")
	tests := []struct {
		query url.Values
		field string
	}{
		{url.Values{"id": {"ctx_not-a-uuid"}}, "id"},
		{url.Values{"id": {"12345"}}, "id"},
		{url.Values{"kind": {strings.Repeat("k", 65)}}, "kind"},
		{url.Values{"status": {strings.Repeat("s", 65)}}, "status"},
		{url.Values{"auth_code": {strings.Repeat("a", 65)}}, "auth_code"},
		{url.Values{"direction": {"sideways"}}, "direction"},
		{url.Values{"direction": {"DEBIT"}}, "direction"},
		{url.Values{"from": {"yesterday"}}, "from"},
		{url.Values{"to": {"2026-13-01T00:00:00Z"}}, "to"},
	}
	for _, tt := range tests {
		_, err := cl.Do(ctx, &mwallet.Request{Method: http.MethodGet, Path: "/v1/cards/" + card + "/transactions", Query: tt.query,
			MemberScoped: true, Member: member}, nil)
		apiErr := simtest.WantCode(t, err, mwallet.CodeInvalidFields)
		if len(apiErr.Fields) != 1 || apiErr.Fields[0].Key != tt.field {
			t.Errorf("%v: fields %+v, want %s", tt.query, apiErr.Fields, tt.field)
		}
	}
	_, err := listTx(t, cl, "crd_00000000-0000-4000-8000-000000000000", cards.TransactionListParams{})
	simtest.WantCode(t, err, mwallet.CodeNotFound)
	checkBooks(t, sim)
}

func TestAddCardTransactionRules(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	card := issueVirtual(t, sim, cl, "10")
	entries := len(sim.LedgerEntries())
	for _, tx := range []simulator.CardTransaction{
		{Kind: "auth", Status: "succeed", Direction: "debit", Amount: "100", BillAmount: "0"},                             // zero bill needs zero amount
		{Kind: "auth", Status: "succeed", Direction: "sideways", Amount: "100"},                                           // closed set
		{Kind: "auth", Status: "succeed", Direction: "debit", Amount: "-100"},                                             // sign is the direction's
		{Kind: "auth", Status: "succeed", Direction: "debit", Amount: "12.50"},                                            // smallest unit only
		{Kind: "auth", Status: "succeed", Direction: "debit", Amount: "1001"},                                             // more than the card holds
		{Kind: "auth", Status: "succeed", Direction: "debit", Amount: "100", Currency: "EUR"},                             // card currency only
		{Kind: "", Status: "succeed", Direction: "debit", Amount: "100"},                                                  // kind required
		{ID: "ctx_00000000-0000-4000-8000-000000000000", Kind: "auth", Status: "succeed", Direction: "none", Amount: "0"}, // unknown id
	} {
		if _, err := sim.Cards.AddTransaction(card, tx); err == nil {
			t.Errorf("transaction %+v accepted", tx)
		}
	}
	if n := len(sim.LedgerEntries()); n != entries {
		t.Fatalf("refused transactions posted %d entries", n-entries)
	}
	if got, _ := listTx(t, cl, card, cards.TransactionListParams{}); len(got) != 0 {
		t.Fatalf("refused transactions listed: %d", len(got))
	}
	checkBooks(t, sim)
}
