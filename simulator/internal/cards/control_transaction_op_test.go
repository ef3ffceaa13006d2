package cards

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/simulator/internal/control/controltest"
)

// publicTx stands for the declaring package's public copy of Transaction.
type publicTx Transaction

// TestTransactionOp: the op is declared as the control API serves it, its
// Go call takes the public copy of the fields, a refusal answers as the
// line refuses, and only an earlier build's recording replays the draws of
// a new transaction's refused debit.
func TestTransactionOp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		legacy, short bool
		txID          string
		draws         int
	}{
		{name: "current rules", short: true},
		{name: "earlier build, funds short", legacy: true, short: true, draws: 2},
		{name: "earlier build, another refusal", legacy: true},
		{name: "earlier build, an update", legacy: true, short: true, txID: "ctx_1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			op := NewTransactionOp(controltest.At[Line], func(t Transaction) any { return publicTx(t) },
				func(opRun) bool { return tt.legacy }, func(error) bool { return tt.short })
			if diff := cmp.Diff([]controltest.Decl{
				{Route: "POST /_sim/cards/{id}/transactions", Action: "cards/transactions", Name: "Cards.AddTransaction"},
			}, controltest.Decls(op)); diff != "" {
				t.Errorf("declaration (-want +got):\n%s", diff)
			}
			in := &TxIn{ID: "card_none", TxFields: TxFields{ID: tt.txID, Kind: "purchase", Status: "succeed", Direction: "debit", Amount: "100"}}
			if _, args, _ := op.Call(in); !cmp.Equal(args, []any{"card_none", publicTx(Transaction(in.TxFields))}) {
				t.Errorf("recorded call %v", args)
			}
			before := f.tx.NextSeq()
			got := controltest.Outcome(op.Run(opRun{Line: f.l, Tx: f.tx}, in))
			if got.Code == "" {
				t.Errorf("an unknown card's transaction was added: %v", got.Out)
			}
			if draws := int(f.tx.NextSeq()-before) - 1; draws != tt.draws {
				t.Errorf("draws = %d, want %d", draws, tt.draws)
			}
		})
	}
}
