package main

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestEveryCommandTakesTheConnectionFlags: every command that drives a
// running simulator (trigger, listen, recipes) takes -url, its old spelling
// -base-url and -control-token, falls back to MWALLET_SIM_URL and
// MWALLET_SIM_CONTROL_TOKEN, and refuses a URL that is none and a token no
// request can send, the same way.
func TestEveryCommandTakesTheConnectionFlags(t *testing.T) {
	commands := []struct {
		name  string
		args  []string // what the command needs besides the connection
		def   string   // its URL without a flag or the environment
		parse func(args []string) (connFlags, error)
	}{
		{"trigger", []string{"member.created"}, defaultURL, func(a []string) (connFlags, error) {
			c, err := parseTrigger(a, io.Discard)
			return c.conn, err
		}},
		{"listen", []string{"-forward-to", "http://localhost:4242/hooks"}, defaultURL, func(a []string) (connFlags, error) {
			c, err := parseListen(a, io.Discard)
			return c.conn, err
		}},
		{"recipes", []string{"-run", "not_found"}, "", func(a []string) (connFlags, error) {
			c, err := parseErrorRecipes(a, io.Discard)
			return c.conn, err
		}},
	}
	rows := []struct {
		name      string
		flags     []string
		env       map[string]string
		wantURL   string // "default": the command's own default
		wantToken string
		wantErr   string
	}{
		{"nothing given", nil, nil, "default", "", ""},
		{"-url", []string{"-url", "http://127.0.0.1:9090/"}, nil, "http://127.0.0.1:9090", "", ""},
		{"-base-url, the old spelling", []string{"-base-url", "http://127.0.0.1:9091"}, nil, "http://127.0.0.1:9091", "", ""},
		{"MWALLET_SIM_URL", nil, map[string]string{urlEnv: "http://127.0.0.1:9092"}, "http://127.0.0.1:9092", "", ""},
		{"-url before MWALLET_SIM_URL", []string{"-url", "http://127.0.0.1:9093"}, map[string]string{urlEnv: "http://127.0.0.1:9094"}, "http://127.0.0.1:9093", "", ""},
		{"-control-token", []string{"-control-token", "tok-1"}, nil, "default", "tok-1", ""},
		{"MWALLET_SIM_CONTROL_TOKEN", nil, map[string]string{controlTokenEnv: "tok-2"}, "default", "tok-2", ""},
		{"-control-token before MWALLET_SIM_CONTROL_TOKEN", []string{"-control-token", "tok-3"}, map[string]string{controlTokenEnv: "tok-4"}, "default", "tok-3", ""},
		{"a token with a trailing space", []string{"-control-token", "tok-5 "}, nil, "", "", "begins or ends with space"},
		{"a token of spaces from the environment", nil, map[string]string{controlTokenEnv: "   "}, "", "", "begins or ends with space"},
		{"a URL that is none", []string{"-url", "localhost:8080"}, nil, "", "", "-url"},
	}
	n := 0
	for _, c := range commands {
		for _, r := range rows {
			t.Run(c.name+"/"+r.name, func(t *testing.T) {
				t.Setenv(urlEnv, "")
				t.Setenv(controlTokenEnv, "")
				for k, v := range r.env {
					t.Setenv(k, v)
				}
				got, err := c.parse(append(append([]string{}, r.flags...), c.args...))
				if r.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), r.wantErr) {
						t.Fatalf("err = %v, want one naming %q", err, r.wantErr)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				want := r.wantURL
				if want == "default" {
					want = c.def
				}
				if got.url != want || got.token != r.wantToken {
					t.Errorf("url %q token %q, want %q %q", got.url, got.token, want, r.wantToken)
				}
			})
			n++
		}
	}
	t.Logf("%d cases: %d commands x %d connection rows", n, len(commands), len(rows))
}

// TestServeRefusesATokenNoRequestCanSend: serve refuses, as a usage error,
// a control token that begins or ends with space (or is only space), from
// the flag or the environment.
func TestServeRefusesATokenNoRequestCanSend(t *testing.T) {
	for _, tc := range []struct{ flag, env string }{{" tok", ""}, {"tok ", ""}, {"   ", ""}, {"", "tok\t"}, {"", " "}} {
		t.Setenv(controlTokenEnv, tc.env)
		var args []string
		if tc.flag != "" {
			args = []string{"-control-token", tc.flag}
		}
		_, err := parseServe(args, io.Discard)
		var ue *usageError
		if err == nil || !strings.Contains(err.Error(), "begins or ends with space") || !errors.As(err, &ue) {
			t.Errorf("serve -control-token %q (env %q): %v, want a usage error", tc.flag, tc.env, err)
		}
	}
}
