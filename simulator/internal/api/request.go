package api

import (
	"net/http"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Endpoint declares one business Endpoint of the contract. The gateway applies
// every rule that the declaration implies (token, scope, merchant status, IP
// allowlist, signature on writes, Member context, idempotency) before handle
// runs, so a product file only writes the business logic.
type Endpoint struct {
	Method  string // http.MethodGet, http.MethodPost, ...
	Pattern string // ServeMux path pattern, for example "/v1/cards/{id}/activate"
	Scope   string // required scope; write implies read
	// routes lists the contract paths a catch-all pattern serves (for
	// example "/v1/cards/{id}/{sub}" serves close-check and transactions),
	// so the scope table names each; empty means the pattern itself.
	Routes []string
	// Member requires x-on-behalf-of and resolves it into Request.member.
	Member bool
	// idempotent requires x-idempotency-key and replays stored results.
	Idempotent bool
	// ownReplay: the handler answers replays of its own successes itself (the
	// contract makes a replay report the object's current state); the gateway
	// still handles in-progress, reused keys and replays of failures.
	OwnReplay bool
	// precheck, when set, runs before idempotent replay (a rule the contract
	// says is checked before replay, such as deposits being platform-only).
	Precheck func(c *Request) error
	// serves, when set, narrows a wildcard pattern: it reports whether the
	// (unescaped) path is one the Endpoint serves. Other paths get the
	// router's not_found, as a path no pattern matches.
	Serves func(path string) bool
	// handle runs in a transaction. It returns the status and the JSON body, or
	// an error: an *Error is answered as is; anything else is a 500 api_error.
	Handle func(Request *Request) (int, any, error)
}

// Request is the context of one business request inside the simulator.
type Request struct {
	Tx        *kernel.Tx // the transaction the handler runs in
	Req       *http.Request
	Now       time.Time
	RequestID string
	Member    *Member // set when the Endpoint is member-scoped
	Body      []byte  // the raw request body
	IdemKey   string
	StepUp    string // x-step-up header, trimmed
	// replay is set when the gateway asks an ownReplay Endpoint to answer a
	// replay of its own stored success; replayBody is that stored body.
	Replay     bool
	ReplayBody []byte
	// header lets a handler add response headers (for example Retry-After).
	Header http.Header
	// answerInstead, set by a successful handler, is answered in place of
	// its result, which is still stored under the idempotency key: the
	// request executed, but its answer was lost upstream (a card top-up
	// whose upstream call timed out after the hold answers 504
	// upstream_timeout, and the retry with the same key replays the order).
	AnswerInstead *Error
}

// decode decodes the JSON body into v through the one strict decoder of
// request bodies (DecodeStrict, wire.go): an empty body is {}; anything but
// one JSON object in lower snake case with the JSON types of v's fields
// gives invalid_request. Well-named fields v does not have are ignored.
func (c *Request) Decode(v any) error {
	if ae := DecodeStrict(c.Body, v, IgnoreUnknown); ae != nil {
		return ae
	}
	return nil
}

// noBody checks the body of an Endpoint that takes none: empty, or a JSON
// object on the wire format (whose fields are ignored).
func (c *Request) NoBody() error { return c.Decode(&struct{}{}) }

// pathID returns the {id} path value.
func (c *Request) PathID() string { return c.Req.PathValue("id") }
