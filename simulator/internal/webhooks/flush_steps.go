package webhooks

import (
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The flush's inputs of the simulator's log each run as one step of the
// kernel (internal/kernel), named here: the simulator logs the input, the
// line makes its change inside the step.
const (
	stepFlushDue   = "webhook flush: the due deliveries"
	stepAttempt    = "webhook flush: an attempt's result"
	stepFlushAbort = "webhook flush: deliveries given back"
)

// DueStep takes the due deliveries into flight (Due) as the flush_due
// input's step.
func (l *Line) DueStep(tx *kernel.Tx) []Job {
	var jobs []Job
	_ = tx.Step(stepFlushDue, func() error { jobs = l.Due(tx); return nil })
	return jobs
}

// ReleaseStep gives the deliveries of ids in flight back (Release) as the
// flush_abort input's step.
func (l *Line) ReleaseStep(tx *kernel.Tx, ids []string) {
	_ = tx.Step(stepFlushAbort, func() error { l.Release(tx, ids); return nil })
}

// AttemptedStep records the receiver's answer to one attempt (Attempted)
// as the attempt input's step; a refused attempt (an unknown delivery)
// changes nothing.
func (l *Line) AttemptedStep(tx *kernel.Tx, deliveryID string, at time.Time, code int, answer, errText string) (bool, Failure, error) {
	var ok bool
	var f Failure
	err := tx.Step(stepAttempt, func() error {
		var err error
		ok, f, err = l.Attempted(tx, deliveryID, at, code, answer, errText)
		return err
	})
	return ok, f, err
}
