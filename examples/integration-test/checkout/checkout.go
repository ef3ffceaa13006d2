// Package checkout is a small merchant service that pays QR codes for its
// members through the SDK. It exists to show how an integrator tests code of
// their own against the embedded simulator: see checkout_test.go next to it.
//
// The service does what a careful integration must:
//
//   - one idempotency key per checkout order, created before the first call
//     and stored with the order, so a resend can never pay twice;
//   - strong authentication: the first payment call answers
//     step_up_required; the end user completes the hosted screen (Service.StepUp)
//     and the same payment is resent with the same key and the challenge id;
//   - 201 is not paid: a processing payment stays "awaiting outcome", its
//     funds held, until the upstream answers (webhook, or polling as a
//     fallback); the service never unlocks, fails or re-pays it on its own;
//   - webhooks update the order store through a verifying, deduplicating
//     handler, merged forward by status_version (older deliveries dropped);
//   - unknown statuses are stored verbatim and flagged, never defaulted.
package checkout

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
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
	// StatusVersion is the status_version of the last webhook applied (0
	// while only reads were applied).
	StatusVersion int64
	// Unknown is true when Status is a value this service does not know:
	// alert on it.
	Unknown bool
	// RejectCode is the error code of a rejected payment.
	RejectCode mwallet.Code
}

// Paid reports whether the acquiring merchant was paid.
func (o Order) Paid() bool { return o.Status == Status(qrpay.StatusCompleted) }

// AwaitingOutcome reports whether the payment's outcome is still unknown:
// funds are held, and nothing may be unlocked or paid again.
func (o Order) AwaitingOutcome() bool {
	return o.PaymentID != "" && !qrpay.Status(o.Status).IsFinal()
}

// Store keeps checkout orders in memory. A real service uses its database;
// what matters is that the idempotency key is stored before the first call.
type Store struct {
	mu        sync.Mutex
	seq       int
	orders    map[string]*Order
	byPayment map[string]string
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{orders: map[string]*Order{}, byPayment: map[string]string{}}
}

func (s *Store) create(member, code string) Order {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	o := &Order{ID: "ord-" + strconv.Itoa(s.seq), Member: member, Code: code,
		IdempotencyKey: mwallet.NewIdempotencyKey(), Status: Created}
	s.orders[o.ID] = o
	return *o
}

// Get returns a copy of an order.
func (s *Store) Get(id string) (Order, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orders[id]
	if !ok {
		return Order{}, false
	}
	return *o, true
}

// ByPayment returns the order of a payment (qrp_ id).
func (s *Store) ByPayment(paymentID string) (Order, bool) {
	s.mu.Lock()
	id, ok := s.byPayment[paymentID]
	s.mu.Unlock()
	if !ok {
		return Order{}, false
	}
	return s.Get(id)
}

func (s *Store) update(id string, f func(o *Order)) Order {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.orders[id]
	f(o)
	if o.PaymentID != "" {
		s.byPayment[o.PaymentID] = o.ID
	}
	return *o
}

// rank orders the known payment statuses; an update never moves an order
// back. Unknown statuses have no rank.
func rank(s Status) (int, bool) {
	switch qrpay.Status(s) {
	case qrpay.StatusPending:
		return 1, true
	case qrpay.StatusProcessing:
		return 2, true
	case qrpay.StatusCompleted, qrpay.StatusFailed, qrpay.StatusExpired, qrpay.StatusCanceled:
		return 3, true
	case qrpay.StatusRefunded:
		return 4, true
	}
	return 0, s == Created
}

// apply moves the order of a payment forward. A webhook carries a
// status_version and wins only when it is newer than the last one applied; a
// read carries none. Neither moves a known status back (a read may already
// have applied what a late webhook says).
func (s *Store) apply(paymentID string, status Status, version int64) (Order, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.byPayment[paymentID]
	if !ok {
		return Order{}, false
	}
	o := s.orders[id]
	if version > 0 && version <= o.StatusVersion {
		return *o, false
	}
	next, knownNext := rank(status)
	cur, knownCur := rank(o.Status)
	if knownNext && knownCur && (next < cur || next == cur && version == 0) {
		return *o, false
	}
	if version > 0 {
		o.StatusVersion = version
	}
	o.Status = status
	o.Unknown = !qrpay.Status(status).Known()
	return *o, true
}

// StepUpFunc sends the end user through strong authentication and returns
// once they completed the hosted screen at su.HostedURL (or with an error
// when they gave up or the challenge expired).
type StepUpFunc func(ctx context.Context, member string, su *mwallet.StepUp) error

// Service pays QR codes for members.
type Service struct {
	// Client is the SDK client.
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

// PayQR pays code for member and waits for the outcome while ctx lasts.
//
// It returns the order in its latest state. A rejected payment returns the
// order (Status Rejected) and the error. When ctx ends while the payment is
// processing, the order is returned with AwaitingOutcome true and no error:
// the funds stay held and the webhook will settle it.
func (s *Service) PayQR(ctx context.Context, member, code string) (Order, error) {
	o := s.Store.create(member, code)
	p := qrpay.PayParams{CodeValue: code}
	key := mwallet.WithIdempotencyKey(o.IdempotencyKey)

	payment, err := s.Client.QRPay.Pay(ctx, member, p, key)
	if su, ok := mwallet.AsStepUp(err); ok {
		if err := s.StepUp(ctx, member, su); err != nil {
			return s.reject(o.ID, "", fmt.Errorf("%w: %w", ErrStepUpAbandoned, err))
		}
		payment, err = s.Client.QRPay.Pay(ctx, member, p, key, mwallet.WithStepUp(su.ChallengeID))
	}
	if err != nil {
		var te *mwallet.TransportError
		if errors.As(err, &te) && !te.NotSent {
			// The outcome is unknown: keep the order and its key, and resend
			// later with the same key. Never pay again with a new one.
			return o, err
		}
		return s.reject(o.ID, mwallet.CodeOf(err), err)
	}
	o = s.Store.update(o.ID, func(x *Order) { x.PaymentID = payment.ID })
	o, _ = s.Store.apply(payment.ID, Status(payment.Status), 0)
	if !o.AwaitingOutcome() {
		return o, nil
	}

	final, err := s.Client.QRPay.WaitForOutcome(ctx, member, payment.ID, s.Wait...)
	if final != nil {
		o, _ = s.Store.apply(payment.ID, Status(final.Status), 0)
		if got, ok := s.Store.Get(o.ID); ok {
			o = got
		}
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		return o, err
	}
	return o, nil
}

func (s *Service) reject(id string, code mwallet.Code, err error) (Order, error) {
	o := s.Store.update(id, func(x *Order) { x.Status, x.RejectCode = Rejected, code })
	return o, err
}

// WebhookHandler returns the http.Handler receiving the service's webhooks:
// it verifies the signature with secret, drops duplicate deliveries, and
// moves the order of each qrpay_order event forward by status_version.
// Events for payments this service does not know are acknowledged and
// ignored.
func (s *Service) WebhookHandler(secret mwallet.Secret, opts ...webhooks.Option) http.Handler {
	return webhooks.Handler(secret, func(_ context.Context, ev webhooks.Event) error {
		if ev.Data.Object != webhooks.ObjectQRPayOrder {
			return nil
		}
		id, ok := ev.Data.RESTID() // qrp_<id>; the event may carry the bare id
		if !ok {
			return nil
		}
		s.Store.apply(id, Status(ev.Data.Status), ev.Data.StatusVersion)
		return nil
	}, opts...)
}
