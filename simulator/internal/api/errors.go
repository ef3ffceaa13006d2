package api

import (
	"errors"

	mwallet "github.com/mwallet/mwallet-go"
)

// Error is an error answered with the service's JSON envelope.
type Error struct {
	Status  int
	Type    string         `json:"type"`
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Extra   map[string]any // code-specific extra fields (limit_type, fields, ...)
	Header  map[string]string
	// field names the body field whose JSON type was wrong (DecodeStrict),
	// for endpoints that answer such a field with invalid_fields.
	Field string
	// transient marks a refusal that is not kept under an idempotency key
	// although a handler gave it (a full store): see idempotency.Kept.
	Transient bool
	// signature explains a refused signature for the request journal.
	Signature any // internal/gateway's SignatureRow
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// with adds an extra envelope field and returns e.
func (e *Error) With(key string, value any) *Error {
	if e.Extra == nil {
		e.Extra = map[string]any{}
	}
	e.Extra[key] = value
	return e
}

// NewErr builds an error envelope for code with the status and type of the
// code table (codes.tsv, shared with the SDK); an unknown code answers as
// api_error does.
func NewErr(code, message string) *Error {
	c := mwallet.Code(code)
	if !c.Known() {
		c = mwallet.CodeAPIError
	}
	return &Error{Status: c.HTTPStatus(), Type: c.Type(), Code: code, Message: message}
}

func InvalidRequest(msg string) *Error { return NewErr("invalid_request", msg) }

// InvalidFields answers invalid_fields with one fields item per key.
func InvalidFields(msg string, keys ...string) *Error {
	fields := make([]map[string]string, 0, len(keys))
	for _, k := range keys {
		fields = append(fields, map[string]string{"key": k})
	}
	return NewErr("invalid_fields", msg).With("fields", fields)
}

func NotFound(what string) *Error { return NewErr("not_found", what+" not found") }

// Business500 is a business failure that the contract currently answers as
// 500 api_error (the spec lists these per Endpoint).
func Business500(msg string) *Error { return NewErr("api_error", msg) }

// envelope renders e as the JSON error body with request id and extras.
func (e *Error) Envelope(requestID string) map[string]any {
	m := map[string]any{"type": e.Type, "code": e.Code, "message": e.Message, "request_id": requestID}
	for k, v := range e.Extra {
		m[k] = v
	}
	return m
}

// AsError converts any handler error to an envelope; unknown errors are a
// 500 api_error whose message does not leak internals.
func AsError(err error) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	return NewErr("api_error", "internal error")
}

// FieldReason is one invalid_fields item with a reason.
type FieldReason struct{ Key, Reason string }

// InvalidFieldReasons answers invalid_fields with a key and a reason per
// field.
func InvalidFieldReasons(msg string, fields ...FieldReason) *Error {
	out := make([]map[string]string, 0, len(fields))
	for _, f := range fields {
		out = append(out, map[string]string{"key": f.Key, "reason": f.Reason})
	}
	return NewErr("invalid_fields", msg).With("fields", out)
}
