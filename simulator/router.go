package simulator

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// endpoint declares one business endpoint of the contract. The gateway applies
// every rule that the declaration implies (token, scope, merchant status, IP
// allowlist, signature on writes, member context, idempotency) before handle
// runs, so a product file only writes the business logic.
type endpoint struct {
	method  string // http.MethodGet, http.MethodPost, ...
	pattern string // ServeMux path pattern, for example "/v1/cards/{id}/activate"
	scope   string // required scope; write implies read
	// routes lists the contract paths a catch-all pattern serves (for
	// example "/v1/cards/{id}/{sub}" serves close-check and transactions),
	// so the scope table names each; empty means the pattern itself.
	routes []string
	// member requires x-on-behalf-of and resolves it into rc.member.
	member bool
	// idempotent requires x-idempotency-key and replays stored results.
	idempotent bool
	// ownReplay: the handler answers replays of its own successes itself (the
	// contract makes a replay report the object's current state); the gateway
	// still handles in-progress, reused keys and replays of failures.
	ownReplay bool
	// precheck, when set, runs before idempotent replay (a rule the contract
	// says is checked before replay, such as deposits being platform-only).
	precheck func(c *rc) error
	// serves, when set, narrows a wildcard pattern: it reports whether the
	// (unescaped) path is one the endpoint serves. Other paths get the
	// router's not_found, as a path no pattern matches.
	serves func(path string) bool
	// handle runs in a transaction. It returns the status and the JSON body, or
	// an error: an *apiError is answered as is; anything else is a 500 api_error.
	handle func(rc *rc) (int, any, error)
}

// rc is the context of one business request inside the simulator.
type rc struct {
	s         *Simulator
	tx        *kernel.Tx // the transaction the handler runs in
	r         *http.Request
	now       time.Time
	requestID string
	key       *apiKey
	member    *member // set when the endpoint is member-scoped
	body      []byte  // the raw request body
	idemKey   string
	stepUp    string // x-step-up header, trimmed
	// replay is set when the gateway asks an ownReplay endpoint to answer a
	// replay of its own stored success; replayBody is that stored body.
	replay     bool
	replayBody []byte
	// header lets a handler add response headers (for example Retry-After).
	header http.Header
	// answerInstead, set by a successful handler, is answered in place of
	// its result, which is still stored under the idempotency key: the
	// request executed, but its answer was lost upstream (a card top-up
	// whose upstream call timed out after the hold answers 504
	// upstream_timeout, and the retry with the same key replays the order).
	answerInstead *apiError
}

// decode decodes the JSON body into v through the one strict decoder of
// request bodies (decodeStrict, wire.go): an empty body is {}; anything but
// one JSON object in lower snake case with the JSON types of v's fields
// gives invalid_request. Well-named fields v does not have are ignored.
func (c *rc) decode(v any) error {
	if ae := decodeStrict(c.body, v, ignoreUnknown); ae != nil {
		return ae
	}
	return nil
}

// noBody checks the body of an endpoint that takes none: empty, or a JSON
// object on the wire format (whose fields are ignored).
func (c *rc) noBody() error { return c.decode(&struct{}{}) }

// pathID returns the {id} path value.
func (c *rc) pathID() string { return c.r.PathValue("id") }

// apiError is an error answered with the service's JSON envelope.
type apiError struct {
	status  int
	Type    string         `json:"type"`
	Code    string         `json:"code"`
	Message string         `json:"message"`
	extra   map[string]any // code-specific extra fields (limit_type, fields, ...)
	header  map[string]string
	// field names the body field whose JSON type was wrong (decodeStrict),
	// for endpoints that answer such a field with invalid_fields.
	field string
	// transient marks a refusal that is not kept under an idempotency key
	// although a handler gave it (a full store): see storedUnderKey.
	transient bool
	// signature explains a refused signature for the request journal.
	signature *SignatureCheck
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

// with adds an extra envelope field and returns e.
func (e *apiError) with(key string, value any) *apiError {
	if e.extra == nil {
		e.extra = map[string]any{}
	}
	e.extra[key] = value
	return e
}

// newErr builds an error envelope for code with the status and type of the
// code table (codes.tsv, shared with the SDK); an unknown code answers as
// api_error does.
func newErr(code, message string) *apiError {
	c := mwallet.Code(code)
	if !c.Known() {
		c = mwallet.CodeAPIError
	}
	return &apiError{status: c.HTTPStatus(), Type: c.Type(), Code: code, Message: message}
}

func errInvalidRequest(msg string) *apiError { return newErr("invalid_request", msg) }

// errInvalidFields answers invalid_fields with one fields item per key.
func errInvalidFields(msg string, keys ...string) *apiError {
	fields := make([]map[string]string, 0, len(keys))
	for _, k := range keys {
		fields = append(fields, map[string]string{"key": k})
	}
	return newErr("invalid_fields", msg).with("fields", fields)
}

func errNotFound(what string) *apiError { return newErr("not_found", what+" not found") }

// errBusiness500 is a business failure that the contract currently answers as
// 500 api_error (the spec lists these per endpoint).
func errBusiness500(msg string) *apiError { return newErr("api_error", msg) }

// writeJSON answers status with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = 500
		b = []byte(`{"type":"api_error","code":"api_error","message":"encoding failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// envelope renders e as the JSON error body with request id and extras.
func (e *apiError) envelope(requestID string) map[string]any {
	m := map[string]any{"type": e.Type, "code": e.Code, "message": e.Message, "request_id": requestID}
	for k, v := range e.extra {
		m[k] = v
	}
	return m
}

// asAPIError converts any handler error to an envelope; unknown errors are a
// 500 api_error whose message does not leak internals.
func asAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	return newErr("api_error", "internal error")
}

// bearer extracts the token from x-auth-token or authorization.
func bearer(r *http.Request) string {
	for _, h := range []string{"X-Auth-Token", "Authorization"} {
		if v := strings.TrimSpace(r.Header.Get(h)); v != "" {
			return bearerToken(v)
		}
	}
	return ""
}

func isWrite(method string) bool { return method != http.MethodGet && method != http.MethodHead }

// register adds an endpoint to the simulator's router.
func (s *Simulator) register(e endpoint) {
	e2 := e
	s.mux.HandleFunc(e.method+" "+e.pattern, func(w http.ResponseWriter, r *http.Request) {
		if e2.serves != nil && !e2.serves(r.URL.Path) {
			s.serveNotFound(w, r)
			return
		}
		s.serveEndpoint(w, r, &e2)
	})
	s.endpoints = append(s.endpoints, e2)
}
