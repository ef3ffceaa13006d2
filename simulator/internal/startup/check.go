// Package startup holds what builds a simulator and needs nothing of it:
// the checks of its options as plain values (Check), the rules an input
// runs under as the environment names them (Rules), the scope catalogue
// and the fixture Key's grants (Catalog), and the fixture's assets,
// members and funded prepaid account (Fixture).
package startup

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The values of the public Model and Environment a simulator accepts: the
// custody models are the kernel's (Tx.Custody); a test of the simulator
// holds all four to the public constants.
const (
	PlatformHosted = kernel.PlatformHosted
	MerchantHosted = kernel.MerchantHosted
	Sandbox        = "sandbox"
	Production     = "production"
)

// Settings are the options Check reads, as plain values.
type Settings struct {
	// Served is true for New, which starts the server, false for
	// NewHandler, which cannot honour TLS and HTTP2.
	Served     bool
	TLS, HTTP2 bool
	// Model and Environment are the merchant's custody model and the
	// environment.
	Model, Environment string
	Start              time.Time
	ControlToken       string
	RecordingLimit     int64
	SnapshotEvery      int
}

// Check checks s, answering the first option that is refused with the
// error the simulator's constructors return; a server option given to a
// handler wraps serverOption.
func Check(s Settings, serverOption error) error {
	switch {
	case !s.Served && s.HTTP2:
		return fmt.Errorf("simulator: NewHandler cannot honour WithHTTP2: %w", serverOption)
	case !s.Served && s.TLS:
		return fmt.Errorf("simulator: NewHandler cannot honour WithTLS: %w", serverOption)
	}
	switch s.Model {
	case PlatformHosted, MerchantHosted:
	default:
		return fmt.Errorf("simulator: WithModel(%q): want %s or %s", s.Model, PlatformHosted, MerchantHosted)
	}
	switch s.Environment {
	case Sandbox, Production:
	default:
		return fmt.Errorf("simulator: WithEnvironment(%q): want %s or %s", s.Environment, Sandbox, Production)
	}
	if s.Start.IsZero() {
		return errors.New("simulator: WithStart: zero time")
	}
	if s.ControlToken != strings.TrimSpace(s.ControlToken) || strings.ContainsFunc(s.ControlToken, unicode.IsControl) {
		// No request could present it: header values are trimmed and hold
		// no control characters.
		return errors.New("simulator: WithControlToken: the token begins or ends with space or holds a control character, which no request can send")
	}
	if s.RecordingLimit < 0 {
		return fmt.Errorf("simulator: WithRecordingLimit(%d): want 0 or more", s.RecordingLimit)
	}
	if s.SnapshotEvery < 0 {
		return fmt.Errorf("simulator: WithSnapshotEvery(%d): want 0 or more", s.SnapshotEvery)
	}
	return nil
}
