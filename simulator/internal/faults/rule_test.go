package faults

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEnvelope: an error fault answers its status and code, the one given
// the other's usual value, with the type of the status's default code; a
// rate_limited one asks for a retry after a second.
func TestEnvelope(t *testing.T) {
	t.Parallel()
	type answer struct {
		Status     int
		Type, Code string
		RetryAfter string
	}
	for _, tc := range []struct {
		row  Row
		want answer
	}{
		{Row{}, answer{500, "api_error", "api_error", ""}},
		{Row{Status: 504}, answer{504, "upstream_timeout", "upstream_timeout", ""}},
		{Row{Status: 418}, answer{418, "api_error", "api_error", ""}},
		{Row{Code: "not_found"}, answer{404, "not_found", "not_found", ""}},
		{Row{Code: "no_such_code"}, answer{500, "api_error", "no_such_code", ""}},
		{Row{Status: 429}, answer{429, "rate_limit_error", "rate_limited", "1"}},
		{Row{Status: 400, Code: "upstream_timeout"}, answer{400, "invalid_request_error", "upstream_timeout", ""}},
	} {
		ae := tc.row.Envelope()
		got := answer{ae.Status, ae.Type, ae.Code, ae.Header["Retry-After"]}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tc.row, diff)
		}
		if ae.Message != "injected fault" {
			t.Errorf("%+v: message %q", tc.row, ae.Message)
		}
	}
}
