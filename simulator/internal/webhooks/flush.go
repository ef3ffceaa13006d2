package webhooks

// Delivery of due webhook attempts: the flush's rounds, one attempt over
// HTTP, and what each attempt keeps of the receiver's answer.

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Delivery rules of the flush.
const (
	// maxFlushRounds bounds how often one flush looks again for deliveries
	// that became due while it ran (events emitted by receivers calling back).
	maxFlushRounds = 100
	// maxAnswerKept is how many bytes of a receiver's answer an attempt
	// keeps (the attempt's Response).
	maxAnswerKept = 512
)

// FlushInputs are the parts of a flush that take the state lock, each an
// input of the simulator's log, and what the attempts read of the state.
// The simulator answers them; Flush itself never begins a transaction.
type FlushInputs interface {
	// Due takes the due deliveries into flight (none when nothing is due).
	Due() ([]Job, error)
	// Attempted records the receiver's answer to one attempt and reports
	// whether it succeeded, with the failure when it did not.
	Attempted(deliveryID string, at time.Time, code int, answer, errText string) (bool, Failure, error)
	// GiveBack returns deliveries in flight that the flush will not attempt.
	GiveBack(jobs []Job) error
	// Client is the delivery pool's HTTP client.
	Client() *http.Client
	// Now is the simulator clock's time.
	Now() time.Time
}

// FlushResult counts the attempts one flush made and lists the failed ones;
// its fields are those of the simulator's public FlushResult.
type FlushResult struct {
	Attempted int
	Succeeded int
	Failed    int
	Failures  []Failure
	Hint      string
}

// Message is the error text of a flush in which an attempt failed: the
// counts, then the failed attempts, at most five of them, and the hint.
func (r FlushResult) Message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "simulator: %d of %d webhook delivery attempts failed", r.Failed, r.Attempted)
	for i, f := range r.Failures {
		if i == 5 {
			fmt.Fprintf(&b, "; and %d more (sim.Webhooks.Deliveries lists them)", len(r.Failures)-i)
			break
		}
		fmt.Fprintf(&b, "; %s %s to %s: %s", f.EventType, f.EventID, f.URL, f.Error)
	}
	if r.Hint != "" {
		b.WriteString(" (" + r.Hint + ")")
	}
	return b.String()
}

// Flush attempts every due delivery until none is due (at most
// maxFlushRounds rounds: deliveries that fall due during the flush are
// attempted too). A cancelled ctx stops it: the deliveries not attempted,
// and one whose attempt the cancellation cut short, are given back and the
// error is ctx's. Hint is set when an attempt failed and the flush went
// through; the caller tells such a flush from a clean one by Failed.
func Flush(ctx context.Context, in FlushInputs) (FlushResult, error) {
	var res FlushResult
	for round := 0; round < maxFlushRounds; round++ {
		jobs, err := in.Due()
		if err != nil {
			return res, err
		}
		if len(jobs) == 0 {
			break
		}
		for i, j := range jobs {
			if err := ctx.Err(); err != nil {
				_ = in.GiveBack(jobs[i:])
				return res, err
			}
			code, answer, aerr := Send(ctx, in.Client(), j)
			if aerr != nil && ctx.Err() != nil {
				// Cancelled by the caller, not refused by the receiver: the
				// attempt does not count.
				_ = in.GiveBack(jobs[i:])
				return res, ctx.Err()
			}
			errText := ""
			if aerr != nil {
				errText = aerr.Error()
			}
			ok, failure, err := in.Attempted(j.DeliveryID, j.At, code, answer, errText)
			if err != nil {
				_ = in.GiveBack(jobs[i:])
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
	if res.Failed > 0 {
		res.Hint = flushHint(res.Failures, in.Now())
	}
	return res, nil
}

// flushHint recognises the usual causes of a refusing receiver in the
// answers of the failed attempts; now is the simulator clock's time.
func flushHint(fs []Failure, now time.Time) string {
	for _, f := range fs {
		r := strings.ToLower(f.Response)
		switch {
		case strings.Contains(r, "timestamp") || strings.Contains(r, "stale"):
			return fmt.Sprintf("the receiver checks the signature timestamp against its own clock, but the simulator signs with its clock, now %s: "+
				"build the receiver with sim.Webhooks.Handler, or pass webhooks.WithClock(sim.Clock.Now) to webhooks.Handler",
				now.UTC().Format(time.RFC3339))
		case strings.Contains(r, "signature"):
			return "the receiver refused the signature: it must verify with the simulator's webhook secret (sim.Credentials().WebhookSecret, or the secret AddEndpoint returned)"
		}
	}
	return ""
}

// Send POSTs one delivery with client and returns the receiver's status
// and the beginning of its answer; it runs outside any transaction.
func Send(ctx context.Context, client *http.Client, j Job) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.URL, bytes.NewReader(j.Body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "mwallet-simulator-webhooks")
	req.Header.Set("z-signature", Signature(j.Secret, j.At, j.Body))
	req.Header.Set("z-event-id", j.EventID)
	req.Header.Set("z-event-type", j.EventType)
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

// Signature returns the z-signature value for body sent at t, signed with
// secret.
func Signature(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "t=" + ts + ",v1=" + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}
