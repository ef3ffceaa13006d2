package simulator

// Delivery of due webhook attempts: the public result of a flush. The
// flush's inputs of the log are internal/delivery's (Deliverer, over
// InputLog); the rounds, the attempts over HTTP and each input's step are
// internal/webhooks' (Flush, DueStep, AttemptedStep, ReleaseStep).

import (
	"context"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/delivery"
	hookline "github.com/mwallet/mwallet-go/simulator/internal/webhooks"
)

// FlushResult counts the attempts one flush made and lists the failed ones.
type FlushResult struct {
	Attempted int `json:"attempted"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
	// Failures lists the failed attempts in the order they were made.
	Failures []DeliveryFailure `json:"failures,omitempty"`
	// Hint explains the likely cause of the failures when the receivers'
	// answers show one (a receiver that checks signature timestamps on its
	// own clock, or verifies with another secret); empty otherwise.
	Hint string `json:"hint,omitempty"`
}

// DeliveryFailure is one failed delivery attempt of a flush.
type DeliveryFailure struct {
	DeliveryID string `json:"delivery_id"`
	EventID    string `json:"event_id"`
	EventType  string `json:"event_type"`
	EndpointID string `json:"endpoint_id"`
	URL        string `json:"url"`
	// At is the simulator time of the attempt: the signature's timestamp.
	At time.Time `json:"at"`
	// StatusCode is the receiver's status, 0 when no answer came.
	StatusCode int `json:"status_code"`
	// Response is the beginning of the receiver's answer body.
	Response string `json:"response,omitempty"`
	// Error says why the attempt failed.
	Error string `json:"error"`
	// Status is the delivery row's status after the attempt: pending (a
	// retry falls due at NextAttemptAt), dead, failed or no_subscriber.
	Status        string     `json:"status"`
	NextAttemptAt *time.Time `json:"next_attempt_at,omitempty"`
}

// FlushError is the error of a flush in which at least one delivery attempt
// failed: the receiver answered other than 2xx, or did not answer. The
// flush itself went through (every due delivery was attempted and
// recorded, retries are scheduled); the error exists so that a test cannot
// take a refusing receiver for a working one. Result is the flush's
// result, its Failures included. Test for it with errors.As; a test that
// wants a receiver to fail (an outage, a retry schedule) checks
// Result.Failures instead of treating the error as fatal.
type FlushError struct {
	Result FlushResult
}

// Error lists the failed attempts, at most five of them.
func (e *FlushError) Error() string {
	// The text is internal/webhooks' FlushResult.Message.
	r := e.Result
	return hookline.FlushResult{Attempted: r.Attempted, Failed: r.Failed, Hint: r.Hint,
		Failures: hookline.Copies(r.Failures, func(f DeliveryFailure) hookline.Failure { return hookline.Failure(f) })}.Message()
}

// deliverer is the webhook flush: internal/delivery's Deliverer, which
// picks the due deliveries, POSTs each one outside any transaction and
// logs the receiver's answer as an input of the log (record.go) through
// delivery.InputLog. It holds the kernel, the webhook line (which also holds the
// delivery pool's HTTP client), the clock and the input log's entry points.
type deliverer struct{ *delivery.Deliverer }

// flushWebhooks attempts every delivery that is due now on the simulator
// clock and returns when all attempts are done. Attempts are HTTP POSTs
// made without the simulator's lock, so receivers may call back into the
// simulator; deliveries that fall due during the flush (events emitted by
// those calls) are attempted too. Retries fall due as the clock advances
// (Advance), 1, 5, 30, 120 and 360 minutes after each failure; flush again
// to attempt them. A cancelled ctx stops the flush; an attempt cut short by
// the cancellation is not recorded and stays due. When an attempt failed the
// error is a *FlushError carrying the result.
//
// Each part of a flush that takes the state lock is an input of the log
// (record.go): picking the due deliveries (flush_due), each attempt with the
// receiver's answer (attempt), and giving the rest back when the flush is
// cancelled (flush_abort). A replay runs these inputs and never calls a
// receiver. The rounds and the attempts over HTTP are hookline.Flush.
func (d *deliverer) flushWebhooks(ctx context.Context) (FlushResult, error) {
	r, err := d.Flush(ctx)
	res := FlushResult{Attempted: r.Attempted, Succeeded: r.Succeeded, Failed: r.Failed, Hint: r.Hint}
	for _, f := range r.Failures {
		res.Failures = append(res.Failures, DeliveryFailure(f))
	}
	if err != nil || res.Failed == 0 {
		return res, err
	}
	return res, &FlushError{Result: res}
}
