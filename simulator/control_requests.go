package simulator

import (
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/control"
)

// RequestsControl reads and empties the request journal (sim.Requests): the
// business-API requests the simulator received, without secrets. Control
// API: GET and DELETE /_sim/requests.
type RequestsControl struct{ s *Simulator }

// List returns the request journal, oldest first: the newest 10 000
// business-API requests (control API calls are not recorded).
func (r *RequestsControl) List() []RequestRecord {
	v, _ := invoke[[]RequestRecord](r.s, requestOps.List, &control.JournalQuery{})
	return v
}

// Reset empties the request journal.
func (r *RequestsControl) Reset() error {
	return r.s.wiring.ctl.perform(requestOps.Reset, &noInput{})
}

// StartInProgress plays a first request that is still running with
// idempotency key key on method and target with body: for d of simulator
// clock (above 0, at most 24 hours), a request with the same key, endpoint
// and body answers 409 idempotency_in_progress (another body or endpoint
// answers idempotency_key_reused); then it ends without a stored result and
// the next request with the key executes. Control API: POST
// /_sim/requests/in_progress with {"method", "path", "idempotency_key",
// "body", "seconds"} (seconds defaults to 60).
func (r *RequestsControl) StartInProgress(method, target, key string, body []byte, d time.Duration) error {
	secs := d.Seconds()
	return r.s.wiring.ctl.perform(requestOps.StartInProgress, &control.InProgressIn{Method: method, Path: target, IdempotencyKey: key, Body: string(body), Seconds: &secs})
}

// defaultInProgress is how long a request started with StartInProgress runs
// when no duration is given.
const defaultInProgress = time.Minute

// requestOps are the journal's ops, declared in internal/control over
// the gateway: the journal's rows are the public RequestRecord.
var requestOps = control.NewRequestOps(control.RequestViews[*opRun, RequestRecord]{
	Journal: func(x *opRun) []RequestRecord { return journalList(x.Tx, x.Sim.st.gw.Journal) },
	Reset:   func(x *opRun) error { x.Sim.st.gw.Journal.Reset(x.Tx); return nil },
	Endpoint: func(x *opRun, method, target string) error {
		return control.CheckBusinessEndpoint(x.Sim.wiring.gw.router, method, target, nameError)
	},
	StartInProgress: func(x *opRun, method, target, key string, body []byte, d time.Duration) error {
		return x.Sim.wiring.gw.ex.StartInProgress(x.Tx, method, target, key, body, d)
	},
	Now:               func(x *opRun) time.Time { return x.Sim.st.clock.Now() },
	DefaultInProgress: defaultInProgress,
})

// requestsOps declares the journal's routes and methods.
var requestsOps = []*op{requestOps.List, requestOps.Reset, requestOps.StartInProgress}
