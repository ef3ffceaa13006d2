package exchange

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/faults"
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// fakeHost answers Host with a fixed clock, one API key (client_1, whose
// token is tok_1 unless tokens says otherwise), an active sandbox merchant
// and one member (mem_1, external m1), and records what it is asked.
type fakeHost struct {
	now     time.Time
	logErr  error
	logged  int64
	durable []int64
	marked  []string
	due     int
	keys    map[string]gateway.Key
	tokens  map[string]gateway.Token
	env     string
	status  string
	expired []string
	// captured counts the requests whose body was captured, controlNF
	// the messages of the control API's not_found.
	captured  int
	controlNF []string
}

// newFakeHost is a fakeHost at now with its key, token and merchant.
func newFakeHost(now time.Time) *fakeHost {
	return &fakeHost{
		now:    now,
		keys:   map[string]gateway.Key{"client_1": {ClientID: "client_1", APIKey: "secret", SigningKey: "sk", Env: "sandbox", Scopes: kernel.ListOf("cards:read")}},
		tokens: map[string]gateway.Token{"tok_1": {Value: "tok_1", ClientID: "client_1", Env: "sandbox", ExpiresAt: now.Add(time.Hour)}},
		env:    "sandbox", status: "active",
	}
}

func (h *fakeHost) LogRequest(tx *kernel.Tx, r *http.Request) (int64, int64, error) {
	if h.logErr != nil {
		return 0, 0, h.logErr
	}
	h.logged++
	return h.logged, h.logged * 10, nil
}
func (h *fakeHost) Resume(*kernel.Tx, int64) error { return nil }
func (h *fakeHost) Park()                          {}
func (h *fakeHost) Unpark()                        {}
func (h *fakeHost) Fail(error)                     {}
func (h *fakeHost) Durable(end int64) error        { h.durable = append(h.durable, end); return nil }
func (h *fakeHost) NotPersisted(err error) *api.Error {
	return api.NewErr("service_unavailable", err.Error())
}
func (h *fakeHost) NotDurable(err error) *api.Error {
	return api.NewErr("service_unavailable", err.Error())
}
func (h *fakeHost) ControlID() string                   { return "ctl_1" }
func (h *fakeHost) Now() time.Time                      { return h.now }
func (h *fakeHost) RunDue(*kernel.Tx)                   { h.due++ }
func (h *fakeHost) MerchantID(*kernel.Tx) string        { return "mch_1" }
func (h *fakeHost) MarkFault(r *http.Request, k string) { h.marked = append(h.marked, k) }
func (h *fakeHost) Replay(*http.Request) ([]bool, func(), bool) {
	return nil, nil, false
}
func (h *fakeHost) APIKey(_ *kernel.Tx, id string) (gateway.Key, bool) {
	k, ok := h.keys[id]
	return k, ok
}
func (h *fakeHost) AccessToken(_ *kernel.Tx, v string) (gateway.Token, bool) {
	t, ok := h.tokens[v]
	return t, ok
}
func (h *fakeHost) PutAccessToken(_ *kernel.Tx, t gateway.Token) { h.tokens[t.Value] = t }
func (h *fakeHost) Merchant(*kernel.Tx) (env, status string)     { return h.env, h.status }
func (h *fakeHost) Member(_ *kernel.Tx, id string) *api.Member   { return h.member(id == "mem_1") }
func (h *fakeHost) MemberByExternal(_ *kernel.Tx, ext string) *api.Member {
	return h.member(ext == "m1")
}
func (h *fakeHost) member(found bool) *api.Member {
	if !found {
		return nil
	}
	return &api.Member{ID: "mem_1", MerchantID: "mch_1", Status: "active"}
}
func (h *fakeHost) Capture(*http.Request) { h.captured++ }
func (h *fakeHost) ControlNotFound(w http.ResponseWriter, r *http.Request, message string) {
	h.controlNF = append(h.controlNF, message)
	w.WriteHeader(http.StatusNotFound)
}
func (h *fakeHost) Token(_ *kernel.Tx, v string) { h.expired = append(h.expired, "token "+v) }
func (h *fakeHost) Challenge(_ *kernel.Tx, id string, _ time.Time) {
	h.expired = append(h.expired, "challenge "+id)
}
func (h *fakeHost) QRMemo(_ *kernel.Tx, key string, _ time.Time) {
	h.expired = append(h.expired, "memo "+key)
}
func (h *fakeHost) RemittanceKey(_ *kernel.Tx, key string, _ time.Time) {
	h.expired = append(h.expired, "remittance "+key)
}
func (h *fakeHost) IssueStepUp(*kernel.Tx, string, string, time.Time) error { return nil }

