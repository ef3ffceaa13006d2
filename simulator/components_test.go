package simulator

import (
	"bytes"
	"io"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestWiringHoldsNoSimulatorBelow is TestWiringComponentsHoldNoSimulator
// one level down and further: every type of this package that a component
// reaches (through pointers, slices, maps and structs; not into the
// state, simState, nor into the parts wiringKeepsASimulator allows) holds
// no *Simulator either, so that the hub does not come back through a
// part of a part (the input log's data directory, say).
func TestWiringHoldsNoSimulatorBelow(t *testing.T) {
	t.Parallel()
	simPtr := reflect.TypeOf(&Simulator{})
	seen := map[reflect.Type]bool{}
	var found []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			t = t.Elem()
		}
		if t.Kind() == reflect.Map {
			walk(t.Key())
			walk(t.Elem())
			return
		}
		// The state (reached through st) is the image's, not the wiring's.
		if t.Kind() != reflect.Struct || t.PkgPath() != simPkg || t == simPtr.Elem() || t == reflect.TypeOf(simState{}) ||
			wiringKeepsASimulator[t.Name()] != "" || seen[t] {
			return
		}
		seen[t] = true
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Type == simPtr {
				found = append(found, t.Name()+"."+f.Name)
				continue
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeOf(wiring{}))
	for _, c := range []string{"inputLog", "deliverer", "recorder", "store"} {
		if !seenName(seen, c) {
			t.Errorf("the wiring no longer reaches %s: update the test", c)
		}
	}
	sort.Strings(found)
	if diff := cmp.Diff([]string(nil), found); diff != "" {
		t.Errorf("types reached from the wiring that hold a *Simulator (give them what they use instead):\n%s", diff)
	}
}

func seenName(seen map[reflect.Type]bool, name string) bool {
	for t := range seen {
		if t.Name() == name {
			return true
		}
	}
	return false
}

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
			s.wiring.rec.mu.Lock()
			st := s.wiring.rec.store
			s.wiring.rec.mu.Unlock()
			if st == nil || st.inputs != s.wiring.inputs {
				t.Errorf("the data directory's snapshots do not take this simulator's input log")
			}
			return s
		}},
	}
	for _, b := range builds {
		t.Run(b.name, func(t *testing.T) {
			s := b.build(t)
			w := &s.wiring
			rows := []struct {
				name      string
				got, want any
			}{
				{"image.root", w.image.root, s},
				{"image.k", w.image.k, &s.k},
				{"inputs.k", w.inputs.k, &s.k},
				{"inputs.st", w.inputs.st, &s.st},
				{"inputs.rec", w.inputs.rec, w.rec},
				{"inputs.image", w.inputs.image, w.image},
				{"delivery.k", w.delivery.k, &s.k},
				{"delivery.st", w.delivery.st, &s.st},
				{"delivery.rec", w.delivery.rec, w.rec},
				{"delivery.inputs", w.delivery.inputs, w.inputs},
			}
			for _, r := range rows {
				if r.got != r.want {
					t.Errorf("%s: %p, want %p", r.name, r.got, r.want)
				}
			}
			if w.inputs.draws == nil {
				t.Error("inputs.draws: nil")
			}
			if _, err := s.Digest(); err != nil {
				t.Errorf("Digest: %v", err)
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
