package cards

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Adding a card transaction (POST /_sim/cards/{id}/transactions, action
// cards/transactions, Cards.AddTransaction), over the declaring package's
// run of one op X. Its Go method takes the declaring package's public copy
// of Transaction, and an earlier build's recordings replay the draws it
// made before refusing a debit.

type (
	// TxFields are the fields of a transaction to add, with their domains:
	// Transaction's fields (the two convert into each other).
	TxFields struct {
		ID               string    `json:"id,omitempty" dom:"name"`
		Kind             string    `json:"kind" dom:"name,req"`
		Status           string    `json:"status" dom:"name,req"`
		Direction        string    `json:"direction" dom:"tx_direction,req"`
		Amount           string    `json:"amount" dom:"minor_amount,req"`
		Currency         string    `json:"currency,omitempty" dom:"currency"`
		Scale            int       `json:"scale,omitempty" dom:"scale"`
		OriginalAmount   string    `json:"original_amount,omitempty" dom:"minor_amount"`
		OriginalCurrency string    `json:"original_currency,omitempty" dom:"currency"`
		BillAmount       string    `json:"bill_amount,omitempty" dom:"minor_amount"`
		BankFee          string    `json:"bank_fee,omitempty" dom:"minor_amount"`
		ZinfraFee        string    `json:"zinfra_fee,omitempty" dom:"minor_amount"`
		FeeCurrency      string    `json:"fee_currency,omitempty" dom:"currency"`
		FeeScale         int       `json:"fee_scale,omitempty" dom:"scale"`
		MerchantName     string    `json:"merchant_name,omitempty" dom:"text"`
		MCC              string    `json:"mcc,omitempty" dom:"name"`
		AuthCode         string    `json:"auth_code,omitempty" dom:"name"`
		OccurredAt       time.Time `json:"occurred_at,omitempty" dom:"time"`
	}
	// TxIn adds (or updates) a transaction of a card.
	TxIn struct {
		ID string `path:"id" json:"-" dom:"card"`
		TxFields
	}
	// TxAdded is the answer of an added transaction: its ctx_ id (the Go
	// method's answer) and its JSON (the control API's).
	TxAdded struct {
		ID   string
		JSON map[string]any
	}
)

// NewTransactionOp declares the op; at gives the line and the transaction
// of a run, public the Go method's argument for the fields (the declaring
// package's public copy of Transaction), legacy whether a run replays an
// earlier build's recording and short whether an error is a posting the
// funds could not cover.
func NewTransactionOp[X any](at func(X) (*Line, *kernel.Tx), public func(Transaction) any,
	legacy func(X) bool, short func(error) bool) *control.Op[X] {
	return control.Def[X, TxIn]{
		Route: "POST /_sim/cards/{id}/transactions", Action: "cards/transactions", Name: "Cards.AddTransaction",
		Args: func(in *TxIn) []any { return []any{in.ID, public(Transaction(in.TxFields))} },
		Run: func(x X, in *TxIn) (any, error) {
			l, tx := at(x)
			id, out, err := l.AddTransaction(tx, in.ID, Transaction(in.TxFields))
			var ae *api.Error
			if err != nil && legacy(x) && in.TxFields.ID == "" && (short(err) ||
				errors.As(err, &ae) && ae.Code == "state_invalid" && strings.Contains(ae.Message, "takes no debits")) {
				// Earlier builds drew the new transaction's id and list
				// sequence before refusing a debit of an ended card or one
				// the card could not cover; their recordings replay so.
				tx.NewUUID()
				tx.NextSeq()
			}
			return TxAdded{ID: id, JSON: out}, err
		},
		Reply: func(_ X, _ *TxIn, out any) (int, any) { return http.StatusOK, out.(TxAdded).JSON },
	}.Op()
}