// newPipeline is an exchange over a fresh kernel and gateway state.
func newPipeline(h *fakeHost) (*Pipeline, *gateway.State, *kernel.Kernel) {
	k := new(kernel.Kernel)
	st := gateway.NewState(k, 1, nil, gateway.StoreCaps{Nonces: 10, IdempotencyKeys: 10, StepUpChallenges: 10}, 100)
	return New(k, st, h), st, k
}

// journal is the journal's rows, oldest first.
func journal(k *kernel.Kernel, st *gateway.State) []gateway.JournalRow {
	tx := k.Begin()
	defer tx.End()
	var out []gateway.JournalRow
	for row := range st.Journal.Rows(tx) {
		out = append(out, row)
	}
	return out
}

// answer is what the client saw of one request.
type answer struct {
	Status int
	Body   string
}

func serve(p *Pipeline, e *api.Endpoint, method, target, body string, header map[string]string) answer {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer tok_1")
	r.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	p.Serve(w, r, e)
	return answer{w.Code, strings.TrimSpace(w.Body.String())}
}

// TestServe: the exchange answers a handler's result, a refusal of the
// caller's checks, a handler's error and its panic as the API's envelope,
// a missing member, and journals each request with its request id; writes
// wait for their input to be durable.
func TestServe(t *testing.T) {
	t.Parallel()
	ok := &api.Endpoint{Method: "GET", Pattern: "/v1/x", Handle: func(c *api.Request) (int, any, error) {
		return 200, map[string]string{"member": func() string {
			if c.Member != nil {
				return c.Member.ID
			}
			return ""
		}()}, nil
	}}
	member := &api.Endpoint{Method: "GET", Pattern: "/v1/m", Member: true, Handle: ok.Handle}
	refuse := &api.Endpoint{Method: "POST", Pattern: "/v1/y", Handle: func(*api.Request) (int, any, error) {
		return 0, nil, api.NewErr("state_invalid", "no")
	}}
	panics := &api.Endpoint{Method: "POST", Pattern: "/v1/z", Handle: func(*api.Request) (int, any, error) { panic("boom") }}
	h := newFakeHost(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	p, st, k := newPipeline(h)
	got := []answer{
		serve(p, ok, "GET", "/v1/x", "", nil),
		serve(p, member, "GET", "/v1/m", "", map[string]string{"X-On-Behalf-Of": " m1 "}),
		serve(p, member, "GET", "/v1/m", "", map[string]string{"X-On-Behalf-Of": "m2"}),
		serve(p, refuse, "POST", "/v1/y", "{}", nil),
		serve(p, panics, "POST", "/v1/z", "{}", nil),
		serve(p, ok, "GET", "/v1/x", strings.Repeat("a", MaxBodyBytes+1), nil),
	}
	status := make([]int, len(got))
	for i, a := range got {
		status[i] = a.Status
	}
	if diff := cmp.Diff([]int{200, 200, 404, 400, 500, 400}, status); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if got[1].Body != `{"member":"mem_1"}` {
		t.Errorf("member's answer %s", got[1].Body)
	}
	if !strings.Contains(got[4].Body, "simulator fault in POST /v1/z: boom") {
		t.Errorf("panic's answer %s", got[4].Body)
	}
	type row struct {
		Method, Path, Member, ClientID, Code string
		Status                               int
	}
	var rows []row
	for _, r := range journal(k, st) {
		if r.RequestID == "" || !r.Time.Equal(h.now) {
			t.Errorf("row %+v: no request id or another time", r)
		}
		rows = append(rows, row{r.Method, r.Path, r.Member, r.ClientID, r.Code, r.Status})
	}
	want := []row{
		{"GET", "/v1/x", "", "client_1", "", 200},
		{"GET", "/v1/m", "m1", "client_1", "", 200},
		{"GET", "/v1/m", "m2", "client_1", "member_not_found", 404},
		{"POST", "/v1/y", "", "client_1", "state_invalid", 400},
		{"POST", "/v1/z", "", "client_1", "api_error", 500},
		{"GET", "/v1/x", "", "client_1", "invalid_request", 400},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("journal (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{40, 50}, h.durable); diff != "" {
		t.Errorf("durable ends (-want +got):\n%s", diff)
	}
	if h.due != 6 {
		t.Errorf("%d timer runs, want 6", h.due)
	}
}

// TestIdempotentReplay: a keyed write runs once; the same key answers the
// stored result as a replay of the first request, another body
// idempotency_key_reused; a missing or malformed key is refused first.
func TestIdempotentReplay(t *testing.T) {
	t.Parallel()
	runs := 0
	e := &api.Endpoint{Method: "POST", Pattern: "/v1/w", Idempotent: true, Handle: func(*api.Request) (int, any, error) {
		runs++
		return 201, map[string]int{"run": runs}, nil
	}}
	h := newFakeHost(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	p, st, k := newPipeline(h)
	key := map[string]string{"X-Idempotency-Key": "123e4567-e89b-12d3-a456-426614174000"}
	got := []answer{
		serve(p, e, "POST", "/v1/w", `{"a":1}`, key),
		serve(p, e, "POST", "/v1/w", `{"a":1}`, key),
		serve(p, e, "POST", "/v1/w", `{"a":2}`, key),
		serve(p, e, "POST", "/v1/w", `{"a":1}`, nil),
		serve(p, e, "POST", "/v1/w", `{"a":1}`, map[string]string{"X-Idempotency-Key": "nope"}),
	}
	want := []answer{{201, `{"run":1}`}, {201, `{"run":1}`}}
	if diff := cmp.Diff(want, got[:2]); diff != "" {
		t.Errorf("first and replay (-want +got):\n%s", diff)
	}
	rows := journal(k, st)
	var codes []string
	for _, r := range rows {
		codes = append(codes, r.Code)
	}
	if diff := cmp.Diff([]string{"", "", "idempotency_key_reused", "idempotency_key_required", "idempotency_key_invalid"}, codes); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
	if !rows[1].Replay || rows[1].ReplayOf != rows[0].RequestID {
		t.Errorf("replay row %+v, want a replay of %s", rows[1], rows[0].RequestID)
	}
	if runs != 1 {
		t.Errorf("the handler ran %d times", runs)
	}
}

// TestFaults: an armed error fault answers its envelope without running
// the handler and is counted down; error_after runs it and answers the
// envelope; the exchange log is told; a request the log refused answers
// service_unavailable under a control request id and is not journaled.
func TestFaults(t *testing.T) {
	t.Parallel()
	runs := 0
	e := &api.Endpoint{Method: "POST", Pattern: "/v1/f", Handle: func(*api.Request) (int, any, error) {
		runs++
		return 200, map[string]int{}, nil
	}}
	h := newFakeHost(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	p, st, k := newPipeline(h)
	tx := k.BeginSetup()
	p.Arm(tx, faults.Row{Path: "/v1/f", Count: 1, Kind: faults.KindError, Status: 502}, faults.Chans{})
	p.Arm(tx, faults.Row{Path: "/v1/*", Count: 1, Kind: faults.KindErrorAfter, Code: "upstream_timeout"}, faults.Chans{})
	tx.End()
	got := []int{
		serve(p, e, "POST", "/v1/f", "{}", nil).Status,
		serve(p, e, "POST", "/v1/f", "{}", nil).Status,
		serve(p, e, "POST", "/v1/f", "{}", nil).Status,
	}
	if diff := cmp.Diff([]int{502, 504, 200}, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if runs != 2 {
		t.Errorf("the handler ran %d times, want 2", runs)
	}
	if diff := cmp.Diff([]string{faults.KindError, faults.KindErrorAfter}, h.marked); diff != "" {
		t.Errorf("marked (-want +got):\n%s", diff)
	}
	h.logErr = errors.New("disk full")
	r := httptest.NewRequest("POST", "/v1/f", strings.NewReader("{}"))
	w := httptest.NewRecorder()
	p.Serve(w, r, e)
	if w.Code != 400 || w.Header().Get("X-Request-Id") != "ctl_1" {
		t.Errorf("refused input: %d, request id %q", w.Code, w.Header().Get("X-Request-Id"))
	}
	var faultsTaken []string
	for _, row := range journal(k, st) {
		faultsTaken = append(faultsTaken, row.Fault)
	}
	if diff := cmp.Diff([]string{faults.KindError, faults.KindErrorAfter, ""}, faultsTaken); diff != "" {
		t.Errorf("journal's faults (-want +got):\n%s", diff)
	}
}
