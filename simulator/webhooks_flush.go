package simulator

// Delivery of due webhook attempts: flushing, one attempt, and what each
// attempt keeps of the receiver's answer.

import (
	"bytes"
	"context"
	"fmt"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
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
	var b strings.Builder
	fmt.Fprintf(&b, "simulator: %d of %d webhook delivery attempts failed", e.Result.Failed, e.Result.Attempted)
	for i, f := range e.Result.Failures {
		if i == 5 {
			fmt.Fprintf(&b, "; and %d more (sim.Webhooks.Deliveries lists them)", len(e.Result.Failures)-i)
			break
		}
		fmt.Fprintf(&b, "; %s %s to %s: %s", f.EventType, f.EventID, f.URL, f.Error)
	}
	if e.Result.Hint != "" {
		b.WriteString(" (" + e.Result.Hint + ")")
	}
	return b.String()
}

// deliverer is the webhook flush: it picks the due deliveries, POSTs each
// one outside any transaction and logs the receiver's answer as an input
// of the log (record.go). It holds the kernel, the state (read through
// st: the webhook line, which also holds the delivery pool's HTTP client,
// and the clock), the recorder and the input log's entry points.
type deliverer struct {
	k      *kernel.Kernel
	st     *simState
	rec    *recorder
	inputs *inputLog
}

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
// receiver.
func (d *deliverer) flushWebhooks(ctx context.Context) (FlushResult, error) {
	var res FlushResult
	for round := 0; round < maxFlushRounds; round++ {
		jobs, err := d.flushDue()
		if err != nil {
			return res, err
		}
		if len(jobs) == 0 {
			break
		}
		for i, j := range jobs {
			if err := ctx.Err(); err != nil {
				_ = d.giveBack(jobs[i:])
				return res, err
			}
			code, answer, aerr := d.attemptDelivery(ctx, j)
			if aerr != nil && ctx.Err() != nil {
				// Cancelled by the caller, not refused by the receiver: the
				// attempt does not count.
				_ = d.giveBack(jobs[i:])
				return res, ctx.Err()
			}
			errText := ""
			if aerr != nil {
				errText = aerr.Error()
			}
			ok, failure, err := d.attemptResult(j.DeliveryID, j.At, code, answer, errText)
			if err != nil {
				_ = d.giveBack(jobs[i:])
				return res, err
			}
			res.Attempted++
			if ok {
				res.Succeeded++
			} else {
				res.Failed++
				res.Failures = append(res.Failures, failure)
			}
		}
	}
	if res.Failed == 0 {
		return res, nil
	}
	res.Hint = d.flushHint(res.Failures)
	return res, &FlushError{Result: res}
}

// flushDue picks the due deliveries, an input of the log when any is due.
func (d *deliverer) flushDue() ([]hookline.Job, error) {
	tx := d.k.BeginInput()
	if !d.st.webhooks.AnyDue(tx) {
		tx.End()
		return nil, nil
	}
	end, err := d.inputs.admit(tx, &recordedInput{Op: recfile.OpFlushDue})
	tx.Ordered()
	if err != nil {
		tx.End()
		return nil, err
	}
	jobs := d.due(tx)
	tx.End()
	return jobs, d.rec.durable(end)
}

// Each flush input is one step (internal/kernel).
const (
	stepFlushDue   = "webhook flush: the due deliveries"
	stepAttempt    = "webhook flush: an attempt's result"
	stepFlushAbort = "webhook flush: deliveries given back"
)

// due takes the due deliveries into flight.
func (d *deliverer) due(tx *kernel.Tx) []hookline.Job {
	var jobs []hookline.Job
	_ = tx.Step(stepFlushDue, func() error { jobs = d.st.webhooks.Due(tx); return nil })
	return jobs
}

// release gives deliveries in flight back.
func (d *deliverer) release(tx *kernel.Tx, ids []string) {
	_ = tx.Step(stepFlushAbort, func() error { d.st.webhooks.Release(tx, ids); return nil })
}

// flushDueInput is the flush_due input of a replay.
func (d *deliverer) flushDueInput() error {
	tx, _, err := d.inputs.lockInput(&recordedInput{Op: recfile.OpFlushDue})
	if err != nil {
		return err
	}
	d.due(tx)
	tx.End()
	return nil
}

