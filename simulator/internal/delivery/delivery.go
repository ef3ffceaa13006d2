// Package delivery is the webhook flush over the input log: the inputs a
// flush makes (picking the due deliveries, each attempt with the
// receiver's answer, giving the rest back) in their transactions, around
// the webhook line's steps (internal/webhooks: Flush, DueStep,
// AttemptedStep, ReleaseStep). It reaches the input log only through the
// Log it declares.
package delivery

import (
	"context"
	"net/http"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/webhooks"
)

// Log is the input log as the flush's inputs enter it: each part of a
// flush that takes the state lock is an input of the log (picking the due
// deliveries, flush_due; each attempt with the receiver's answer, attempt;
// giving the rest back when the flush is cancelled, flush_abort). end is
// where an input ends in the log, for Durable.
type Log interface {
	// AdmitDue logs the flush_due input in tx, an input begun and not yet
	// ordered.
	AdmitDue(tx *kernel.Tx) (end int64, err error)
	// LockDue, LockAttempt and LockAbort begin an input, log it and order
	// it: the flush_due, attempt and flush_abort inputs.
	LockDue() (tx *kernel.Tx, end int64, err error)
	LockAttempt(deliveryID string, at time.Time, code int, answer, errText string) (tx *kernel.Tx, end int64, err error)
	LockAbort(ids []string) (tx *kernel.Tx, end int64, err error)
	// Durable waits until the log up to end is durable.
	Durable(end int64) error
}

// Deliverer is the webhook flush over the input log: it picks the due
// deliveries, has each attempted outside any transaction (Flush) and logs
// the receiver's answer as an input of the log. A replay runs the same
// inputs (DueInput, AttemptInput, AbortInput) and never calls a receiver.
// It is the flush's webhooks.FlushInputs.
type Deliverer struct {
	Kernel *kernel.Kernel
	Line   *webhooks.Line
	Log    Log
	// Clock reads the simulator clock.
	Clock func() time.Time
}

var _ webhooks.FlushInputs = (*Deliverer)(nil)

// Flush attempts every delivery that is due now on the simulator clock
// (webhooks.Flush over d).
func (d *Deliverer) Flush(ctx context.Context) (webhooks.FlushResult, error) {
	return webhooks.Flush(ctx, d)
}

// Due picks the due deliveries, an input of the log when any is due.
func (d *Deliverer) Due() ([]webhooks.Job, error) {
	tx := d.Kernel.BeginInput()
	if !d.Line.AnyDue(tx) {
		tx.End()
		return nil, nil
	}
	end, err := d.Log.AdmitDue(tx)
	tx.Ordered()
	if err != nil {
		tx.End()
		return nil, err
	}
	jobs := d.Line.DueStep(tx)
	tx.End()
	return jobs, d.Log.Durable(end)
}

// DueInput is the flush_due input of a replay.
func (d *Deliverer) DueInput() error {
	tx, _, err := d.Log.LockDue()
	if err != nil {
		return err
	}
	d.Line.DueStep(tx)
	tx.End()
	return nil
}

// Attempted records the receiver's answer to one attempt (an attempt
// input of the log) and reports whether it succeeded, with the failure
// when it did not.
func (d *Deliverer) Attempted(deliveryID string, at time.Time, code int, answer, errText string) (bool, webhooks.Failure, error) {
	tx, end, err := d.Log.LockAttempt(deliveryID, at, code, answer, errText)
	if err != nil {
		return false, webhooks.Failure{}, err
	}
	ok, failure, err := d.Line.AttemptedStep(tx, deliveryID, at, code, answer, errText)
	tx.End()
	if err != nil {
		return false, failure, err
	}
	return ok, failure, d.Log.Durable(end)
}

// AttemptInput is the attempt input of a replay.
func (d *Deliverer) AttemptInput(deliveryID string, at time.Time, code int, answer, errText string) error {
	_, _, err := d.Attempted(deliveryID, at, code, answer, errText)
	return err
}

// GiveBack returns deliveries a flush will not attempt to pending (a
// flush_abort input of the log).
func (d *Deliverer) GiveBack(jobs []webhooks.Job) error {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.DeliveryID
	}
	err := d.AbortInput(ids)
	if err != nil {
		// The log refuses everything now; the deliveries still go back
		// (a restart gives back whatever its log leaves in flight).
		tx := d.Kernel.Begin()
		d.Line.ReleaseStep(tx, ids)
		tx.End()
	}
	return err
}

// AbortInput takes deliveries out of flight (flush_abort).
func (d *Deliverer) AbortInput(ids []string) error {
	tx, end, err := d.Log.LockAbort(ids)
	if err != nil {
		return err
	}
	d.Line.ReleaseStep(tx, ids)
	tx.End()
	return d.Log.Durable(end)
}

// Client reads the delivery pool's client in a transaction of its own.
func (d *Deliverer) Client() *http.Client {
	tx := d.Kernel.Begin()
	client := d.Line.Client()
	tx.End()
	return client
}

// Now is the simulator clock's time.
func (d *Deliverer) Now() time.Time { return d.Clock() }

// CloseIdle lets go of the delivery pool's idle connections (none on a
// nil d).
func (d *Deliverer) CloseIdle() {
	if d == nil {
		return
	}
	tx := d.Kernel.Begin()
	wh := d.Line
	tx.End()
	if wh != nil {
		wh.CloseIdle()
	}
}
