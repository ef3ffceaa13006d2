// Package checkout is a small merchant service that pays QR codes for its
// members through the SDK, its orders in its own SQL database. It exists to
// show how an integrator builds and tests such a service against the
// embedded simulator: see checkout_test.go next to it.
//
// The service does what a careful integration must:
//
//   - one idempotency key per checkout order, and the order and the intent
//     to pay committed in one transaction before the first call
//     (mwallet.WithPendingWrite and sqlstore's PendingStore.PutTx): a
//     process that dies at any point after that leaves both, and Recover
//     finishes the payment with the same key, so it can never pay twice nor
//     lose the order;
//   - strong authentication: the first payment call answers
//     step_up_required; the end user completes the hosted screen
//     (Service.StepUp) and the same payment is resent with the same key and
//     the challenge id;
//   - 201 is not paid: a processing payment stays "awaiting outcome", its
//     funds held, until the upstream answers (webhook, or polling as a
//     fallback); the service never unlocks, fails or re-pays it on its own;
//   - webhooks are claimed, applied and recorded as processed in one
//     transaction (sqlstore's Deduper.DoneTx), so each is applied exactly
//     once even across a crash; statuses are merged with qrpay.Merge
//     (status_version between events, the specification's state table
//     otherwise), never moving an order back;
//   - unknown statuses are stored verbatim and flagged, never defaulted.
package checkout

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/sqlstore"
	"github.com/mwallet/mwallet-go/webhooks"
)

// Status is the state of a checkout order. The payment statuses of package
// qrpay are stored verbatim; Created and Rejected are the service's own.
type Status string

// Checkout order states of the service's own.
const (
	// Created: the order exists, its idempotency key is stored, nothing was
	// paid yet.
	Created Status = "created"
	// Rejected: the service refused the payment (step-up abandoned, funds,
	// limits, ...); nothing is held. Paying again needs a new order.
	Rejected Status = "rejected"
)

// Order is a checkout order.
type Order struct {
	// ID is the service's own order id.
	ID string
	// Member is the member paying (external_member_id).
	Member string
	// Code is the scanned QR text.
	Code string
	// IdempotencyKey is the key of the payment, fixed at creation.
	IdempotencyKey string
	// PaymentID is the qrp_ id once the service accepted the payment.
	PaymentID string
	// Status is Created, Rejected, or the payment's status as the service
	// reported it (processing, completed, failed, refunded, or an unknown
	// value kept verbatim).
	Status Status
	// StatusVersion is the status_version of the last event applied (0
	// while only reads were applied).
	StatusVersion int64
	// Alert is a status the service reported that could not be ordered
	// against Status (a value this service does not know, kept verbatim):
	// alert on it and re-read the order.
	Alert Status
	// RejectCode is the error code of a rejected payment.
	RejectCode mwallet.Code
}

// Paid reports whether the acquiring merchant was paid.
func (o Order) Paid() bool { return o.Status == Status(qrpay.StatusCompleted) }

// Unknown reports whether the order's status, or a status reported for it,
// is one this service does not know: alert on it.
func (o Order) Unknown() bool {
	return o.Alert != "" || o.PaymentID != "" && !qrpay.Status(o.Status).Known()
}

// AwaitingOutcome reports whether the payment's outcome is still unknown:
// funds are held, and nothing may be unlocked or paid again.
func (o Order) AwaitingOutcome() bool {
	return o.PaymentID != "" && !qrpay.Status(o.Status).IsFinal()
}

// Store keeps checkout orders in a SQL database (PostgreSQL or SQLite),
// next to the SDK's tables (package sqlstore): the pending payments, the
// webhook claims and the shared access token.
type Store struct {
	db  *sql.DB
	sdk *sqlstore.Store
}

