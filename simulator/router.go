package simulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"
)

// endpoint declares one business endpoint of the contract. The gateway applies
// every rule that the declaration implies (token, scope, merchant status, IP
// allowlist, signature on writes, member context, idempotency) before handle
// runs, so a product file only writes the business logic.
type endpoint struct {
	method  string // http.MethodGet, http.MethodPost, ...
	pattern string // ServeMux path pattern, for example "/v1/cards/{id}/activate"
	scope   string // required scope ("" for none); write implies read
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
	// handle runs with s.mu held. It returns the status and the JSON body, or
	// an error: an *apiError is answered as is; anything else is a 500 api_error.
	handle func(rc *rc) (int, any, error)
}

// rc is the context of one business request inside the simulator.
type rc struct {
	s         *Simulator
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

// decode decodes the JSON body into v. An empty body decodes as {}. Malformed
// JSON, or a JSON value of the wrong type, gives invalid_request.
func (c *rc) decode(v any) error {
	b := bytes.TrimSpace(c.body)
	if len(b) == 0 {
		b = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return errInvalidRequest("malformed JSON body: " + err.Error())
	}
	if dec.More() {
		return errInvalidRequest("malformed JSON body: trailing data")
	}
	return nil
}

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

var typeByStatus = map[int]string{
	400: "invalid_request_error",
	401: "authentication_error",
	403: "permission_error",
	404: "not_found",
	409: "idempotency_error",
	429: "rate_limit_error",
	500: "api_error",
	502: "upstream_error",
	504: "upstream_timeout",
}

// statusByCode is the documented HTTP status of each error code.
var statusByCode = map[string]int{
	"invalid_credentials": 401, "invalid_token": 401, "invalid_signature": 401, "signature_required": 401,
	"timestamp_out_of_range": 401, "nonce_reused": 401, "environment_mismatch": 400, "insufficient_scope": 403,
	"ip_not_allowed": 403, "merchant_disabled": 403, "idempotency_key_required": 400, "idempotency_key_invalid": 400,
	"quote_lock_unsupported": 400, "idempotency_key_reused": 409, "idempotency_in_progress": 409,
	"member_not_found": 404, "member_context_required": 400, "member_suspended": 400, "quick_kyc_disabled": 400,
	"quick_kyc_limit": 400, "quick_kyc_exhausted": 400, "quick_kyc_unpaid": 400, "kyc_required": 400,
	"insufficient_balance": 400, "merchant_insufficient_funds": 400, "merchant_custody_shortfall": 400,
	"product_not_available": 400, "card_operation_not_supported": 400, "limit_exceeded": 400,
	"amount_out_of_range": 400, "request_rejected": 400, "step_up_required": 400, "order_not_cancellable": 400,
	"asset_not_allowed": 400, "invalid_request": 400, "kyc_upload_invalid": 400, "kyc_upload_too_large": 400,
	"invalid_fields": 400, "card_pin_invalid": 400, "card_pin_rejected": 400, "card_activate_failed": 400,
	"corridor_not_supported": 400, "resource_not_found": 404, "state_invalid": 400, "duplicate_resource": 409,
	"address_not_allowed": 400, "qr_code_invalid": 400, "not_found": 404, "rate_limited": 429,
	"api_error": 500, "upstream_error": 502, "upstream_timeout": 504, "service_unavailable": 400,
}

// newErr builds an error envelope for code with its documented status and type.
func newErr(code, message string) *apiError {
	st, ok := statusByCode[code]
	if !ok {
		st = 500
	}
	return &apiError{status: st, Type: typeByStatus[st], Code: code, Message: message}
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
		v := strings.TrimSpace(r.Header.Get(h))
		if v == "" {
			continue
		}
		if len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
			return strings.TrimSpace(v[7:])
		}
		return ""
	}
	return ""
}

func isWrite(method string) bool { return method != http.MethodGet && method != http.MethodHead }

// register adds an endpoint to the simulator's router.
func (s *Simulator) register(e endpoint) {
	e2 := e
	s.mux.HandleFunc(e.method+" "+e.pattern, func(w http.ResponseWriter, r *http.Request) {
		s.serveEndpoint(w, r, &e2)
	})
	s.endpoints = append(s.endpoints, e2)
}
