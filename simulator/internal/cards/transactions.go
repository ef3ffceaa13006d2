package cards

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Transaction is one card transaction to add (the simulator's
// CardTransaction: CardsControl.AddTransaction or the control action
// cards/{id}/transactions). Amounts are non-negative integer strings in the
// smallest unit of the card currency.
//
// A transaction whose status is "succeed" and whose direction is debit or
// credit moves the card balance once (debit down, credit up); a kind "auth"
// with status "pending" is an authorization not yet settled, which blocks
// closing the card. Sending an existing ID updates that transaction.
type Transaction struct {
	// ID (ctx_ prefix optional) updates an existing transaction; empty adds one.
	ID        string `json:"id,omitempty"`
	Kind      string `json:"kind"`
	Status    string `json:"status"`
	Direction string `json:"direction"`
	Amount    string `json:"amount"`
	// Currency and Scale default to the card currency (USD, 2) and must
	// equal it when sent.
	Currency         string `json:"currency,omitempty"`
	Scale            int    `json:"scale,omitempty"`
	OriginalAmount   string `json:"original_amount,omitempty"`
	OriginalCurrency string `json:"original_currency,omitempty"`
	// BillAmount is omitted when unknown; it may be 0 only when Amount is 0.
	BillAmount   string `json:"bill_amount,omitempty"`
	BankFee      string `json:"bank_fee,omitempty"`
	ZinfraFee    string `json:"zinfra_fee,omitempty"`
	FeeCurrency  string `json:"fee_currency,omitempty"`
	FeeScale     int    `json:"fee_scale,omitempty"`
	MerchantName string `json:"merchant_name,omitempty"`
	MCC          string `json:"mcc,omitempty"`
	AuthCode     string `json:"auth_code,omitempty"`
	// OccurredAt defaults to the simulator's now.
	OccurredAt time.Time `json:"occurred_at,omitempty"`
}

var txDirections = statusSet("debit", "credit", "none", "unknown")

func isMinor(s string) bool { return api.AllDigits(s) && len(s) <= 30 }

// addCardTransaction validates and stores t on card c and books its
// balance effect; on error nothing changes.
func (l *Line) addCardTransaction(tx *kernel.Tx, c *simCard, in Transaction) (*cardTx, error) {
	switch {
	case !txDirections[in.Direction]:
		return nil, fmt.Errorf("direction %q must be debit, credit, none or unknown", in.Direction)
	case in.Kind == "" || in.Status == "":
		return nil, fmt.Errorf("kind and status are required")
	case !isMinor(in.Amount):
		return nil, fmt.Errorf("amount %q must be a non-negative integer string (smallest unit)", in.Amount)
	case in.Currency != "" && in.Currency != cardCurrency:
		return nil, fmt.Errorf("currency %q must be the card currency %s", in.Currency, cardCurrency)
	case in.Scale != 0 && in.Scale != cardScale:
		return nil, fmt.Errorf("scale %d must be the card scale %d", in.Scale, cardScale)
	case in.BillAmount != "" && !isMinor(in.BillAmount):
		return nil, fmt.Errorf("bill_amount %q must be a non-negative integer string", in.BillAmount)
	case in.BankFee != "" && !isMinor(in.BankFee), in.ZinfraFee != "" && !isMinor(in.ZinfraFee):
		return nil, fmt.Errorf("bank_fee and zinfra_fee must be non-negative integer strings")
	}
	amount, _ := money.ParseMinor(in.Amount, cardScale)
	if in.BillAmount != "" {
		bill, _ := money.ParseMinor(in.BillAmount, cardScale)
		if bill.IsZero() && !amount.IsZero() {
			return nil, fmt.Errorf("bill_amount may be 0 only when amount is 0")
		}
	}
	var prev *cardTx
	if in.ID != "" {
		p, ok := l.st.transactions.Get(tx, WithIDPrefix("ctx_", in.ID))
		if !ok || p.CardID != c.ID {
			return nil, fmt.Errorf("card transaction %q not found on card %s", in.ID, c.ID)
		}
		prev = &p
	}
	t := &cardTx{CardID: c.ID, Kind: in.Kind, Status: in.Status, Direction: in.Direction, Amount: in.Amount,
		Currency: cardCurrency, Scale: cardScale, OriginalAmount: in.OriginalAmount, OriginalCurrency: in.OriginalCurrency,
		BillAmount: in.BillAmount, BankFee: in.BankFee, ZinfraFee: in.ZinfraFee, FeeCurrency: in.FeeCurrency, FeeScale: in.FeeScale,
		MerchantName: in.MerchantName, MCC: in.MCC, AuthCode: in.AuthCode, OccurredAt: in.OccurredAt.UTC(), Version: 1}
	if t.FeeCurrency == "" {
		t.FeeCurrency = cardCurrency
	}
	if t.FeeScale == 0 {
		t.FeeScale = cardScale
	}
	if t.OriginalAmount == "" {
		t.OriginalAmount, t.OriginalCurrency = t.Amount, cardCurrency
	}
	if t.OccurredAt.IsZero() {
		t.OccurredAt = tx.Now()
	}
	if prev != nil {
		t.Booked = prev.Booked
	}
	// Every refusal comes before the first write (an id drawn included).
	book := !t.Booked && t.Status == "succeed" && (t.Direction == "debit" || t.Direction == "credit") && !amount.IsZero()
	var conv money.Amount
	var cardAcct string
	var withdrawal bool
	if book {
		var err error
		if conv, err = atScaleOf(tx, cardLedgerAsset, amount); err != nil {
			return nil, fmt.Errorf("card %s: %w", c.ID, err)
		}
		// An ended card keeps no money: a credit goes on to the live
		// replacement or back to the member's wallet; a debit is refused.
		if cardAcct, withdrawal, err = l.cardTxDestination(tx, c, t.Direction); err != nil {
			return nil, err
		}
		if t.Direction == "debit" && tx.Balance(cardAcct, cardLedgerAsset).Cmp(conv) < 0 {
			// A debit the card cannot cover: the ledger refuses the
			// transfer whole (the card's account may not go below zero),
			// before anything is drawn, and its refusal is the answer.
			err := tx.Transfer(tx.Now(), "card transaction debit", cardLedgerAsset, conv, cardAcct, upstreamAccount("card_network"))
			return nil, fmt.Errorf("card %s: %w", c.ID, err)
		}
	}
	if prev != nil {
		t.ID, t.Version, t.Seq = prev.ID, prev.Version+1, prev.Seq
	} else {
		t.ID, t.Seq = "ctx_"+tx.NewUUID(), tx.NextSeq()
	}
	if book {
		from, to := cardAcct, upstreamAccount("card_network")
		if t.Direction == "credit" {
			from, to = to, from
		}
		memo := "card transaction " + t.ID
		var wid string
		if withdrawal {
			wid = tx.NewUUID()
			memo += fmt.Sprintf(" on %s card %s: card withdrawal cwd_%s, returned to the member wallet", c.Status, c.ID, wid)
		} else if cardAcct != cardAccount(c.ID) {
			memo += fmt.Sprintf(" on %s card %s: forwarded to the replacement %s", c.Status, c.ID, cardAcct)
		}
		if err := tx.Transfer(tx.Now(), memo, cardLedgerAsset, conv, from, to); err != nil {
			return nil, fmt.Errorf("card %s: %w", c.ID, err)
		}
		t.Booked = true
		if withdrawal {
			defer l.emit(tx, "card.withdraw.completed", "card_withdrawal", wid, l.host.Member(tx, c.MemberID), "completed", 1)
		}
	}
	l.st.transactions.Put(tx, t.ID, *t)
	l.emit(tx, "card.transaction.updated", "card_transaction", strings.TrimPrefix(t.ID, "ctx_"), l.host.Member(tx, c.MemberID), t.Status, t.Version)
	return t, nil
}

func txJSON(t *cardTx) map[string]any {
	out := map[string]any{
		"id": t.ID, "kind": t.Kind, "status": t.Status, "direction": t.Direction, "amount": t.Amount,
		"currency": t.Currency, "scale": t.Scale, "original_amount": t.OriginalAmount, "original_currency": t.OriginalCurrency,
		"bank_fee": t.BankFee, "zinfra_fee": t.ZinfraFee, "fee_currency": t.FeeCurrency, "fee_scale": t.FeeScale,
		"merchant_name": t.MerchantName, "mcc": t.MCC, "auth_code": t.AuthCode,
		"occurred_at": t.OccurredAt.Format(time.RFC3339Nano),
	}
	if t.BillAmount != "" {
		out["bill_amount"] = t.BillAmount
	}
	if t.BankFee == "" {
		out["bank_fee"] = "0"
	}
	if t.ZinfraFee == "" {
		out["zinfra_fee"] = "0"
	}
	return out
}

func (l *Line) handleCardTransactions(c *api.Request) (int, any, error) {
	card, err := l.cardOf(c.Tx, c.Member, c.PathID())
	if err != nil {
		return 0, nil, err
	}
	q := c.Req.URL.Query()
	id := q.Get("id")
	if id != "" {
		if !api.UUIDShaped(strings.TrimPrefix(id, "ctx_")) {
			return 0, nil, api.InvalidFields("id must be a transaction id (ctx_ prefix optional)", "id")
		}
		id = WithIDPrefix("ctx_", id)
	}
	for _, k := range []string{"auth_code", "kind", "status"} {
		if utf8.RuneCountInString(q.Get(k)) > 64 {
			return 0, nil, api.InvalidFields(k+" must be at most 64 characters", k)
		}
	}
	dir := q.Get("direction")
	if dir != "" && !txDirections[dir] {
		return 0, nil, api.InvalidFields("direction must be debit, credit, none or unknown", "direction")
	}
	var from, to time.Time
	for _, b := range []struct {
		key string
		t   *time.Time
	}{{"from", &from}, {"to", &to}} {
		if v := q.Get(b.key); v != "" {
			if *b.t, err = time.Parse(time.RFC3339Nano, v); err != nil {
				return 0, nil, api.InvalidFields(b.key+" must be an ISO-8601 timestamp", b.key)
			}
		}
	}
	authCode, kind, status := q.Get("auth_code"), q.Get("kind"), q.Get("status")
	match := func(t cardTx) bool {
		switch {
		case id != "" && t.ID != id,
			authCode != "" && t.AuthCode != authCode,
			kind != "" && t.Kind != kind,
			status != "" && t.Status != status,
			dir != "" && t.Direction != dir,
			!from.IsZero() && t.OccurredAt.Before(from),
			!to.IsZero() && !t.OccurredAt.Before(to):
			return false
		}
		return true
	}
	first, end := ownedRun(c.Tx, l.st.txsOf, card.ID)
	env := api.PaginatePositions(end-first, func(i int) (api.PageKey, cardTx) {
		k, _, t := l.st.txsOf.At(c.Tx, first+i)
		return k.key, t
	}, q, match)
	page := env.Data.([]cardTx)
	items := make([]map[string]any, 0, len(page))
	for _, t := range page {
		items = append(items, txJSON(&t))
	}
	env.Data = items
	return 200, env, nil
}
