package mwallet

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDecodeError(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	hdr := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i+1 < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	tests := []struct {
		name   string
		status int
		header http.Header
		body   string
		want   *Error
	}{
		{
			name: "limit_exceeded extras", status: 400, header: hdr("X-Request-Id", "req_h"),
			body: `{"type":"invalid_request_error","code":"limit_exceeded","message":"daily","request_id":"req_b","limit_type":"daily","limit_scope":"member"}`,
			want: &Error{HTTPStatus: 400, Type: "invalid_request_error", Code: "limit_exceeded", Message: "daily", RequestID: "req_b", LimitType: "daily", LimitScope: "member"},
		},
		{
			name: "step_up_required extras", status: 400,
			body: `{"type":"invalid_request_error","code":"step_up_required","message":"m","request_id":"r","challenge_id":"chl_1","hosted_url":"https://h/x","expires_at":1800000300}`,
			want: &Error{HTTPStatus: 400, Type: "invalid_request_error", Code: "step_up_required", Message: "m", RequestID: "r", ChallengeID: "chl_1", HostedURL: "https://h/x", ExpiresAt: time.Unix(1800000300, 0).UTC()},
		},
		{
			name: "invalid_fields", status: 400,
			body: `{"type":"invalid_request_error","code":"invalid_fields","message":"m","request_id":"r","fields":[{"key":"funding_source"},{"key":"name","reason":"too long"}]}`,
			want: &Error{HTTPStatus: 400, Type: "invalid_request_error", Code: "invalid_fields", Message: "m", RequestID: "r", Fields: []FieldError{{Key: "funding_source"}, {Key: "name", Reason: "too long"}}},
		},
		{
			name: "state_invalid with locked_until", status: 400,
			body: `{"type":"invalid_request_error","code":"state_invalid","message":"locked","request_id":"r","locked_until":"2026-01-02T00:00:00Z"}`,
			want: &Error{HTTPStatus: 400, Type: "invalid_request_error", Code: "state_invalid", Message: "locked", RequestID: "r", LockedUntil: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)},
		},
		{
			name: "locked_until and expires_at in the other encoding", status: 400,
			body: `{"code":"state_invalid","locked_until":1767312000,"expires_at":"1800000300"}`,
			want: &Error{HTTPStatus: 400, Type: "invalid_request_error", Code: "state_invalid", LockedUntil: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), ExpiresAt: time.Unix(1800000300, 0).UTC()},
		},
		{
			name: "locked_until that is not a time", status: 400,
			body: `{"code":"state_invalid","locked_until":"tomorrow"}`,
			want: &Error{HTTPStatus: 400, Type: "invalid_request_error", Code: "state_invalid"},
		},
		{
			name: "rate_limited body and header", status: 429, header: hdr("Retry-After", "7"),
			body: `{"type":"rate_limit_error","code":"rate_limited","message":"slow","request_id":"r","retry_after":3}`,
			want: &Error{HTTPStatus: 429, Type: "rate_limit_error", Code: "rate_limited", Message: "slow", RequestID: "r", RetryDelay: 3 * time.Second},
		},
		{
			name: "retry_after as a string", status: 429,
			body: `{"code":"rate_limited","retry_after":"2.5"}`,
			want: &Error{HTTPStatus: 429, Type: "rate_limit_error", Code: "rate_limited", RetryDelay: 3 * time.Second},
		},
		{
			name: "rate_limited without body uses Retry-After", status: 429, header: hdr("Retry-After", "12", "X-Request-Id", "req_x"),
			want: &Error{HTTPStatus: 429, Type: "rate_limit_error", Code: "rate_limited", RequestID: "req_x", RetryDelay: 12 * time.Second, Message: "HTTP 429 Too Many Requests with an empty body"},
		},
		{
			name: "Retry-After as an HTTP date", status: 429, header: hdr("Retry-After", now.Add(90*time.Second).UTC().Format(http.TimeFormat)),
			body: `{"code":"rate_limited"}`,
			want: &Error{HTTPStatus: 429, Type: "rate_limit_error", Code: "rate_limited", RetryDelay: 90 * time.Second},
		},
		// A wait beyond about 68 years is kept as the bound (math.MaxInt32
		// seconds): it still exceeds any WithMaxRetryAfter, never reads as
		// "no wait", and a far HTTP date no longer overflows to a negative.
		{
			name: "Retry-After as a date 673 years ahead", status: 429, header: hdr("Retry-After", "Wed, 01 Oct 2700 00:00:00 GMT"),
			body: `{"code":"rate_limited"}`,
			want: &Error{HTTPStatus: 429, Type: "rate_limit_error", Code: "rate_limited", RetryDelay: math.MaxInt32 * time.Second},
		},
		{
			name: "Retry-After in seconds beyond the bound", status: 429, header: hdr("Retry-After", "9999999999"),
			body: `{"code":"rate_limited"}`,
			want: &Error{HTTPStatus: 429, Type: "rate_limit_error", Code: "rate_limited", RetryDelay: math.MaxInt32 * time.Second},
		},
		{
			name: "Retry-After in seconds beyond int64", status: 429, header: hdr("Retry-After", "99999999999999999999999"),
			body: `{"code":"rate_limited"}`,
			want: &Error{HTTPStatus: 429, Type: "rate_limit_error", Code: "rate_limited", RetryDelay: math.MaxInt32 * time.Second},
		},
		{
			name: "retry_after in the body beyond the bound", status: 429, header: hdr("Retry-After", "5"),
			body: `{"code":"rate_limited","retry_after":9999999999}`,
			want: &Error{HTTPStatus: 429, Type: "rate_limit_error", Code: "rate_limited", RetryDelay: math.MaxInt32 * time.Second},
		},
		{
			name: "Retry-After in the past is no wait", status: 429, header: hdr("Retry-After", "Wed, 01 Oct 1980 00:00:00 GMT"),
			body: `{"code":"rate_limited"}`,
			want: &Error{HTTPStatus: 429, Type: "rate_limit_error", Code: "rate_limited"},
		},
		{
			name: "negative Retry-After is ignored", status: 429, header: hdr("Retry-After", "-99999999999999999999999"),
			body: `{"code":"rate_limited"}`,
			want: &Error{HTTPStatus: 429, Type: "rate_limit_error", Code: "rate_limited"},
		},
		{
			name: "unknown code kept verbatim", status: 400, header: hdr("X-Request-Id", "req_h", "X-Idempotent-Replay", "true"),
			body: `{"type":"invalid_request_error","code":"brand_new_code","message":"new"}`,
			want: &Error{HTTPStatus: 400, Type: "invalid_request_error", Code: "brand_new_code", Message: "new", RequestID: "req_h", Replayed: true},
		},
		{
			name: "proxy HTML 502", status: 502, header: hdr("Content-Type", "text/html; charset=utf-8", "X-Request-Id", "req_p"),
			body: "<html><body><h1>502 Bad Gateway</h1>" + strings.Repeat("x", 5000) + "</body></html>",
			want: &Error{HTTPStatus: 502, Type: "upstream_error", Code: "upstream_error", RequestID: "req_p", Message: "HTTP 502 Bad Gateway with a body that is not an error envelope (text/html, 5050 bytes)"},
		},
		{
			name: "empty 504", status: 504,
			want: &Error{HTTPStatus: 504, Type: "upstream_timeout", Code: "upstream_timeout", Message: "HTTP 504 Gateway Timeout with an empty body"},
		},
		{
			name: "truncated JSON 500", status: 500, header: hdr("Content-Type", "application/json"),
			body: `{"type":"api_error","code":"api_er`,
			want: &Error{HTTPStatus: 500, Type: "api_error", Code: "api_error", Message: "HTTP 500 Internal Server Error with a body that is not an error envelope (application/json, 34 bytes)"},
		},
		{
			name: "JSON without code on 503", status: 503,
			body: `{"message":"maintenance"}`,
			want: &Error{HTTPStatus: 503, Type: "api_error", Code: "api_error", Message: "HTTP 503 Service Unavailable with a body that is not an error envelope (unknown content type, 25 bytes)"},
		},
		{
			name: "wrong JSON types still decode the rest", status: 400,
			body: `{"type":7,"code":"invalid_fields","message":"m","fields":"oops","expires_at":"x"}`,
			want: &Error{HTTPStatus: 400, Type: "invalid_request_error", Code: "invalid_fields", Message: "m"},
		},
		{
			name: "JSON array", status: 400, body: `[1,2]`,
			want: &Error{HTTPStatus: 400, Type: "invalid_request_error", Code: "api_error", Message: "HTTP 400 Bad Request with a body that is not an error envelope (unknown content type, 5 bytes)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := tt.header
			if h == nil {
				h = http.Header{}
			}
			got := decodeError(tt.status, h, []byte(tt.body), now)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decodeError (-want +got):\n%s", diff)
			}
			if strings.Contains(got.Error(), "<html>") {
				t.Errorf("the message repeats the body: %s", got.Error())
			}
		})
	}
}

