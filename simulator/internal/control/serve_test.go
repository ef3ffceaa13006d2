package control

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// httpHost is the fakeHost as an HTTPHost: it records the input log's
// calls and refuses what the test says.
type httpHost struct {
	*fakeHost
	guard    *api.Error
	replayed bool
	logReq   *api.Error
}

func (h *httpHost) NewRun(*http.Request) *runX { return &runX{h: h.fakeHost} }
func (h *httpHost) RequestID() string          { return "req_1" }
func (h *httpHost) Guard(*http.Request, *Op[*runX], bool) *api.Error {
	return h.guard
}
func (h *httpHost) Replayed(*http.Request) bool { return h.replayed }
func (h *httpHost) LogRoute(_ *runX, name, route string, _ []any, run func()) error {
	h.calls = append(h.calls, "route "+name+" "+route)
	run()
	return nil
}
func (h *httpHost) LogRequest(x *runX, run func()) *api.Error {
	if h.logReq != nil {
		return h.logReq
	}
	h.calls = append(h.calls, "request")
	x.tx = h.k.Begin()
	run()
	x.tx.End()
	return nil
}
func (h *httpHost) Error(err error) *api.Error { return api.InvalidRequest(err.Error()) }

// TestServeAnswersARoute: the handler applies the guard, decodes the input,
// logs a write as a call of its Go method or as the request, and writes
// the answer or the refusal in the envelope.
func TestServeAnswersARoute(t *testing.T) {
	raw := (Def[*runX, NoInput]{Route: "GET /_sim/raw", Unlocked: true, Run: func(*runX, *NoInput) (any, error) {
		return Raw(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("raw")) }), nil
	}}).Op()
	tests := []struct {
		name     string
		op       *Op[*runX]
		method   string
		body     string
		guard    *api.Error
		replayed bool
		logReq   *api.Error
		status   int
		answer   string
		calls    []string
	}{
		{name: "call of the Go method", method: "POST", body: `{"n":2}`, status: 201, answer: `2`,
			calls: []string{"route Count.Add POST /_sim/count", "begin"}},
		{name: "replayed: the request", method: "POST", body: `{"n":2}`, replayed: true, status: 201, answer: `2`,
			calls: []string{"request"}},
		{name: "undecodable: the request", method: "POST", body: `{"m":2}`, status: 400, answer: `invalid_request`,
			calls: []string{"request"}},
		{name: "refused by the guard", method: "POST", body: `{"n":2}`, guard: api.NewErr("invalid_token", "no"), status: 401,
			answer: `invalid_token`},
		{name: "request not logged", method: "POST", body: `{"m":2}`, logReq: api.NewErr("api_error", "disk"), status: 500,
			answer: `api_error`},
		{name: "body too large", method: "POST", body: `{"n":2}` + strings.Repeat(" ", 64), status: 400,
			answer: `request body unreadable or larger than 1 MiB`, calls: []string{"request"}},
		{name: "raw answer", op: raw, method: "GET", status: 200, answer: `raw`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &httpHost{fakeHost: newFakeHost(), guard: tt.guard, replayed: tt.replayed, logReq: tt.logReq}
			o := tt.op
			if o == nil {
				o = countOp(Def[*runX, countIn]{Route: "POST /_sim/count", Name: "Count.Add", Status: 201,
					Args: func(in *countIn) []any { return []any{in.N} }})
			}
			s := &HTTP[*runX]{Host: h, ActionCall: "Action", MaxBody: 32}
			w := httptest.NewRecorder()
			s.Serve(o)(w, httptest.NewRequest(tt.method, "/_sim/x", strings.NewReader(tt.body)))
			if w.Code != tt.status || !strings.Contains(w.Body.String(), tt.answer) {
				t.Errorf("answer = %d %s, want %d with %q", w.Code, w.Body, tt.status, tt.answer)
			}
			if got := w.Header().Get("X-Request-Id"); got != "req_1" {
				t.Errorf("X-Request-Id = %q", got)
			}
			if diff := cmp.Diff(tt.calls, h.calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}