// attemptResult records the receiver's answer to one attempt (an attempt
// input of the log) and reports whether it succeeded, with the failure
// when it did not.
func (d *deliverer) attemptResult(deliveryID string, at time.Time, code int, answer, errText string) (bool, DeliveryFailure, error) {
	tx, end, err := d.inputs.lockInput(&recordedInput{Op: recfile.OpAttempt, Delivery: deliveryID, At: at, StatusCode: code, Response: answer, Error: errText})
	if err != nil {
		return false, DeliveryFailure{}, err
	}
	var ok bool
	var f hookline.Failure
	err = tx.Step(stepAttempt, func() error {
		var err error
		ok, f, err = d.st.webhooks.Attempted(tx, deliveryID, at, code, answer, errText)
		return err
	})
	failure := DeliveryFailure(f)
	tx.End()
	if err != nil {
		return false, failure, err
	}
	return ok, failure, d.rec.durable(end)
}

// attemptInput is the attempt input of a replay.
func (d *deliverer) attemptInput(deliveryID string, at time.Time, code int, answer, errText string) error {
	_, _, err := d.attemptResult(deliveryID, at, code, answer, errText)
	return err
}

// giveBack returns deliveries a flush will not attempt to pending (a
// flush_abort input of the log).
func (d *deliverer) giveBack(jobs []hookline.Job) error {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.DeliveryID
	}
	err := d.flushAbortInput(ids)
	if err != nil {
		// The log refuses everything now; the deliveries still go back
		// (a restart gives back whatever its log leaves in flight).
		tx := d.k.Begin()
		d.release(tx, ids)
		tx.End()
	}
	return err
}

// flushAbortInput takes deliveries out of flight (flush_abort).
func (d *deliverer) flushAbortInput(ids []string) error {
	tx, end, err := d.inputs.lockInput(&recordedInput{Op: recfile.OpFlushAbort, Deliveries: ids})
	if err != nil {
		return err
	}
	d.release(tx, ids)
	tx.End()
	return d.rec.durable(end)
}

// flushHint recognises the usual causes of a refusing receiver in the
// answers of the failed attempts.
func (d *deliverer) flushHint(fs []DeliveryFailure) string {
	for _, f := range fs {
		r := strings.ToLower(f.Response)
		switch {
		case strings.Contains(r, "timestamp") || strings.Contains(r, "stale"):
			return fmt.Sprintf("the receiver checks the signature timestamp against its own clock, but the simulator signs with its clock, now %s: "+
				"build the receiver with sim.Webhooks.Handler, or pass webhooks.WithClock(sim.Clock.Now) to webhooks.Handler",
				d.st.clock.Now().UTC().Format(time.RFC3339))
		case strings.Contains(r, "signature"):
			return "the receiver refused the signature: it must verify with the simulator's webhook secret (sim.Credentials().WebhookSecret, or the secret AddEndpoint returned)"
		}
	}
	return ""
}

// attemptDelivery POSTs one delivery and returns the receiver's status and
// the beginning of its answer; it runs outside any transaction.
func (d *deliverer) attemptDelivery(ctx context.Context, j hookline.Job) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.URL, bytes.NewReader(j.Body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "mwallet-simulator-webhooks")
	req.Header.Set("z-signature", webhookSignature(j.Secret, j.At, j.Body))
	req.Header.Set("z-event-id", j.EventID)
	req.Header.Set("z-event-type", j.EventType)
	tx := d.k.Begin()
	client := d.st.webhooks.Client()
	tx.End()
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	head, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswerKept))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	answer := answerText(head)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		if answer == "" {
			return resp.StatusCode, "", fmt.Errorf("receiver answered %d with an empty body", resp.StatusCode)
		}
		return resp.StatusCode, answer, fmt.Errorf("receiver answered %d: %s", resp.StatusCode, answer)
	}
	return resp.StatusCode, answer, nil
}

// answerText is the kept beginning of a receiver's answer: valid UTF-8
// (a multi-byte character cut by the limit is dropped), control
// characters but tab replaced by spaces, surrounding space trimmed.
func answerText(b []byte) string {
	if n := len(b); n > 0 && !utf8.Valid(b) {
		for i := n - 1; i >= 0 && i > n-utf8.UTFMax; i-- {
			if utf8.RuneStart(b[i]) {
				if !utf8.FullRune(b[i:]) {
					b = b[:i]
				}
				break
			}
		}
	}
	s := strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(string(b), "\uFFFD"))
	return strings.TrimSpace(s)
}
