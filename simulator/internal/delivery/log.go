package delivery

import (
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// Inputs is the input log's entry points the flush's inputs take
// (internal/inputlog's Log): an input admitted in a transaction begun as
// an input, or begun, logged and ordered in one call.
type Inputs interface {
	Admit(tx *kernel.Tx, in *recfile.Input) (int64, error)
	LockInput(in *recfile.Input) (*kernel.Tx, int64, error)
}

// Durability waits until the log up to end is durable (internal/inputlog's
// Recorder).
type Durability interface {
	Durable(end int64) error
}

// InputLog is the Log of the flush's inputs over the input log: each
// enters it as its recfile.Input (flush_due, attempt, flush_abort).
type InputLog struct {
	Inputs Inputs
	Rec    Durability
}

var _ Log = InputLog{}

// AdmitDue logs the flush_due input in tx.
func (l InputLog) AdmitDue(tx *kernel.Tx) (int64, error) {
	return l.Inputs.Admit(tx, &recfile.Input{Op: recfile.OpFlushDue})
}

// LockDue begins, logs and orders a flush_due input.
func (l InputLog) LockDue() (*kernel.Tx, int64, error) {
	return l.Inputs.LockInput(&recfile.Input{Op: recfile.OpFlushDue})
}

// LockAttempt begins, logs and orders an attempt input: the delivery, the
// attempt's time and the receiver's answer.
func (l InputLog) LockAttempt(deliveryID string, at time.Time, code int, answer, errText string) (*kernel.Tx, int64, error) {
	return l.Inputs.LockInput(&recfile.Input{Op: recfile.OpAttempt, Delivery: deliveryID, At: at, StatusCode: code, Response: answer, Error: errText})
}

// LockAbort begins, logs and orders a flush_abort input of the deliveries
// given back.
func (l InputLog) LockAbort(ids []string) (*kernel.Tx, int64, error) {
	return l.Inputs.LockInput(&recfile.Input{Op: recfile.OpFlushAbort, Deliveries: ids})
}

// Durable waits until the log up to end is durable.
func (l InputLog) Durable(end int64) error { return l.Rec.Durable(end) }
