// Package extest runs the example programs in-process for their tests.
package extest

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/examples/internal/exenv"
	"github.com/mwallet/mwallet-go/simulator"
)

// RunFunc is the signature of every example's run function.
type RunFunc func(ctx context.Context, stdout io.Writer, args []string) error

// Run runs an example with args and returns what it printed. It fails the
// test when the example returns an error.
func Run(t *testing.T, run RunFunc, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	if err := run(context.Background(), &out, args); err != nil {
		t.Fatalf("run %q: %v\noutput:\n%s", args, err, out.String())
	}
	return out.String()
}

// Contains fails the test unless out contains every want, in order.
func Contains(t *testing.T, out string, want ...string) {
	t.Helper()
	rest := out
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Fatalf("output lacks %q (after the earlier expectations)\noutput:\n%s", w, out)
		}
		rest = rest[i+len(w):]
	}
}

// RealEnv starts a simulator that stands in for a real environment: the
// example reaches it only through -base-url and the MWALLET_* variables,
// exactly as it would reach a sandbox, and must not use any simulator
// control. It returns the simulator (for the test to play the end user and
// the upstream) and the -base-url arguments. When the test ends, the
// simulator's books must balance and its invariants hold.
//
// It sets environment variables with t.Setenv, so the calling test must not
// be parallel. The simulator clock starts at the wall clock's time, because
// a client outside the simulator signs with the wall clock.
func RealEnv(t *testing.T) (*simulator.Simulator, []string) {
	t.Helper()
	sim := simulator.MustNew(simulator.WithStart(time.Now().UTC().Truncate(time.Second)))
	t.Cleanup(sim.Close)
	t.Cleanup(func() {
		if err := sim.CheckLedger(); err != nil {
			t.Errorf("CheckLedger: %v", err)
		}
		if err := sim.CheckInvariants(); err != nil {
			t.Errorf("CheckInvariants: %v", err)
		}
	})
	c := sim.Credentials()
	t.Setenv(exenv.EnvClientID, c.ClientID)
	t.Setenv(exenv.EnvAPIKey, c.APIKey)
	t.Setenv(exenv.EnvSigningKey, c.SigningKey)
	t.Setenv(exenv.EnvWebhookSecret, c.WebhookSecret)
	t.Setenv(exenv.EnvMember, simulator.DefaultMemberExternalID)
	return sim, []string{"-base-url", sim.URL()}
}

// NoSecrets fails the test when out shows one of the simulator's secrets.
func NoSecrets(t *testing.T, sim *simulator.Simulator, out string) {
	t.Helper()
	c := sim.Credentials()
	for name, v := range map[string]string{"API key": c.APIKey, "signing key": c.SigningKey, "webhook secret": c.WebhookSecret} {
		if strings.Contains(out, v) {
			t.Errorf("the output shows the %s", name)
		}
	}
}

// Output is an io.Writer safe for concurrent use that lets a test wait for
// a line.
type Output struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

// NewOutput returns an empty Output.
func NewOutput() *Output { return &Output{changed: make(chan struct{}, 1)} }

// Write appends p.
func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n, err := o.buf.Write(p)
	select {
	case o.changed <- struct{}{}:
	default:
	}
	return n, err
}

// String returns everything written so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// WaitFor returns the first line containing s once it is written, or fails
// the test when ctx ends first.
func (o *Output) WaitFor(ctx context.Context, t *testing.T, s string) string {
	t.Helper()
	for {
		for _, line := range strings.Split(o.String(), "\n") {
			if strings.Contains(line, s) {
				return line
			}
		}
		select {
		case <-o.changed:
		case <-ctx.Done():
			t.Fatalf("no line with %q; output:\n%s", s, o.String())
		}
	}
}
