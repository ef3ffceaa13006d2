package webhooks

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Job is what one attempt needs, copied out under the lock: the flush
// sends it outside any transaction.
type Job struct {
	DeliveryID string
	URL        string
	Secret     string
	Body       []byte
	EventID    string
	EventType  string
	At         time.Time
}

// Failure is one failed delivery attempt. Its fields are those of the
// simulator's public DeliveryFailure, in the same order.
type Failure struct {
	DeliveryID    string
	EventID       string
	EventType     string
	EndpointID    string
	URL           string
	At            time.Time
	StatusCode    int
	Response      string
	Error         string
	Status        string
	NextAttemptAt *time.Time
}

// AnyDue reports whether Due has anything to do.
func (l *Line) AnyDue(tx *kernel.Tx) bool {
	now := tx.Now()
	for _, d := range l.st.created.All(tx) {
		if d.Status == StatusPending && !d.InFlight && !d.NextAttemptAt.After(now) {
			return true
		}
	}
	return false
}

// Due marks the due pending rows in flight and returns their jobs, oldest
// due first. A due row whose endpoint went away becomes no_subscriber.
func (l *Line) Due(tx *kernel.Tx) []Job {
	st := &l.st
	now := tx.Now()
	var due []delivery
	for _, d := range st.created.All(tx) {
		if d.Status == StatusPending && !d.InFlight && !d.NextAttemptAt.After(now) {
			due = append(due, d)
		}
	}
	sort.SliceStable(due, func(i, j int) bool { return due[i].NextAttemptAt.Before(due[j].NextAttemptAt) })
	jobs := make([]Job, 0, len(due))
	for _, d := range due {
		e, ok := st.endpoints.Get(tx, d.EndpointID)
		if !ok || e.Disabled {
			d.Status, d.NextAttemptAt = StatusNoSubscriber, time.Time{}
			st.deliveries.Put(tx, d.ID, d)
			continue
		}
		secret := e.Secret
		if secret == "" {
			secret = tx.WebhookSecret()
		}
		d.InFlight = true
		st.deliveries.Put(tx, d.ID, d)
		body, _ := st.bodies.Get(tx, d.EventID)
		jobs = append(jobs, Job{
			DeliveryID: d.ID, URL: e.URL, Secret: secret, Body: []byte(body),
			EventID: d.EventID, EventType: d.EventType, At: now,
		})
	}
	return jobs
}

// InFlight lists the rows whose attempt is in flight, in creation order.
func (l *Line) InFlight(tx *kernel.Tx) []string {
	var ids []string
	for _, d := range l.st.created.All(tx) {
		if d.InFlight {
			ids = append(ids, d.ID)
		}
	}
	return ids
}

// Release takes the rows of ids out of flight: a flush gives them back
// unattempted.
func (l *Line) Release(tx *kernel.Tx, ids []string) {
	for _, id := range ids {
		l.st.deliveries.Update(tx, id, func(d *delivery) { d.InFlight = false })
	}
}

// Attempted records the receiver's answer to one attempt of the row
// deliveryID made at at, and reports whether it succeeded, with the failure
// when it did not.
func (l *Line) Attempted(tx *kernel.Tx, deliveryID string, at time.Time, code int, answer, errText string) (bool, Failure, error) {
	st := &l.st
	d, ok := st.deliveries.Get(tx, deliveryID)
	if !ok {
		return false, Failure{}, fmt.Errorf("simulator: webhook attempt of unknown delivery %s", deliveryID)
	}
	var aerr error
	if errText != "" {
		aerr = errors.New(errText)
	}
	url := ""
	if e, ok := st.endpoints.Get(tx, d.EndpointID); ok {
		url = e.URL
	}
	sent := l.record(tx, &d, at, code, answer, aerr)
	st.deliveries.Put(tx, d.ID, d)
	if sent {
		return true, Failure{}, nil
	}
	return false, d.failure(url), nil
}

// failure describes the attempt just recorded on d, sent to url.
func (d delivery) failure(url string) Failure {
	a, _ := d.Attempts.Last()
	f := Failure{
		DeliveryID: d.ID, EventID: d.EventID, EventType: d.EventType, EndpointID: d.EndpointID, URL: url,
		At: a.At, StatusCode: a.StatusCode, Response: a.Response, Error: a.Error, Status: d.Status,
	}
	if !d.NextAttemptAt.IsZero() {
		t := d.NextAttemptAt
		f.NextAttemptAt = &t
	}
	return f
}

// record stores the outcome of one attempt and moves the row: sent on 2xx;
// otherwise pending with the next backoff while attempts remain, dead after
// the sixth failure of a run, failed when a redelivery's single attempt
// fails, and no_subscriber when the endpoint went away meanwhile.
func (l *Line) record(tx *kernel.Tx, d *delivery, at time.Time, code int, answer string, aerr error) bool {
	d.InFlight = false
	a := Attempt{At: at, StatusCode: code, Response: answer}
	if aerr != nil {
		a.Error = aerr.Error()
	}
	d.Attempts = d.Attempts.Append(a)
	d.RunLeft--
	d.NextAttemptAt = time.Time{}
	if aerr == nil {
		d.Status = StatusSent
		return true
	}
	if e, ok := l.st.endpoints.Get(tx, d.EndpointID); !ok || e.Disabled {
		d.Status = StatusNoSubscriber
		return false
	}
	switch {
	case d.Redelivery:
		d.Status = StatusFailed
	case d.RunLeft > 0:
		n := MaxAttempts - d.RunLeft // failures so far in this run
		d.Status = StatusPending
		d.NextAttemptAt = at.Add(backoff[n-1])
	default:
		d.Status = StatusDead
	}
	return false
}
