package mwallet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// errBodyTooLarge reports a response body over MaxResponseBytes.
var errBodyTooLarge = fmt.Errorf("mwallet: response body larger than %d bytes", MaxResponseBytes)

// readBody reads at most limit bytes of r; a longer body is an error.
// sizeHint (Content-Length, -1 when unknown) presizes the buffer; a body
// declared longer than limit is refused without being read. The buffer
// doubles as the body arrives, jumps to limit+1 bytes once half the limit
// is passed and never grows further, so a hostile body costs at most about
// twice the limit in allocations.
func readBody(r io.Reader, limit, sizeHint int64) ([]byte, error) {
	if sizeHint > limit {
		return nil, errBodyTooLarge
	}
	size := int64(4096)
	if sizeHint >= 0 {
		size = sizeHint + 1 // one more byte to see the end
	}
	buf := make([]byte, 0, min(size, limit+1))
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return nil, errBodyTooLarge
			}
			grow := 2*int64(cap(buf)) + bytes.MinRead
			if grow > limit/2 {
				grow = limit + 1 // the series so far stays under the limit
			}
			next := make([]byte, len(buf), min(grow, limit+1))
			copy(next, buf)
			buf = next
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			if int64(len(buf)) > limit {
				return nil, errBodyTooLarge
			}
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// codeForStatus is the code given to an error response that carries no
// usable envelope (a proxy's HTML page, an empty or truncated body).
func codeForStatus(status int) Code {
	switch status {
	case http.StatusBadGateway:
		return CodeUpstreamError
	case http.StatusGatewayTimeout:
		return CodeUpstreamTimeout
	case http.StatusTooManyRequests:
		return CodeRateLimited
	}
	return CodeAPIError
}

// wireError is the error envelope as sent. Extras whose JSON type may vary
// are read leniently from raw values.
type wireError struct {
	Type        string          `json:"type"`
	Code        string          `json:"code"`
	Message     string          `json:"message"`
	RequestID   string          `json:"request_id"`
	LimitType   string          `json:"limit_type"`
	LimitScope  string          `json:"limit_scope"`
	ChallengeID string          `json:"challenge_id"`
	HostedURL   string          `json:"hosted_url"`
	ExpiresAt   json.RawMessage `json:"expires_at"`
	RetryAfter  json.RawMessage `json:"retry_after"`
	Fields      []FieldError    `json:"fields"`
	LockedUntil json.RawMessage `json:"locked_until"`
}

// fromWireExtras sets the code-specific extras of an envelope: the wait in
// seconds and the instants as Unix seconds or RFC 3339, read leniently.
func (e *Error) fromWireExtras(w *wireError) {
	if n, ok := lenientInt(w.ExpiresAt); ok && n > 0 {
		e.ExpiresAt = time.Unix(min(n, maxUnixSeconds), 0).UTC()
	}
	if ra, ok := lenientInt(w.RetryAfter); ok && ra > 0 {
		e.RetryDelay = time.Duration(min(ra, maxRetryAfterSeconds)) * time.Second
	}
	if len(w.Fields) > 100 {
		w.Fields = w.Fields[:100]
	}
	e.Fields = w.Fields
	e.LockedUntil = lenientTime(w.LockedUntil)
}

// maxUnixSeconds bounds an instant read from a server (the year 9999), so a
// hostile value cannot make a time that does not format.
const maxUnixSeconds = 253402300799

// lenientTime reads an RFC 3339 string, or Unix seconds as a number or a
// string holding one; anything else is the zero time.
func lenientTime(raw json.RawMessage) time.Time {
	s := clip(lenientString(raw), 64)
	if s == "" {
		return time.Time{}
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t
	}
	if n, ok := lenientInt(raw); ok && n > 0 {
		return time.Unix(min(n, maxUnixSeconds), 0).UTC()
	}
	return time.Time{}
}

// maxMessage bounds the message kept from the server.
const maxMessage = 1024