// OpenStore creates the tables when they do not exist and returns the
// store. The SDK's tables live under the prefix "mwallet_", the orders in
// "checkout_orders".
func OpenStore(ctx context.Context, db *sql.DB, dialect sqlstore.Dialect) (*Store, error) {
	sdk, err := sqlstore.New(db, sqlstore.Options{Dialect: dialect})
	if err != nil {
		return nil, err
	}
	if err := sdk.CreateTables(ctx); err != nil {
		return nil, err
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS checkout_orders (
	id             TEXT PRIMARY KEY,
	member         TEXT NOT NULL,
	code           TEXT NOT NULL,
	idem_key       TEXT NOT NULL UNIQUE,
	payment_id     TEXT NOT NULL DEFAULT '',
	status         TEXT NOT NULL,
	status_version BIGINT NOT NULL DEFAULT 0,
	alert          TEXT NOT NULL DEFAULT '',
	reject_code    TEXT NOT NULL DEFAULT ''
)`); err != nil {
		return nil, fmt.Errorf("checkout: create table: %w", err)
	}
	return &Store{db: db, sdk: sdk}, nil
}

// SDK returns the SDK's stores on the same database: give the client
// mwallet.WithPendingStore(s.SDK().Pending()) and
// mwallet.WithTokenStore(s.SDK().Tokens()).
func (s *Store) SDK() *sqlstore.Store { return s.sdk }

// q writes a statement with ? placeholders for the store's dialect.
func (s *Store) q(stmt string) string { return sqlstore.Rebind(s.sdk.Dialect(), stmt) }

const orderColumns = `id, member, code, idem_key, payment_id, status, status_version, alert, reject_code`

func scanOrder(row interface{ Scan(...any) error }) (Order, error) {
	var o Order
	err := row.Scan(&o.ID, &o.Member, &o.Code, &o.IdempotencyKey, &o.PaymentID, &o.Status, &o.StatusVersion, &o.Alert, &o.RejectCode)
	return o, err
}

// Get returns an order.
func (s *Store) Get(ctx context.Context, id string) (Order, bool) {
	o, err := scanOrder(s.db.QueryRowContext(ctx, s.q(`SELECT `+orderColumns+` FROM checkout_orders WHERE id = ?`), id))
	return o, err == nil
}

// ByKey returns the order of an idempotency key.
func (s *Store) ByKey(ctx context.Context, key string) (Order, bool) {
	o, err := scanOrder(s.db.QueryRowContext(ctx, s.q(`SELECT `+orderColumns+` FROM checkout_orders WHERE idem_key = ?`), key))
	return o, err == nil
}

// ByPayment returns the order of a payment (qrp_ id).
func (s *Store) ByPayment(ctx context.Context, paymentID string) (Order, bool) {
	o, err := scanOrder(s.db.QueryRowContext(ctx, s.q(`SELECT `+orderColumns+` FROM checkout_orders WHERE payment_id = ?`), paymentID))
	return o, err == nil
}

// createTx inserts the order unless it exists (a resend after step-up
// writes again).
func (s *Store) createTx(ctx context.Context, tx *sql.Tx, o Order) error {
	_, err := tx.ExecContext(ctx, s.q(`INSERT INTO checkout_orders (id, member, code, idem_key, status) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (id) DO NOTHING`), o.ID, o.Member, o.Code, o.IdempotencyKey, string(Created))
	return err
}

// inTx runs f in a transaction and commits it.
func (s *Store) inTx(ctx context.Context, f func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := f(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// accepted records the payment id of the order of key and merges its
// status as read.
func (s *Store) accepted(ctx context.Context, key string, payment *qrpay.Order) (Order, error) {
	var out Order
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE checkout_orders SET payment_id = ? WHERE idem_key = ?`), payment.ID, key); err != nil {
			return err
		}
		o, err := s.mergeTx(ctx, tx, payment.ID, qrpay.Snapshot{Status: payment.Status})
		out = o
		return err
	})
	return out, err
}

// reject marks the order of key rejected.
func (s *Store) reject(ctx context.Context, o Order, code mwallet.Code) (Order, error) {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.createTx(ctx, tx, o); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(`UPDATE checkout_orders SET status = ?, reject_code = ? WHERE idem_key = ?`), string(Rejected), string(code), o.IdempotencyKey)
		return err
	})
	if err != nil {
		return o, err
	}
	o, _ = s.ByKey(ctx, o.IdempotencyKey)
	return o, nil
}

