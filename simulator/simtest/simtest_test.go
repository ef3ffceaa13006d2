package simtest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// quiet is a recorder that keeps messages instead of printing them.
type quiet struct {
	recorder
	msgs []string
}

func (q *quiet) Errorf(format string, args ...any) {
	q.failed = true
	q.msgs = append(q.msgs, "Errorf")
}

func (q *quiet) Fatalf(format string, args ...any) {
	q.failed = true
	q.msgs = append(q.msgs, "Fatalf")
}

func TestCleanupChecksAndCloses(t *testing.T) {
	t.Parallel()
	r := new(quiet)
	sim, client := simtest.New(r)
	if _, err := client.Assets(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(r.cleanups) != 1 {
		t.Fatalf("cleanups = %d, want 1", len(r.cleanups))
	}
	r.end()
	if r.failed {
		t.Errorf("a balanced simulator failed the test: %v", r.msgs)
	}
	resp, err := http.Get(sim.URL() + "/_sim/clock")
	if err == nil {
		resp.Body.Close()
		t.Error("the simulator still answers after the test ended")
	}
}

func TestInvalidOptionFailsAtOnce(t *testing.T) {
	t.Parallel()
	r := new(quiet)
	sim, client := simtest.New(r, simulator.WithMember(simulator.MemberSeed{ExternalID: "x", Balances: map[string]string{"NOPE": "1"}}))
	if sim != nil || client != nil || len(r.msgs) != 1 || r.msgs[0] != "Fatalf" || len(r.cleanups) != 0 {
		t.Errorf("sim = %v, client = %v, messages = %v, cleanups = %d; want nils, one Fatalf, no cleanup", sim, client, r.msgs, len(r.cleanups))
	}
}

func TestWantCode(t *testing.T) {
	t.Parallel()
	apiErr := &mwallet.Error{HTTPStatus: http.StatusNotFound, Code: mwallet.CodeMemberNotFound}
	for _, tc := range []struct {
		name string
		err  error
		want []string
	}{
		{"match", apiErr, nil},
		{"wrapped", errors.Join(errors.New("ctx"), apiErr), nil},
		{"other code", &mwallet.Error{HTTPStatus: 400, Code: mwallet.CodeInvalidRequest}, []string{"Fatalf"}},
		{"other status", &mwallet.Error{HTTPStatus: 400, Code: mwallet.CodeMemberNotFound}, []string{"Fatalf"}},
		{"not a service error", errors.New("dial tcp: refused"), []string{"Fatalf"}},
	} {
		r := new(quiet)
		simtest.WantCode(r, tc.err, mwallet.CodeMemberNotFound)
		if strings.Join(r.msgs, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: messages = %v, want %v", tc.name, r.msgs, tc.want)
		}
	}
}

// failing is a test that has failed, with a name and a log.
type failing struct {
	quiet
	logs []string
}

func (f *failing) Name() string { return "TestCheckout/card top-up" }
func (f *failing) Failed() bool { return true }
func (f *failing) Logf(format string, args ...any) {
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}

// TestFailedTestLeavesRecording: when the test has failed, the cleanup
// writes the recording to the artifacts directory and logs its path and
// the commands that replay it; the file replays to the test's last state.
func TestFailedTestLeavesRecording(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(simtest.ArtifactsEnv, dir)
	f := new(failing)
	sim, client := simtest.New(f)
	if _, err := client.Assets(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Members.Create(simulator.MemberSeed{ExternalID: "m2", KYCLevel: 1}); err != nil {
		t.Fatal(err)
	}
	want, err := sim.Digest()
	if err != nil {
		t.Fatal(err)
	}
	f.end()
	files, _ := filepath.Glob(filepath.Join(dir, "mwallet-sim-TestCheckout_card_top-up-*.jsonl"))
	if len(files) != 1 || len(f.logs) != 1 {
		t.Fatalf("files %v, logs %q", files, f.logs)
	}
	for _, w := range []string{files[0], "mwallet-sim serve -replay " + files[0], "simulator.WithRecording(rec)"} {
		if !strings.Contains(f.logs[0], w) {
			t.Errorf("log lacks %q:\n%s", w, f.logs[0])
		}
	}
	rec, err := simulator.ReadRecordingFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	again := simtest.Start(t, simulator.WithRecording(rec))
	if got, _ := again.Digest(); got != want {
		t.Errorf("the replay's digest %s, the test's %s", got, want)
	}
	// A passing test leaves nothing.
	r := new(quiet)
	simtest.Start(r)
	r.end()
	if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 1 {
		t.Errorf("artifacts after a passing test: %v", files)
	}
}
