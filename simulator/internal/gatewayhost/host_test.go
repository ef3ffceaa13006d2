package gatewayhost

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// fake answers every interface of Host and notes each call.
type fake struct {
	calls []string
	err   error
}

func (f *fake) note(s string) { f.calls = append(f.calls, s) }

func (f *fake) LogRequest(tx *kernel.Tx, r *http.Request) (*recfile.Input, int64, error) {
	f.note("LogRequest " + r.URL.Path)
	return &recfile.Input{Seq: 7}, 42, f.err
}
func (f *fake) Admit(tx *kernel.Tx, in *recfile.Input) (int64, error) {
	f.note("Admit " + in.Op)
	return 0, f.err
}
func (f *fake) Park()                   { f.note("Park") }
func (f *fake) Unpark()                 { f.note("Unpark") }
func (f *fake) Fail(err error)          { f.note("Fail " + err.Error()) }
func (f *fake) Durable(end int64) error { f.note("Durable"); return f.err }
func (f *fake) ControlID() string       { f.note("ControlID"); return "req_ctl" }
func (f *fake) Now() time.Time          { return time.Unix(100, 0).UTC() }
func (f *fake) Get(tx *kernel.Tx, id string) (gateway.Key, bool) {
	f.note("Key " + id)
	return gateway.Key{ClientID: id}, true
}
func (f *fake) ID(tx *kernel.Tx) string     { return "mer_1" }
func (f *fake) Env(tx *kernel.Tx) string    { return "sandbox" }
func (f *fake) Status(tx *kernel.Tx) string { return "active" }
func (f *fake) ByExternal(tx *kernel.Tx, ext string) *api.Member {
	f.note("ByExternal " + ext)
	return nil
}
func (f *fake) Issue(tx *kernel.Tx, memberID, action string, now time.Time) error {
	f.note("Issue " + memberID + " " + action)
	return f.err
}
func (f *fake) Sweep(tx *kernel.Tx, id string, now time.Time) { f.note("Sweep " + id) }
func (f *fake) ExpireMemo(tx *kernel.Tx, key string, now time.Time) {
	f.note("ExpireMemo " + key)
}
func (f *fake) ExpireIdempotencyKey(tx *kernel.Tx, key string, now time.Time) {
	f.note("ExpireIdempotencyKey " + key)
}

// members answers Lines.Members (its Get differs from the keys').
type members struct{ f *fake }

func (m members) Get(tx *kernel.Tx, id string) *api.Member {
	m.f.note("Member " + id)
	return &api.Member{ID: id}
}
func (m members) ByExternal(tx *kernel.Tx, ext string) *api.Member { return m.f.ByExternal(tx, ext) }

// tokens answers Tokens.
type tokens struct{ f *fake }

func (t tokens) Get(tx *kernel.Tx, v string) (gateway.Token, bool) {
	t.f.note("Token.Get " + v)
	return gateway.Token{Value: v}, true
}
func (t tokens) Put(tx *kernel.Tx, v gateway.Token) { t.f.note("Token.Put " + v.Value) }
func (t tokens) Delete(tx *kernel.Tx, v string)     { t.f.note("Token.Delete " + v) }

func newHost(f *fake) *Host {
	return &Host{
		Log: f, Rec: f, Clock: f, Keys: f, Tokens: tokens{f},
		Lines: Lines{Merchant: f, Members: members{f}, StepUp: f, QR: f, Remit: f},
		Due:   func(tx *kernel.Tx) { f.note("Due") },
		NotFound: func(w http.ResponseWriter, r *http.Request, message string) {
			f.note("NotFound " + message)
		},
		CaptureBody: func(r *http.Request) { f.note("CaptureBody") },
		ReplayHooks: func(r *http.Request) ([]bool, func(), bool) { f.note("ReplayHooks"); return []bool{true}, nil, true },
	}
}

func TestHostForwards(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest(http.MethodGet, "/v1/members", nil)
	now := time.Unix(5, 0)
	tests := []struct {
		name string
		call func(h *Host)
		want []string
	}{
		{"log request", func(h *Host) { _, _, _ = h.LogRequest(nil, r) }, []string{"LogRequest /v1/members"}},
		{"resume", func(h *Host) { _ = h.Resume(nil, 3) }, []string{"Admit " + recfile.OpResume}},
		{"park", func(h *Host) { h.Park(); h.Unpark() }, []string{"Park", "Unpark"}},
		{"fail", func(h *Host) { h.Fail(errors.New("disk")) }, []string{"Fail disk"}},
		{"durable", func(h *Host) { _ = h.Durable(1) }, []string{"Durable"}},
		{"control id", func(h *Host) { _ = h.ControlID() }, []string{"ControlID"}},
		{"api key", func(h *Host) { _, _ = h.APIKey(nil, "c1") }, []string{"Key c1"}},
		{"tokens", func(h *Host) {
			_, _ = h.AccessToken(nil, "t1")
			h.PutAccessToken(nil, gateway.Token{Value: "t2"})
			h.Token(nil, "t3")
		}, []string{"Token.Get t1", "Token.Put t2", "Token.Delete t3"}},
		{"members", func(h *Host) { h.Member(nil, "m1"); h.MemberByExternal(nil, "e1") }, []string{"Member m1", "ByExternal e1"}},
		{"step-up", func(h *Host) { _ = h.IssueStepUp(nil, "m1", "a", now); h.Challenge(nil, "ch1", now) }, []string{"Issue m1 a", "Sweep ch1"}},
		{"expired lines", func(h *Host) { h.QRMemo(nil, "q", now); h.RemittanceKey(nil, "k", now) }, []string{"ExpireMemo q", "ExpireIdempotencyKey k"}},
		{"func values", func(h *Host) {
			h.RunDue(nil)
			h.ControlNotFound(nil, r, "gone")
			h.Capture(r)
			_, _, _ = h.Replay(r)
		}, []string{"Due", "NotFound gone", "CaptureBody", "ReplayHooks"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &fake{}
			tt.call(newHost(f))
			if diff := cmp.Diff(tt.want, f.calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHostAnswers(t *testing.T) {
	t.Parallel()
	f := &fake{}
	h := newHost(f)
	r := httptest.NewRequest(http.MethodPost, "/v1/deposits", nil)
	seq, end, err := h.LogRequest(nil, r)
	env, status := h.Merchant(nil)
	draws, _, ok := h.Replay(r)
	type answers struct {
		Seq, End                 int64
		Err                      bool
		Env, Status, ID          string
		Now                      time.Time
		Draws                    []bool
		Replay                   bool
		NotPersisted, NotDurable string
	}
	got := answers{
		Seq: seq, End: end, Err: err != nil, Env: env, Status: status, ID: h.MerchantID(nil), Now: h.Now(),
		Draws: draws, Replay: ok,
		NotPersisted: h.NotPersisted(errors.New("x")).Code, NotDurable: h.NotDurable(errors.New("x")).Code,
	}
	want := answers{
		Seq: 7, End: 42, Env: "sandbox", Status: "active", ID: "mer_1", Now: time.Unix(100, 0).UTC(),
		Draws: []bool{true}, Replay: true, NotPersisted: got.NotPersisted, NotDurable: got.NotDurable,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	if got.NotPersisted == "" || got.NotDurable == "" {
		t.Errorf("refusals without a code: %+v", got)
	}

	f.err = errors.New("refused")
	if seq, end, err := h.LogRequest(nil, r); err == nil || seq != 0 || end != 0 {
		t.Errorf("LogRequest on a refusal = %d, %d, %v; want 0, 0, an error", seq, end, err)
	}
}
