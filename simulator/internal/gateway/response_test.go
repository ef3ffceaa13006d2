package gateway

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

func TestResponses(t *testing.T) {
	t.Parallel()
	limited := api.NewErr("rate_limited", "slow down").With("retry_after", 3)
	limited.Header = map[string]string{"retry-after": "3"}
	tests := []struct {
		name       string
		resp       Response
		wantStatus int
		wantHeader http.Header
		wantBody   string
		wantCode   string
	}{
		{
			name: "json", resp: JSONResponse(201, map[string]int{"a": 1}),
			wantStatus: 201, wantBody: `{"a":1}`,
			wantHeader: http.Header{"X-Request-Id": {"req_1"}, "Content-Type": {"application/json"}},
		},
		{
			name: "raw bytes kept", resp: JSONResponse(200, json.RawMessage(`{"b": 2}`)),
			wantStatus: 200, wantBody: `{"b": 2}`,
			wantHeader: http.Header{"X-Request-Id": {"req_1"}, "Content-Type": {"application/json"}},
		},
		{
			name: "unencodable", resp: JSONResponse(200, func() {}),
			wantStatus: 500, wantCode: "api_error", wantBody: `{"type":"api_error","code":"api_error","message":"encoding failed"}`,
			wantHeader: http.Header{"X-Request-Id": {"req_1"}, "Content-Type": {"application/json"}},
		},
		{
			name: "error with header", resp: ErrorResponse(limited, "req_1"),
			wantStatus: 429, wantCode: "rate_limited",
			wantBody:   mustJSON(t, limited.Envelope("req_1")),
			wantHeader: http.Header{"X-Request-Id": {"req_1"}, "Content-Type": {"application/json"}, "Retry-After": {"3"}},
		},
		{
			name: "replay", resp: Response{Status: 200, Body: []byte(`{}`), Replay: true, Header: http.Header{"Location": {"/v1/x"}}},
			wantStatus: 200, wantBody: `{}`,
			wantHeader: http.Header{"X-Request-Id": {"req_1"}, "Content-Type": {"application/json"}, "X-Idempotent-Replay": {"true"}, "Location": {"/v1/x"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.resp.Code != tt.wantCode {
				t.Errorf("code %q, want %q", tt.resp.Code, tt.wantCode)
			}
			w := httptest.NewRecorder()
			tt.resp.Write(w, "req_1")
			if w.Code != tt.wantStatus {
				t.Errorf("status %d, want %d", w.Code, tt.wantStatus)
			}
			if diff := cmp.Diff(tt.wantHeader, w.Header()); diff != "" {
				t.Errorf("header (-want +got):\n%s", diff)
			}
			if got := w.Body.String(); got != tt.wantBody {
				t.Errorf("body %s, want %s", got, tt.wantBody)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
