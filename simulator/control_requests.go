package simulator

import (
	"net/http"
	"strings"
	"time"
)

// RequestsControl reads and empties the request journal (sim.Requests): the
// business-API requests the simulator received, without secrets. Control
// API: GET and DELETE /_sim/requests.
type RequestsControl struct{ s *Simulator }

// List returns the request journal, oldest first: the newest 10 000
// business-API requests (control API calls are not recorded).
func (r *RequestsControl) List() []RequestRecord {
	v, _ := invoke[[]RequestRecord](r.s, opRequestsList, &journalQuery{})
	return v
}

// Reset empties the request journal.
func (r *RequestsControl) Reset() error {
	return r.s.wiring.ctl.perform(opRequestsReset, &noInput{})
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
	return r.s.wiring.ctl.perform(opRequestsStartInProgress, &inProgressIn{Method: method, Path: target, IdempotencyKey: key, Body: string(body), Seconds: &secs})
}

// journalQuery is the query of GET /_sim/requests: the newest limit
// requests (default all).
type journalQuery struct {
	Limit *int `query:"limit" json:"-" dom:"count"`
}

// inProgressIn is the body of POST /_sim/requests/in_progress.
type inProgressIn struct {
	Method         string   `json:"method" dom:"write_method,req"`
	Path           string   `json:"path" dom:"business_target,req"`
	IdempotencyKey string   `json:"idempotency_key" dom:"idempotency_key,req"`
	Body           string   `json:"body" dom:"body_text"`
	Seconds        *float64 `json:"seconds" dom:"seconds_in_progress"`
}

// duration is the time the request stays in progress (default 60 s).
func (in *inProgressIn) duration() time.Duration {
	if in.Seconds == nil {
		return defaultInProgress
	}
	return time.Duration(*in.Seconds * float64(time.Second))
}

// rules: a business endpoint serves the method on the path, or a request
// in progress there would never be met.
func (in *inProgressIn) rules(x *opRun) error {
	return x.s.wiring.ctl.checkBusinessEndpoint(in.Method, in.Path)
}

var (
	opRequestsList = def[journalQuery]{Route: "GET /_sim/requests", Name: "Requests.List", NoCall: true,
		Run: func(x *opRun, in *journalQuery) (any, error) {
			out := journalList(x.tx, x.s.st.gw.Journal)
			if in.Limit != nil && *in.Limit < len(out) {
				out = out[len(out)-*in.Limit:]
			}
			return out, nil
		},
		Reply: func(_ *opRun, _ *journalQuery, out any) (int, any) {
			return http.StatusOK, controlList(out.([]RequestRecord))
		},
	}.Op()
	opRequestsReset = def[noInput]{
		Route: "DELETE /_sim/requests", Name: "Requests.Reset",
		Args: func(*noInput) []any { return nil },
		Run: func(x *opRun, _ *noInput) (any, error) {
			if err := x.s.wiring.gw.resetRequests(x.tx); err != nil {
				return nil, err
			}
			return controlList([]RequestRecord{}), nil
		},
	}.Op()
	opRequestsStartInProgress = def[inProgressIn]{
		Route: "POST /_sim/requests/in_progress", Name: "Requests.StartInProgress", Status: http.StatusCreated,
		Args: func(in *inProgressIn) []any {
			return []any{in.Method, in.Path, in.IdempotencyKey, []byte(in.Body), in.duration()}
		},
		Run: func(x *opRun, in *inProgressIn) (any, error) {
			d := in.duration()
			if err := x.s.wiring.gw.startInProgress(x.tx, in.Method, in.Path, in.IdempotencyKey, []byte(in.Body), d); err != nil {
				return nil, err
			}
			return map[string]any{
				"method": strings.ToUpper(in.Method), "path": in.Path, "idempotency_key": in.IdempotencyKey,
				"until": x.s.st.clock.Now().Add(d).UTC().Format(time.RFC3339),
			}, nil
		},
	}.Op()
)

// requestsOps declares the journal's routes and methods.
var requestsOps = []*op{opRequestsList, opRequestsReset, opRequestsStartInProgress}
