package delivery

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
	"github.com/mwallet/mwallet-go/simulator/internal/webhooks"
)

// fakeLog logs the flush's inputs as lines ("flush_due", "attempt id
// code", "flush_abort ids") and makes each durable at once.
type fakeLog struct {
	k     *kernel.Kernel
	lines []string
}

func (l *fakeLog) AdmitDue(*kernel.Tx) (int64, error) {
	l.lines = append(l.lines, "flush_due")
	return int64(len(l.lines)), nil
}

func (l *fakeLog) lock(line string) (*kernel.Tx, int64, error) {
	tx := l.k.BeginInput()
	l.lines = append(l.lines, line)
	tx.Ordered()
	return tx, int64(len(l.lines)), nil
}

func (l *fakeLog) LockDue() (*kernel.Tx, int64, error) { return l.lock("flush_due") }

func (l *fakeLog) LockAttempt(id string, _ time.Time, code int, _, _ string) (*kernel.Tx, int64, error) {
	return l.lock(fmt.Sprintf("attempt %s %d", id, code))
}

func (l *fakeLog) LockAbort(ids []string) (*kernel.Tx, int64, error) {
	return l.lock("flush_abort " + strings.Join(ids, ","))
}

func (l *fakeLog) Durable(int64) error { return nil }

type fakeHost struct{}

func (fakeHost) AutoFlush() {}

func direct(rt *http.Transport) http.RoundTripper { return rt }

// newDeliverer returns a deliverer over a sandbox line with one endpoint
// at url and n events queued for it, with its log.
func newDeliverer(t *testing.T, url string, n int) (*Deliverer, *fakeLog) {
	t.Helper()
	svc := kerneltest.New()
	svc.Env, svc.Secret = webhooks.Sandbox, "whsec_m"
	l := webhooks.New(svc.Kernel(), fakeHost{}, direct)
	tx := svc.Begin()
	if _, _, err := l.AddEndpoint(tx, webhooks.EndpointConfig{URL: url}); err != nil {
		t.Fatal(err)
	}
	for range n {
		l.Queue(tx, webhooks.Event{ID: "evt_" + svc.NewUUID(tx), Type: "card.created", CreatedAt: svc.Clock, Object: "card", ObjectID: "c1", ExternalMemberID: "m-1", Status: "active", StatusVersion: 2})
	}
	tx.End()
	log := &fakeLog{k: svc.Kernel()}
	return &Deliverer{Kernel: svc.Kernel(), Line: l, Log: log, Clock: func() time.Time { return svc.Clock }}, log
}

// TestDelivererLogsEachInput: a flush logs picking the due deliveries and
// each attempt with the receiver's status, and nothing when none is due.
func TestDelivererLogsEachInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		events int
		want   webhooks.FlushResult
		lines  int // the log's lines: flush_due and one attempt per event
	}{
		{"nothing due", http.StatusOK, 0, webhooks.FlushResult{}, 0},
		{"a receiver that answers 200", http.StatusOK, 2, webhooks.FlushResult{Attempted: 2, Succeeded: 2}, 3},
		{"a receiver that answers 500", http.StatusInternalServerError, 1, webhooks.FlushResult{Attempted: 1, Failed: 1}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(tt.status) }))
			defer srv.Close()
			d, log := newDeliverer(t, srv.URL+"/hook", tt.events)
			defer d.CloseIdle()
			got, err := d.Flush(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			got.Failures = nil
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if len(log.lines) != tt.lines || (tt.lines > 0 && log.lines[0] != "flush_due") {
				t.Errorf("log %q, want flush_due and %d attempts", log.lines, tt.lines-1)
			}
			for _, l := range log.lines[min(1, len(log.lines)):] {
				if !strings.HasSuffix(l, fmt.Sprint(" ", tt.status)) {
					t.Errorf("log line %q, want an attempt answered %d", l, tt.status)
				}
			}
		})
	}
}

// TestDelivererReplaysInputs: a replay's flush_due takes the due delivery
// into flight, flush_abort (or GiveBack) returns it, and a recorded
// attempt settles it; no receiver is called.
func TestDelivererReplaysInputs(t *testing.T) {
	t.Parallel()
	d, log := newDeliverer(t, "http://receiver.invalid/hook", 1)
	tx := d.Kernel.Begin()
	id := d.Line.Deliveries(tx)[0].ID
	tx.End()
	steps := []func() error{
		d.DueInput,
		func() error { return d.GiveBack([]webhooks.Job{{DeliveryID: id}}) },
		d.DueInput,
		func() error { return d.AttemptInput(id, d.Now(), 204, "", "") },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	want := []string{"flush_due", "flush_abort " + id, "flush_due", "attempt " + id + " 204"}
	if diff := cmp.Diff(want, log.lines); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	if d.Client() == nil {
		t.Error("no client")
	}
	tx = d.Kernel.Begin()
	defer tx.End()
	if s := d.Line.Deliveries(tx)[0].Status; s != "sent" {
		t.Errorf("status %q, want sent", s)
	}
}
