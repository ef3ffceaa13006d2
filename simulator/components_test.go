package simulator

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/delivery"
	"github.com/mwallet/mwallet-go/simulator/internal/inputlog"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// TestComponentsAreWired checks, for a simulator built each way (New,
// NewHandler, from a recording, from a data directory new and restarted
// from its snapshot), that the persistence and webhook flush components
// reach this simulator's own kernel, state and input log, not copies of
// them: loading an image replaces what the state holds, never the state.
func TestComponentsAreWired(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	builds := []struct {
		name  string
		build func(t *testing.T) *Simulator
	}{
		{"New", func(t *testing.T) *Simulator { return mustStart(t) }},
		{"NewHandler", func(t *testing.T) *Simulator {
			s, err := NewHandler()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			return s
		}},
		{"WithRecording", func(t *testing.T) *Simulator {
			a := mustStart(t)
			a.Clock.Advance(time.Minute)
			rec, err := a.Recording()
			if err != nil {
				t.Fatal(err)
			}
			return mustStart(t, WithRecording(rec))
		}},
		{"WithDataDir restarted from its snapshot", func(t *testing.T) *Simulator {
			a, err := New(WithDataDir(dir), WithDiagnostics(io.Discard))
			if err != nil {
				t.Fatal(err)
			}
			a.Clock.Advance(time.Hour)
			a.Close()
			var diag bytes.Buffer
			s := mustStart(t, WithDataDir(dir), WithDiagnostics(&diag))
			if !strings.Contains(diag.String(), "snapshot of input") {
				t.Errorf("the restart did not read the snapshot: %s", diag.String())
			}
			st := s.wiring.rec.Store()
			if st == nil || st.Source() != s.wiring.inputs.Source() {
				t.Errorf("the data directory's snapshots do not take this simulator's input log")
			}
			return s
		}},
	}
	for _, b := range builds {
		t.Run(b.name, func(t *testing.T) {
			s := b.build(t)
			w := &s.wiring
			host, _ := w.inputs.Host.(inputlog.Funcs)
			rows := []struct {
				name      string
				got, want any
			}{
				{"image.root", w.image.root, s},
				{"image.k", w.image.k, &s.k},
				{"inputs.K", w.inputs.K, &s.k},
				{"inputs.Rec", w.inputs.Rec, w.rec},
				{"inputs.Caps", w.inputs.Caps, s.st.gw.Caps},
				{"delivery.Kernel", w.delivery.Kernel, &s.k},
				{"delivery.Line", w.delivery.Line, s.st.webhooks},
				{"delivery.Log", w.delivery.Log, delivery.InputLog{Inputs: w.inputs, Rec: w.rec}},
			}
			for _, r := range rows {
				if r.got != r.want {
					t.Errorf("%s: %p, want %p", r.name, r.got, r.want)
				}
			}
			if host.BusinessDraws == nil {
				t.Error("inputs.Host.BusinessDraws: nil")
			}
			// The host's clock and state image are this simulator's.
			if got, want := host.Now(), s.st.clock.Now(); !got.Equal(want) {
				t.Errorf("inputs.Host.Now() = %v, want %v", got, want)
			}
			want, err := s.Digest()
			if err != nil {
				t.Errorf("Digest: %v", err)
			}
			if got, err := host.Digest(func(*kernel.Tx) {}); err != nil || got != want {
				t.Errorf("inputs.Host.Digest = %q, %v; want %q", got, err, want)
			}
		})
	}
}

// mustStart is New with opts, closed at the end of the test.
func mustStart(t *testing.T, opts ...Option) *Simulator {
	t.Helper()
	s, err := New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}