func TestUnknownCodeBehavesAsAPIError(t *testing.T) {
	t.Parallel()
	if got := Code("brand_new_code").Retry(); got != RetrySameKey {
		t.Fatalf("Retry = %v, want same-key like api_error", got)
	}
}

func FuzzDecodeError(f *testing.F) {
	f.Add(400, `{"code":"invalid_fields","fields":[{"key":"a"}]}`, "5")
	f.Add(502, `<html>`, "")
	f.Add(429, `{"code":"rate_limited","retry_after":1e400}`, "Wed, 21 Oct 2015 07:28:00 GMT")
	f.Add(500, `{"code":"x","retry_after":-5,"expires_at":"9999999999999999999999"}`, "-1")
	f.Fuzz(func(t *testing.T, status int, body, retryAfter string) {
		h := http.Header{}
		h.Set("Retry-After", retryAfter)
		e := decodeError(status, h, []byte(body), time.Unix(1_800_000_000, 0))
		if e == nil || e.Code == "" || e.RetryDelay < 0 {
			t.Fatalf("decodeError gave %+v", e)
		}
		_ = e.Error()
	})
}

func TestNonJSON502ThroughDo(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handler = func(w http.ResponseWriter, r *http.Request, body []byte, n int) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(502)
		_, _ = w.Write([]byte("<html><h1>Bad Gateway</h1></html>"))
	}
	c := f.client()
	var resp *Response
	_, err := c.Do(context.Background(), postReq(), nil, WithResponse(&resp))
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeUpstreamError || e.HTTPStatus != 502 || e.RequestID != "req_3" {
		t.Fatalf("err = %#v", err)
	}
	if e.IdempotencyKey == "" || resp.Attempts != DefaultMaxAttempts {
		t.Errorf("key %q, attempts %d", e.IdempotencyKey, resp.Attempts)
	}
}

