package startup

import (
	"errors"
	"testing"
	"time"
)

var errServer = errors.New("server option")

// valid is a Settings Check accepts; each row changes one field.
func valid() Settings {
	return Settings{Served: true, Model: PlatformHosted, Environment: Sandbox, Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(*Settings)
		want   string // "" accepted
		server bool   // the error wraps the server option's
	}{
		{"defaults", func(*Settings) {}, "", false},
		{"merchant hosted production", func(s *Settings) { s.Model, s.Environment = MerchantHosted, Production }, "", false},
		{"served TLS and HTTP/2", func(s *Settings) { s.TLS, s.HTTP2 = true, true }, "", false},
		{"handler HTTP/2", func(s *Settings) { s.Served, s.TLS, s.HTTP2 = false, true, true },
			"simulator: NewHandler cannot honour WithHTTP2: server option", true},
		{"handler TLS", func(s *Settings) { s.Served, s.TLS = false, true },
			"simulator: NewHandler cannot honour WithTLS: server option", true},
		{"model", func(s *Settings) { s.Model = "self" }, `simulator: WithModel("self"): want platform_hosted or merchant_hosted`, false},
		{"environment", func(s *Settings) { s.Environment = "staging" }, `simulator: WithEnvironment("staging"): want sandbox or production`, false},
		{"zero start", func(s *Settings) { s.Start = time.Time{} }, "simulator: WithStart: zero time", false},
		{"token with space", func(s *Settings) { s.ControlToken = " t" },
			"simulator: WithControlToken: the token begins or ends with space or holds a control character, which no request can send", false},
		{"token with control character", func(s *Settings) { s.ControlToken = "a\x01b" },
			"simulator: WithControlToken: the token begins or ends with space or holds a control character, which no request can send", false},
		{"token", func(s *Settings) { s.ControlToken = "a b" }, "", false},
		{"recording limit", func(s *Settings) { s.RecordingLimit = -1 }, "simulator: WithRecordingLimit(-1): want 0 or more", false},
		{"snapshot every", func(s *Settings) { s.SnapshotEvery = -2 }, "simulator: WithSnapshotEvery(-2): want 0 or more", false},
	}
	for _, tt := range tests {
		s := valid()
		tt.change(&s)
		err := Check(s, errServer)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
		if errors.Is(err, errServer) != tt.server {
			t.Errorf("%s: errors.Is(err, serverOption) = %v, want %v", tt.name, !tt.server, tt.server)
		}
	}
}

func TestRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v    string
		want int
		err  bool
	}{
		{"", SweepRules, false},
		{"5", 5, false},
		{"4", 4, false},
		{"3", 3, false},
		{"2", 0, true},
		{"five", 0, true},
	}
	for _, tt := range tests {
		got, err := Rules(tt.v)
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("Rules(%q) = %d, %v; want %d (error %v)", tt.v, got, err, tt.want, tt.err)
		}
	}
	if _, err := Rules("x"); err == nil || err.Error()[:len("simulator: MWALLET_SIM_RULES=\"x\": ")] != `simulator: MWALLET_SIM_RULES="x": ` {
		t.Errorf("Rules(\"x\"): %v, want it to name the variable and the value", err)
	}
}