// mergeTx moves the order of a payment forward with qrpay.Merge: an event
// (with its status_version) or a read (version 0). A status that cannot be
// ordered is kept in Alert, verbatim.
func (s *Store) mergeTx(ctx context.Context, tx *sql.Tx, paymentID string, update qrpay.Snapshot) (Order, error) {
	o, err := scanOrder(tx.QueryRowContext(ctx, s.q(`SELECT `+orderColumns+` FROM checkout_orders WHERE payment_id = ?`), paymentID))
	if err != nil {
		return Order{}, err
	}
	current := qrpay.Snapshot{Status: qrpay.Status(o.Status), Version: o.StatusVersion}
	if o.Status == Created {
		current = qrpay.Snapshot{}
	}
	next, outcome := qrpay.Merge(current, update)
	switch outcome {
	case qrpay.MergeUnordered:
		o.Alert = Status(update.Status)
	default:
		o.Status, o.StatusVersion = Status(next.Status), next.Version
	}
	_, err = tx.ExecContext(ctx, s.q(`UPDATE checkout_orders SET status = ?, status_version = ?, alert = ? WHERE id = ?`),
		string(o.Status), o.StatusVersion, string(o.Alert), o.ID)
	return o, err
}

// merge is mergeTx in a transaction of its own.
func (s *Store) merge(ctx context.Context, paymentID string, update qrpay.Snapshot) (Order, error) {
	var out Order
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		o, err := s.mergeTx(ctx, tx, paymentID, update)
		out = o
		return err
	})
	return out, err
}

// StepUpFunc sends the end user through strong authentication and returns
// once they completed the hosted screen at su.HostedURL (or with an error
// when they gave up or the challenge expired).
type StepUpFunc func(ctx context.Context, member string, su *mwallet.StepUp) error

// Service pays QR codes for members.
type Service struct {
	// Client is the SDK client, made with
	// mwallet.WithPendingStore(Store.SDK().Pending()).
	Client *mwclient.Client
	// Store keeps the orders.
	Store *Store
	// StepUp runs the end user's strong authentication.
	StepUp StepUpFunc
	// Wait configures the polling fallback of PayQR (qrpay.WaitForOutcome).
	Wait []qrpay.WaitOption
}

// ErrStepUpAbandoned wraps the StepUp function's error.
var ErrStepUpAbandoned = errors.New("checkout: strong authentication not completed")

func newOrderID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "ord-" + hex.EncodeToString(b[:])
}

// PayQR pays code for member and waits for the outcome while ctx lasts.
//
// It returns the order in its latest state. A rejected payment returns the
// order (Status Rejected) and the error. When ctx ends while the payment is
// processing, the order is returned with AwaitingOutcome true and no error:
// the funds stay held and the webhook will settle it. When the outcome of
// the payment call is unknown (no answer), the order is returned as Created
// with the error: the intent stays in the pending store, and Recover sends
// it again with the same key.
func (s *Service) PayQR(ctx context.Context, member, code string) (Order, error) {
	o := Order{ID: newOrderID(), Member: member, Code: code, IdempotencyKey: mwallet.NewIdempotencyKey(), Status: Created}
	p := qrpay.PayParams{CodeValue: code}
	// The order and the intent to pay, in one commit, before anything is
	// sent.
	intent := mwallet.WithPendingWrite(func(ctx context.Context, rec mwallet.PendingRequest) error {
		return s.Store.inTx(ctx, func(tx *sql.Tx) error {
			if err := s.Store.createTx(ctx, tx, o); err != nil {
				return err
			}
			return s.Store.sdk.Pending().PutTx(ctx, tx, rec)
		})
	})
	key := mwallet.WithIdempotencyKey(o.IdempotencyKey)

	payment, err := s.Client.QRPay.Pay(ctx, member, p, key, intent)
	if su, ok := mwallet.AsStepUp(err); ok {
		if err := s.StepUp(ctx, member, su); err != nil {
			o, _ = s.Store.reject(ctx, o, "")
			return o, fmt.Errorf("%w: %w", ErrStepUpAbandoned, err)
		}
		payment, err = s.Client.QRPay.Pay(ctx, member, p, key, intent, mwallet.WithStepUp(su.ChallengeID))
	}
	if err != nil {
		if kept, _ := s.pendingKept(ctx, o.IdempotencyKey); kept || ctx.Err() != nil {
			// The outcome is unknown, or the call may still execute: keep
			// the order and its key; Recover resends it. Never pay again
			// with a new key.
			if got, ok := s.Store.ByKey(ctx, o.IdempotencyKey); ok {
				o = got
			}
			return o, err
		}
		o, _ = s.Store.reject(ctx, o, mwallet.CodeOf(err))
		return o, err
	}
	return s.followed(ctx, o.IdempotencyKey, payment)
}

