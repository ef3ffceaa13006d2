package simulator

import "time"

// RequestsControl reads and empties the request journal (sim.Requests): the
// business-API requests the simulator received, without secrets. Control
// API: GET and DELETE /_sim/requests.
type RequestsControl struct{ s *Simulator }

// List returns the request journal, oldest first: the newest 10 000
// business-API requests (control API calls are not recorded).
func (r *RequestsControl) List() []RequestRecord {
	return r.s.journalRequests()
}

// Reset empties the request journal.
func (r *RequestsControl) Reset() error {
	return call0(r.s, "Requests.Reset", r.s.resetRequests)
}

// StartInProgress plays a first request that is still running with
// idempotency key key on method and target with body: for d of simulator
// clock, a request with the same key, endpoint and body answers 409
// idempotency_in_progress (another body or endpoint answers
// idempotency_key_reused); then it ends without a stored result and the
// next request with the key executes. Control API: POST
// /_sim/requests/in_progress with {"method", "path", "idempotency_key",
// "body", "seconds"} (seconds defaults to 60).
func (r *RequestsControl) StartInProgress(method, target, key string, body []byte, d time.Duration) error {
	return call1(r.s, "Requests.StartInProgress", func() error {
		if err := checkWriteMethod(method); err != nil {
			return err
		}
		if err := r.s.wiring.ctl.checkBusinessEndpoint(method, target); err != nil {
			return err
		}
		tx := r.s.k.Begin()
		defer tx.End()
		return r.s.startInProgress(tx, method, target, key, body, d)
	}, method, target, key, body, d)
}
