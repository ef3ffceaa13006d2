package simulator

import (
	"net/http"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// RequestsControl reads and empties the request journal (sim.Requests): the
// business-API requests the simulator received, without secrets. Control
// API: GET and DELETE /_sim/requests.
type RequestsControl struct{ s *Simulator }

// List returns the request journal, oldest first: the newest 10 000
// business-API requests (control API calls are not recorded).
func (r *RequestsControl) List() []RequestRecord {
	return r.s.wiring.gw.journalRequests()
}

// Reset empties the request journal.
func (r *RequestsControl) Reset() error {
	return call1(r.s, ctlRequestsReset, func() error { return inTx(r.s, r.s.wiring.gw.resetRequests) })
}

// resetRequestsCall is DELETE /_sim/requests, the HTTP entry of Reset.
func resetRequestsCall(s *Simulator, _ *http.Request, _ []byte) (string, []any, controlRun, error) {
	return "", nil, func(tx *kernel.Tx) (int, any, error) {
		if err := s.wiring.gw.resetRequests(tx); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, map[string]any{"data": []RequestRecord{}}, nil
	}, nil
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
	return call1(r.s, ctlRequestsStartInProgress, func() error {
		if err := checkWriteMethod(method); err != nil {
			return err
		}
		if err := r.s.wiring.ctl.checkBusinessEndpoint(method, target); err != nil {
			return err
		}
		tx := r.s.k.Begin()
		defer tx.End()
		return r.s.wiring.gw.startInProgress(tx, method, target, key, body, d)
	}, method, target, key, body, d)
}

// The names the Requests control methods record their calls under, each declared
// once and used by its method and by requestsControls.
const (
	ctlRequestsReset           = "Requests.Reset"
	ctlRequestsStartInProgress = "Requests.StartInProgress"
)

// requestsControls declares the requests control methods and the routes that call them
// (control_decl.go), the routes in their registration order.
var requestsControls = []controlDecl{
	{
		name: ctlRequestsStartInProgress, bind: func(s *Simulator) any { return s.Requests.StartInProgress },
		route: "POST /_sim/requests/in_progress",
		call: func(s *Simulator, _ *http.Request, body []byte) (int, any, error) {
			var in struct {
				Method         string   `json:"method"`
				Path           string   `json:"path"`
				IdempotencyKey string   `json:"idempotency_key"`
				Body           string   `json:"body"`
				Seconds        *float64 `json:"seconds"`
			}
			if err := decodeControl(body, &in); err != nil {
				return 0, nil, err
			}
			d := defaultInProgress
			if in.Seconds != nil {
				if *in.Seconds <= 0 || *in.Seconds > idempotencyWindow.Seconds() {
					return 0, nil, errInvalidRequest("seconds must be above 0 and at most 86400")
				}
				d = time.Duration(*in.Seconds * float64(time.Second))
			}
			if err := s.Requests.StartInProgress(in.Method, in.Path, in.IdempotencyKey, []byte(in.Body), d); err != nil {
				return 0, nil, err
			}
			return http.StatusCreated, map[string]any{
				"method": strings.ToUpper(in.Method), "path": in.Path, "idempotency_key": in.IdempotencyKey,
				"until": s.Clock.Now().Add(d).UTC().Format(time.RFC3339),
			}, nil
		},
	},
	{name: "Requests.List", noCall: true, bind: func(s *Simulator) any { return s.Requests.List }},
}
