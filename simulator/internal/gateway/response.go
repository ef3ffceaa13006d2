package gateway

import (
	"encoding/json"
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// Response is one answer of the gateway (and of the control API), built
// under the state lock and written after it is released.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	Code   string // error code, for the journal
	Replay bool
	// ReplayOf is the request id of the request whose stored answer a
	// replay repeats, for the journal.
	ReplayOf string
	// Transient marks a refusal not kept under an idempotency key although
	// the handler gave it (a full store): see idempotency.Kept.
	Transient bool
	// Instead, when set, is answered in place of this response once it has
	// been stored under the idempotency key (a handler's "executed, but the
	// answer is lost upstream": api.Request's AnswerInstead).
	Instead *api.Error
}

// ErrorResponse is the answer of ae: its envelope with requestID, its
// status, code and headers.
func ErrorResponse(ae *api.Error, requestID string) Response {
	b, _ := json.Marshal(ae.Envelope(requestID))
	resp := Response{Status: ae.Status, Body: b, Code: ae.Code, Transient: ae.Transient}
	if len(ae.Header) > 0 {
		resp.Header = http.Header{}
		for k, v := range ae.Header {
			resp.Header.Set(k, v)
		}
	}
	return resp
}

// JSONResponse is the answer v with status: a json.RawMessage or []byte as
// it is, anything else as JSON (an api_error 500 when it cannot be
// encoded).
func JSONResponse(status int, v any) Response {
	var b []byte
	switch x := v.(type) {
	case json.RawMessage:
		b = x
	case []byte:
		b = x
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			return Response{Status: 500, Body: []byte(`{"type":"api_error","code":"api_error","message":"encoding failed"}`), Code: "api_error"}
		}
	}
	return Response{Status: status, Body: b}
}

// Write sends resp with its request id.
func (resp Response) Write(w http.ResponseWriter, requestID string) {
	h := w.Header()
	for k, v := range resp.Header {
		h[k] = v
	}
	h.Set("X-Request-Id", requestID)
	h.Set("Content-Type", "application/json")
	if resp.Replay {
		h.Set("X-Idempotent-Replay", "true")
	}
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body)
}
