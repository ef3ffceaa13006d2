package faults

import (
	"github.com/mwallet/mwallet-go/simulator/internal/api"

	mwallet "github.com/mwallet/mwallet-go"
)

// The fault kinds, as simulator.FaultKind spells them.
const (
	// KindError answers the fault's envelope without executing anything.
	KindError = "error"
	// KindErrorAfter executes the request, then answers the envelope.
	KindErrorAfter = "error_after"
	// KindDropBefore ends the request without executing it or answering.
	KindDropBefore = "drop_before"
	// KindDropAfter executes the request, then ends it without an answer.
	KindDropAfter = "drop_after"
	// KindDelay makes the request wait before its handler runs.
	KindDelay = "delay"
)

// Chans are the Go-only channels of a delay fault injected from Go
// (simulator.Fault's Hold and Held): not state, kept by the exchange by the
// fault's Seq (internal/exchange's Pipeline).
type Chans struct {
	// Hold holds the request until it is closed.
	Hold <-chan struct{}
	// Held receives the request id when the request starts waiting.
	Held chan<- string
}

// Rule is an armed fault as a request takes it: its row and the channels
// of a delay fault.
type Rule struct {
	Row
	Chans
}

// DefaultCodes is the code of an error fault given only a status.
var DefaultCodes = map[int]string{
	400: "invalid_request", 401: "invalid_token", 403: "insufficient_scope", 404: "not_found",
	409: "idempotency_in_progress", 429: "rate_limited", 500: "api_error", 502: "upstream_error", 504: "upstream_timeout",
}

// Envelope is the envelope of an error or error_after fault: its Status and
// Code, the one given the other's usual value (500 api_error when neither
// is set), with the type of the status's default code, and, for
// rate_limited, a retry after one second.
func (r Row) Envelope() *api.Error {
	status, code := r.Status, r.Code
	switch {
	case status == 0 && code == "":
		status, code = 500, "api_error"
	case status == 0:
		status = mwallet.Code(code).HTTPStatus()
		if status == 0 {
			status = 500
		}
	case code == "":
		code = DefaultCodes[status]
		if code == "" {
			code = "api_error"
		}
	}
	// The type follows the status, as the specification's table does: it is
	// the type of the status's default code.
	typ := mwallet.Code(DefaultCodes[status]).Type()
	if typ == "" {
		typ = "api_error"
	}
	ae := &api.Error{Status: status, Type: typ, Code: code, Message: "injected fault"}
	if code == "rate_limited" {
		ae.With("retry_after", 1)
		ae.Header = map[string]string{"Retry-After": "1"}
	}
	return ae
}
