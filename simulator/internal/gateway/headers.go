package gateway

import (
	"mime"
	"net/http"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// The request headers of the contract, and the edge rules the specification
// leaves open (decided here once, for every header of the class):
//
//   - Each header of the contract is a single field. Sent twice (two field
//     lines, whatever their values) the request is ambiguous: a gateway that
//     takes the first line and a proxy that takes the last would act on
//     different requests. It is refused with 400 invalid_request naming the
//     header, before the token is looked at, so nothing runs and nothing is
//     consumed (no nonce, no idempotency record, no token exchange).
//   - x-auth-token and authorization name the same thing: both may be sent
//     only when they carry the same token; different tokens are refused the
//     same way.
//   - A write (any method but GET and HEAD) whose body is not empty must
//     say Content-Type: application/json (parameters allowed, a charset only
//     utf-8); no Content-Type, or another media type, is refused with 400
//     invalid_request before the signature is checked. A write without a
//     body needs none. The token exchange takes no body and ignores one.
//   - A missing header keeps the contract's answer (invalid_token,
//     member_context_required, idempotency_key_required, invalid_signature,
//     invalid_credentials, step_up_required where step-up is needed).

// ContractHeaders are the request headers the contract names (canonical
// form), each of which a request may carry at most once.
var ContractHeaders = []string{
	"X-Auth-Token", "Authorization", "X-On-Behalf-Of", "X-Idempotency-Key", "X-Step-Up",
	"X-Timestamp", "X-Nonce", "X-Signature", "Content-Type", "X-Client-Id", "X-Api-Key",
}

// HeaderAmbiguity reports the first contract header sent more than once, or
// x-auth-token and authorization carrying different tokens.
func HeaderAmbiguity(h http.Header) *api.Error {
	for _, name := range ContractHeaders {
		if len(h.Values(name)) > 1 {
			return api.InvalidRequest(strings.ToLower(name) + " is sent more than once; send each header of the contract once")
		}
	}
	a, b := strings.TrimSpace(h.Get("X-Auth-Token")), strings.TrimSpace(h.Get("Authorization"))
	if a != "" && b != "" && BearerToken(a) != BearerToken(b) {
		return api.InvalidRequest("x-auth-token and authorization carry different tokens; send one of them")
	}
	return nil
}

// BearerToken returns the token of a "Bearer <token>" value, or "" when v
// has another form.
func BearerToken(v string) string {
	if len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
		return strings.TrimSpace(v[7:])
	}
	return ""
}

// JSONContentType reports whether a Content-Type value is application/json
// (parameters allowed; a charset, when given, is utf-8).
func JSONContentType(v string) bool {
	mt, params, err := mime.ParseMediaType(v)
	if err != nil || mt != "application/json" {
		return false
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return false
	}
	return true
}

// IsWrite reports whether method writes: any method but GET and HEAD.
func IsWrite(method string) bool { return method != http.MethodGet && method != http.MethodHead }

// ContentTypeRule refuses a write (any method but GET and HEAD) whose
// non-empty body is not declared as JSON.
func ContentTypeRule(r *http.Request, body []byte) *api.Error {
	if !IsWrite(r.Method) || len(body) == 0 {
		return nil
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return api.InvalidRequest("a write with a body needs Content-Type: application/json")
	}
	if !JSONContentType(ct) {
		return api.InvalidRequest("Content-Type " + QuoteHeader(ct) + " is not application/json; the body of a write is JSON")
	}
	return nil
}

// QuoteHeader quotes a header value for a message, cut to 64 bytes.
func QuoteHeader(v string) string {
	if len(v) > 64 {
		v = v[:64] + "..."
	}
	return `"` + strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '"' {
			return '?'
		}
		return r
	}, v) + `"`
}