// decodeError turns a non-2xx response into an *Error. It never fails:
// a body that is not an error envelope gives a code derived from the status
// and a short message that does not repeat the body.
func decodeError(status int, h http.Header, body []byte, now time.Time) *Error {
	e := &Error{HTTPStatus: status}
	var w wireError
	err := json.Unmarshal(body, &w)
	var typeErr *json.UnmarshalTypeError
	envelope := (err == nil || errors.As(err, &typeErr)) && strings.TrimSpace(w.Code) != ""
	if envelope {
		e.Type = clip(w.Type, 64)
		e.Code = Code(clip(strings.TrimSpace(w.Code), 128))
		e.Message = clip(w.Message, maxMessage)
		e.RequestID = clip(w.RequestID, 256)
		e.LimitType = clip(w.LimitType, 64)
		e.LimitScope = clip(w.LimitScope, 64)
		e.ChallengeID = clip(w.ChallengeID, 256)
		e.HostedURL = clip(w.HostedURL, 2048)
		e.fromWireExtras(&w)
	} else {
		e.Code = codeForStatus(status)
		e.Message = nonEnvelopeMessage(status, h, body)
	}
	if e.Type == "" {
		if t, ok := typeByStatus[status]; ok {
			e.Type = t
		} else {
			e.Type = "api_error"
		}
	}
	if e.RequestID == "" {
		e.RequestID = clip(h.Get("X-Request-Id"), 256)
	}
	if e.RetryDelay == 0 {
		if d, ok := parseRetryAfter(h.Get("Retry-After"), now); ok {
			e.RetryDelay = (d + time.Second - 1) / time.Second * time.Second
		}
	}
	e.Replayed = isReplay(h)
	return e
}

func isReplay(h http.Header) bool {
	return strings.EqualFold(strings.TrimSpace(h.Get("X-Idempotent-Replay")), "true")
}

// nonEnvelopeMessage describes a body that is not an error envelope without
// quoting it (it may be a large HTML page or echo anything).
func nonEnvelopeMessage(status int, h http.Header, body []byte) string {
	st := http.StatusText(status)
	if st == "" {
		st = "unexpected status"
	}
	what := "an empty body"
	if len(bytes.TrimSpace(body)) > 0 {
		ct := "unknown content type"
		if mt, _, err := mime.ParseMediaType(h.Get("Content-Type")); err == nil {
			ct = mt
		}
		what = fmt.Sprintf("a body that is not an error envelope (%s, %d bytes)", clip(ct, 64), len(body))
	}
	return fmt.Sprintf("HTTP %d %s with %s", status, st, what)
}

// lenientInt reads a JSON number or a string holding one; fractions round up
// (a wait of 1.5 s is 2 s).
func lenientInt(raw json.RawMessage) (int64, bool) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return 0, false
	}
	if s[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, false
		}
		s = strings.TrimSpace(s)
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f > math.MaxInt64/2 || f < math.MinInt64/2 {
		return 0, false
	}
	return int64(math.Ceil(f)), true
}

// lenientString reads a JSON string, or the text of a number.
func lenientString(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return ""
	}
	if s[0] == '"' {
		var v string
		if json.Unmarshal(raw, &v) == nil {
			return v
		}
		return ""
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return s
	}
	return ""
}

// maxRetryAfterSeconds bounds a server's wait (about 68 years): a longer
// one, in the body, in seconds or as a far HTTP date, is kept as this much,
// so it still exceeds any WithMaxRetryAfter and is never read as "no wait"
// (nor overflows time.Duration).
const maxRetryAfterSeconds = math.MaxInt32

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case err == nil && n < 0:
		return 0, false
	case err == nil:
		return time.Duration(min(n, maxRetryAfterSeconds)) * time.Second, true
	case errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(v, "-"):
		return maxRetryAfterSeconds * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now) // saturates at the largest Duration
		return min(max(d, 0), maxRetryAfterSeconds*time.Second), true
	}
	return 0, false
}

// clip bounds a server-supplied string so a hostile response cannot blow up
// error messages or logs.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