// An *Error marshals as the envelope the service sends (the wait in
// seconds, instants as Unix seconds and RFC 3339) and reads back equal.
func TestErrorJSONIsTheEnvelope(t *testing.T) {
	t.Parallel()
	e := &Error{
		Type: "rate_limit_error", Code: CodeRateLimited, Message: "slow", RequestID: "r",
		ChallengeID: "chl_1", HostedURL: "https://h/x", ExpiresAt: time.Unix(1800000300, 0).UTC(),
		RetryDelay: 2500 * time.Millisecond, LockedUntil: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC),
		Fields: []FieldError{{Key: "k"}},
	}
	raw, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"type":"rate_limit_error","code":"rate_limited","message":"slow","request_id":"r","challenge_id":"chl_1","hosted_url":"https://h/x","expires_at":1800000300,"retry_after":3,"fields":[{"key":"k"}],"locked_until":"2026-01-02T00:00:00Z"}`
	if string(raw) != want {
		t.Errorf("marshalled\n%s\nwant\n%s", raw, want)
	}
	var back Error
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	e.RetryDelay = 3 * time.Second // whole seconds on the wire
	if diff := cmp.Diff(e, &back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if got := decodeError(429, http.Header{}, raw, time.Unix(0, 0)); !cmp.Equal(got, &Error{HTTPStatus: 429, Type: e.Type, Code: e.Code, Message: e.Message, RequestID: e.RequestID, ChallengeID: e.ChallengeID, HostedURL: e.HostedURL, ExpiresAt: e.ExpiresAt, RetryDelay: e.RetryDelay, LockedUntil: e.LockedUntil, Fields: e.Fields}) {
		t.Errorf("decodeError of the marshalled envelope = %+v", got)
	}
}