// pendingKept reports whether the pending store still holds the intent of
// key (mwallet.PendingTable: the outcome is not decided yet).
func (s *Service) pendingKept(ctx context.Context, key string) (bool, error) {
	list, err := s.Store.sdk.Pending().List(ctx)
	if err != nil {
		return false, err
	}
	for _, p := range list {
		if p.Key == key {
			return true, nil
		}
	}
	return false, nil
}

// followed records an accepted payment and waits for its outcome while ctx
// lasts.
func (s *Service) followed(ctx context.Context, key string, payment *qrpay.Order) (Order, error) {
	o, err := s.Store.accepted(ctx, key, payment)
	if err != nil {
		return o, err
	}
	if !o.AwaitingOutcome() {
		return o, nil
	}
	final, err := s.Client.QRPay.WaitForOutcome(ctx, o.Member, payment.ID, s.Wait...)
	if final != nil {
		if merged, merr := s.Store.merge(ctx, payment.ID, qrpay.Snapshot{Status: final.Status}); merr == nil {
			o = merged
		}
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		return o, err
	}
	return o, nil
}

// Recover finishes, at start-up, the payments a stopped process left
// unknown: every intent in the pending store is sent again with its key
// (the service replays what had executed, and executes once what had not),
// and its order records the payment. It returns the orders it settled.
func (s *Service) Recover(ctx context.Context) ([]Order, error) {
	pending, err := s.Client.PendingRequests(ctx)
	if err != nil {
		return nil, err
	}
	var out []Order
	var errs []error
	for _, p := range pending {
		if p.Operation() != "qrpay.Pay" {
			continue
		}
		payment, err := s.Client.QRPay.ResumePay(ctx, p)
		if err != nil {
			if kept, _ := s.pendingKept(ctx, p.Key); !kept {
				o, _ := s.Store.ByKey(ctx, p.Key)
				o, _ = s.Store.reject(ctx, o, mwallet.CodeOf(err))
				out = append(out, o)
				continue
			}
			errs = append(errs, fmt.Errorf("order of key %s: %w", p.Key, err))
			continue
		}
		o, err := s.Store.accepted(ctx, p.Key, payment)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, o)
	}
	return out, errors.Join(errs...)
}

// WebhookHandler returns the http.Handler receiving the service's webhooks:
// it verifies the signature with secret, claims each event in the SQL
// Deduper, and applies each qrpay_order event to its order in one
// transaction with the event's done record (Deduper.DoneTx), so a crash
// can neither lose it nor apply it twice. Events for payments this service
// does not know are acknowledged and ignored.
func (s *Service) WebhookHandler(secret mwallet.Secret, now func() time.Time, opts ...webhooks.Option) http.Handler {
	dedupe := s.Store.sdk.Deduper()
	fn := func(ctx context.Context, ev webhooks.Event) error {
		if ev.Data.Object != webhooks.ObjectQRPayOrder {
			return nil
		}
		id, ok := ev.Data.RESTID() // qrp_<id>; the event may carry the bare id
		if !ok {
			return nil
		}
		if _, known := s.Store.ByPayment(ctx, id); !known {
			return nil
		}
		return s.Store.inTx(ctx, func(tx *sql.Tx) error {
			if _, err := s.Store.mergeTx(ctx, tx, id, qrpay.Snapshot{Status: qrpay.Status(ev.Data.Status), Version: ev.Data.StatusVersion}); err != nil {
				return err
			}
			return dedupe.DoneTx(ctx, tx, ev.EventID, now())
		})
	}
	all := append([]webhooks.Option{webhooks.WithDeduper(dedupe), webhooks.WithClock(now)}, opts...)
	return webhooks.Handler(secret, fn, all...)
}
