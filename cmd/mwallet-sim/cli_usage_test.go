package main

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Every usage error of every command prints exactly two lines on stderr:
// the mistake, prefixed with the command, and a hint naming the help that
// shows the command's usage; nothing on stdout, exit status 2. The table
// gives each registered command a wrong flag, a flag with a bad value and
// a stray argument, and adds the command-specific mistakes and the mistakes
// in the command name itself.
func TestCLIUsageErrorsAreTwoLines(t *testing.T) {
	t.Parallel()
	type row struct {
		args []string
		want []string // the two stderr lines
	}
	hint := func(cmd string) string { return `Run "mwallet-sim help ` + cmd + `" for its usage and flags.` }
	var rows []row
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	// A flag each command has, with a value of the wrong kind where the
	// flag package checks it (a string flag takes anything, so the value
	// check of the command answers).
	badValue := map[string][]string{
		"serve":   {"-seed", "many"},
		"listen":  {"-forward-to", "http://127.0.0.1:1/", "-flush-interval", "soon"},
		"trigger": {"member.created", "-list=maybe"},
		"recipes": {"-v=often"},
	}
	badValueWant := map[string]string{
		"serve":   `invalid value "many" for flag -seed: parse error`,
		"listen":  `invalid value "soon" for flag -flush-interval: parse error`,
		"trigger": `invalid boolean value "maybe" for -list: parse error`,
		"recipes": `invalid boolean value "often" for -v: parse error`,
	}
	extra := map[string][]string{
		"serve":   {"extra"},
		"listen":  {"-forward-to", "http://127.0.0.1:1/", "extra"},
		"trigger": {"member.created", "extra"},
		"recipes": {"extra"},
		"repair":  {"dir", "extra"},
	}
	extraWant := map[string]string{
		"repair": "repair takes one argument: the data directory",
	}
	// noValueFlags names the commands that have no flag taking a value:
	// they have no bad-value row.
	noValueFlags := map[string]bool{"repair": true}
	for _, n := range names {
		if (badValue[n] == nil && !noValueFlags[n]) || extra[n] == nil {
			t.Fatalf("command %s has no rows in this table: add them", n)
		}
		rows = append(rows,
			row{[]string{n, "-no-such-flag"}, []string{"mwallet-sim " + n + ": flag provided but not defined: -no-such-flag", hint(n)}})
		if badValue[n] != nil {
			rows = append(rows, row{append([]string{n}, badValue[n]...), []string{"mwallet-sim " + n + ": " + badValueWant[n], hint(n)}})
		}
		want := "unexpected arguments: extra"
		if w, ok := extraWant[n]; ok {
			want = w
		}
		rows = append(rows, row{append([]string{n}, extra[n]...), []string{"mwallet-sim " + n + ": " + want, hint(n)}})
	}
	rows = append(rows,
		// Without a command name the flags are serve's.
		row{[]string{"-no-such-flag"}, []string{"mwallet-sim serve: flag provided but not defined: -no-such-flag", hint("serve")}},
		row{[]string{"serve", "-model", "self"}, []string{`mwallet-sim serve: -model "self": want platform_hosted or merchant_hosted`, hint("serve")}},
		row{[]string{"serve", "-clock", "manual", "-start", "yesterday"}, []string{`mwallet-sim serve: -start: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`, hint("serve")}},
		row{[]string{"serve", "-http2=false"}, []string{"mwallet-sim serve: -http2 needs -tls", hint("serve")}},
		row{[]string{"listen"}, []string{"mwallet-sim listen: -forward-to is required: the URL every delivery is forwarded to", hint("listen")}},
		row{[]string{"listen", "-forward-to", "/hooks"}, []string{`mwallet-sim listen: -forward-to "/hooks": want an absolute http or https URL`, hint("listen")}},
		row{[]string{"repair"}, []string{"mwallet-sim repair: repair takes one argument: the data directory", hint("repair")}},
		row{[]string{"serve", "-data-repair"}, []string{"mwallet-sim serve: -data-repair needs -data", hint("serve")}},
		row{[]string{"trigger"}, []string{"mwallet-sim trigger: an event type is required (mwallet-sim trigger -list shows them)", hint("trigger")}},
		row{[]string{"trigger", "no.such.event"}, []string{`mwallet-sim trigger: unknown event type "no.such.event" (mwallet-sim trigger -list shows the 27 types)`, hint("trigger")}},
		row{[]string{"launch"}, []string{`mwallet-sim: unknown command "launch"`, `Run "mwallet-sim help" for the commands.`}},
		row{[]string{"help", "launch"}, []string{`mwallet-sim: help: unknown command "launch"`, `Run "mwallet-sim help" for the commands.`}},
		row{[]string{"help", "serve", "extra"}, []string{"mwallet-sim: help takes one command name", `Run "mwallet-sim help" for the commands.`}},
	)
	for _, tt := range rows {
		r := runBinary(t, tt.args...)
		got := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
		if r.code != 2 || r.stdout != "" {
			t.Errorf("mwallet-sim %q: exit %d, stdout %q; want 2 and nothing on stdout", tt.args, r.code, r.stdout)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("mwallet-sim %q: stderr (-want +got):\n%s", tt.args, diff)
		}
	}
	if len(rows) != 3*len(commands)-len(noValueFlags)+13 {
		t.Errorf("%d rows for %d commands", len(rows), len(commands))
	}
}
