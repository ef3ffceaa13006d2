package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
	"github.com/mwallet/mwallet-go/sqlstore"
)

// The order and the intent to pay in one commit: the order row and the
// pending request are written in one transaction before anything is sent
// (mwallet.WithPendingWrite, PendingStore.PutTx). The process then loses
// the answer of the payment (here a simulated network fault; in production
// a crash), and the next process finds both in its database and finishes
// the payment with the same idempotency key: the service replays it, and
// nothing is paid twice. Against the embedded simulator and a SQLite file.
func Example_orderAndIntentInOneCommit() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "orders")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "orders.db")+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	store, err := sqlstore.New(db, sqlstore.Options{Dialect: sqlstore.SQLite})
	if err != nil {
		log.Fatal(err)
	}
	if err := store.CreateTables(ctx); err != nil {
		log.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE orders (id TEXT PRIMARY KEY, idem_key TEXT UNIQUE, payment_id TEXT, status TEXT)`); err != nil {
		log.Fatal(err)
	}

	sim, err := simulator.New()
	if err != nil {
		log.Fatal(err)
	}
	defer sim.Close()
	client := sim.Client(mwallet.WithPendingStore(store.Pending()))

	// The order and the intent to pay, in one commit before the first
	// attempt. The write runs again for the resend after step-up, so the
	// order is inserted once.
	orderID, key := "ord-1", mwallet.NewIdempotencyKey()
	intent := mwallet.WithPendingWrite(func(ctx context.Context, p mwallet.PendingRequest) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, `INSERT INTO orders (id, idem_key, status) VALUES (?, ?, 'created') ON CONFLICT (id) DO NOTHING`, orderID, p.Key); err != nil {
			return err
		}
		if err := store.Pending().PutTx(ctx, tx, p); err != nil {
			return err
		}
		return tx.Commit()
	})
	params := qrpay.PayParams{CodeValue: sampleqr.PromptPay}
	_, err = client.QRPay.Pay(ctx, "member-1", params, mwallet.WithIdempotencyKey(key), intent)
	su, ok := mwallet.AsStepUp(err)
	if !ok {
		log.Fatal(err)
	}
	_ = sim.StepUp.Complete(su.ChallengeID) // the end user at su.HostedURL

	// The payment executes, and every answer is lost.
	_ = sim.Faults.Inject(simulator.Fault{Method: "POST", Path: "/v1/qrpay/payments", Kind: simulator.FaultDropAfter, Count: 10})
	_, err = client.QRPay.Pay(ctx, "member-1", params, mwallet.WithIdempotencyKey(key), intent, mwallet.WithStepUp(su.ChallengeID))
	var te *mwallet.TransportError
	fmt.Println("answer lost:", errors.As(err, &te))
	_ = sim.Faults.Clear()

	// The next process: the order and its intent are in the database.
	restarted := sim.Client(mwallet.WithPendingStore(store.Pending()))
	pending, err := restarted.PendingRequests(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range pending {
		order, err := restarted.QRPay.ResumePay(ctx, p)
		if err != nil {
			log.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `UPDATE orders SET payment_id = ?, status = ? WHERE idem_key = ?`, order.ID, string(order.Status), p.Key); err != nil {
			log.Fatal(err)
		}
		fmt.Println("resumed:", p.Operation(), "replayed:", order.Response.Replayed, "status:", order.Status)
	}
	var status string
	_ = db.QueryRowContext(ctx, `SELECT status FROM orders WHERE id = ?`, orderID).Scan(&status)
	left, _ := store.Pending().List(ctx)
	fmt.Println("order:", status, "pending left:", len(left), "upstream notices:", sim.QRPay.UpstreamCalls().Notices)
	// Output:
	// answer lost: true
	// resumed: qrpay.Pay replayed: true status: processing
	// order: processing pending left: 0 upstream notices: 1
}
