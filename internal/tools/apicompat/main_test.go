package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/internal/tools/changelog"
)

const root = "github.com/mwallet/mwallet-go"

// apidiff's report as it prints it in module mode.
func TestParseReport(t *testing.T) {
	t.Parallel()
	got, err := parseReport(`Incompatible changes:
- Error.RetryAfter: changed from int to time.Duration
- ./simulator.(*Simulator).Balance: removed
- package github.com/mwallet/mwallet-go/simulator/emvqr: removed
Compatible changes:
- ./cards.NewThing: added
! second, different message for obj X, isNew false, part ""
  first:  a
  second: b
`)
	if err != nil {
		t.Fatal(err)
	}
	want := []change{
		{Message: "Error.RetryAfter: changed from int to time.Duration"},
		{Message: "./simulator.(*Simulator).Balance: removed"},
		{Message: "package github.com/mwallet/mwallet-go/simulator/emvqr: removed"},
		{Message: "./cards.NewThing: added", Compatible: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got, err := parseReport(""); err != nil || len(got) != 0 {
		t.Errorf("empty report: %v, %v", got, err)
	}
	if _, err := parseReport("something else\n"); err == nil {
		t.Error("an unknown line: no error")
	}
}

// Each kind of apidiff message is named as callers write the identifier:
// qualified by its package's name, a method without its receiver's
// parentheses; commands are left out.
func TestClassify(t *testing.T) {
	t.Parallel()
	pkgs := map[string]string{
		root:                             "mwallet",
		root + "/simulator":              "simulator",
		root + "/simulator/simtest":      "simtest",
		root + "/simulator/emvqr":        "emvqr",
		root + "/cmd/mwallet-sim":        "main",
		root + "/otel":                   "mwotel",
		root + "/openapi/validate/walk":  "walk",
		root + "/openapi/validate":       "validate",
		root + "/openapi/validate/cmd/x": "main",
	}
	tests := []struct {
		mod, msg string
		want     finding
		skip     bool
	}{
		{root, "Error.RetryAfter: changed from int to time.Duration",
			finding{Ident: "mwallet.Error.RetryAfter", Alt: []string{root + ".Error.RetryAfter"}, Message: "mwallet.Error.RetryAfter: changed from int to time.Duration", Member: true}, false},
		{root, "(*Client).Do: changed from func() to func(int)",
			finding{Ident: "mwallet.Client.Do", Alt: []string{root + ".Client.Do"}, Message: "mwallet.Client.Do: changed from func() to func(int)", Member: true}, false},
		{root, "./simulator.(*Simulator).Balance: removed",
			finding{Ident: "simulator.Simulator.Balance", Alt: []string{root + "/simulator.Simulator.Balance"}, Message: "simulator.Simulator.Balance: removed", Member: true}, false},
		{root, "./simulator/simtest.New: changed from func() to func(int)",
			finding{Ident: "simtest.New", Alt: []string{root + "/simulator/simtest.New"}, Message: "simtest.New: changed from func() to func(int)"}, false},
		{root, "./simulator.List[T].Next: removed",
			finding{Ident: "simulator.List.Next", Alt: []string{root + "/simulator.List.Next"}, Message: "simulator.List.Next: removed", Member: true}, false},
		{root, "./simulator.Iface, method set of *T: removed method M",
			finding{Ident: "simulator.Iface", Alt: []string{root + "/simulator.Iface"}, Message: "simulator.Iface, method set of *T: removed method M"}, false},
		{root, "package " + root + "/simulator/emvqr: removed",
			finding{Ident: root + "/simulator/emvqr", Alt: []string{"simulator/emvqr"}, Message: "package " + root + "/simulator/emvqr: removed"}, false},
		{root + "/otel", "Observer.OnCall: removed",
			finding{Ident: "mwotel.Observer.OnCall", Alt: []string{root + "/otel.Observer.OnCall"}, Message: "mwotel.Observer.OnCall: removed", Member: true}, false},
		{root + "/openapi/validate", "./walk.Group: removed",
			finding{Ident: "walk.Group", Alt: []string{root + "/openapi/validate/walk.Group"}, Message: "walk.Group: removed"}, false},
		{root, "./cmd/mwallet-sim.Exported: removed", finding{}, true},
		{root + "/openapi/validate", "./cmd/x.Y: removed", finding{}, true},
		{root, "package " + root + "/cmd/mwallet-sim: removed", finding{}, true},
	}
	for _, tt := range tests {
		got, ok := classify(root, tt.mod, change{Message: tt.msg}, pkgs)
		if ok == tt.skip {
			t.Errorf("classify(%q): kept %v, want %v", tt.msg, ok, !tt.skip)
			continue
		}
		if tt.skip {
			continue
		}
		tt.want.Module = tt.mod
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("classify(%q) (-want +got):\n%s", tt.msg, diff)
		}
	}
}

// The decision: an incompatible change fails unless a Breaking item of
// [Unreleased] names it; compatible changes never fail; a Breaking item of
// a released section, or an item that is not marked Breaking, does not
// count.
func TestReportDecision(t *testing.T) {
	t.Parallel()
	retry := finding{Module: root, Ident: "mwallet.Error.RetryAfter", Alt: []string{root + ".Error.RetryAfter"}, Message: "mwallet.Error.RetryAfter: changed from int to time.Duration", Member: true}
	balance := finding{Module: root, Ident: "simulator.Simulator.Balance", Alt: []string{root + "/simulator.Simulator.Balance"}, Message: "simulator.Simulator.Balance: removed", Member: true}
	claim := finding{Module: root, Ident: "webhooks.Deduper.Claim", Alt: []string{root + "/webhooks.Deduper.Claim"}, Message: "webhooks.Deduper.Claim: added", Member: true}
	forget := finding{Module: root, Ident: "webhooks.MemoryDeduper.Forget", Alt: []string{root + "/webhooks.MemoryDeduper.Forget"}, Message: "webhooks.MemoryDeduper.Forget: removed", Member: true}
	added := finding{Module: root, Ident: "cards.NewThing", Message: "cards.NewThing: added", Compatible: true}
	changelogWith := func(items ...string) []changelog.Item {
		text := "# Changelog\n\n## [Unreleased]\n\n### Changed\n" + strings.Join(items, "\n") + "\n\n## [0.1.0]\n- Breaking: `mwallet.Error.RetryAfter`, `simulator.Simulator.Balance`.\n"
		s, err := changelog.Find(text, "Unreleased")
		if err != nil {
			t.Fatal(err)
		}
		return s.Breaking()
	}
	tests := []struct {
		name     string
		findings []finding
		items    []changelog.Item
		want     bool
		out      []string
	}{
		{"no change", nil, nil, true, []string{"apicompat: ok"}},
		{"compatible only", []finding{added}, nil, true, []string{"0 incompatible (0 not named in CHANGELOG.md), 1 compatible"}},
		{"break, no line", []finding{retry, added}, changelogWith("- Changed `mwallet.Error.RetryAfter` to a time.Duration."), false,
			[]string{"FAIL        mwallet.Error.RetryAfter: changed from int to time.Duration  (no Breaking item of [Unreleased] names mwallet.Error.RetryAfter)", "1 incompatible change(s) not named"}},
		{"break, named", []finding{retry}, changelogWith("- Breaking: `mwallet.Error.RetryAfter` is a time.Duration."), true,
			[]string{"ok          mwallet.Error.RetryAfter: changed from int to time.Duration  (Breaking, CHANGELOG.md:6)"}},
		{"break, named by import path", []finding{retry}, changelogWith("- Breaking: `github.com/mwallet/mwallet-go.Error.RetryAfter`."), true, nil},
		{"break, only the type named", []finding{retry}, changelogWith("- Breaking: `mwallet.Error` changed."), false, nil},
		{"members named by their type and names", []finding{claim, forget}, changelogWith("- Breaking: `webhooks.Deduper` is `Claim(ctx, id)` instead of `FirstSeen` and `Forget`;", "  `MemoryDeduper` implements it."), false,
			[]string{"ok          webhooks.Deduper.Claim: added  (Breaking, CHANGELOG.md:6)", "FAIL        webhooks.MemoryDeduper.Forget: removed"}},
		{"members named, the other type qualified", []finding{claim, forget}, changelogWith("- Breaking: `webhooks.Deduper` is `Claim(ctx, id)` instead of `FirstSeen` and `Forget`;", "  `webhooks.MemoryDeduper` implements it."), true, nil},
		{"a member's name as a part of another word", []finding{claim}, changelogWith("- Breaking: `webhooks.Deduper` has `ClaimAll`."), false, nil},
		{"two breaks, one named", []finding{retry, balance}, changelogWith("- Breaking: `(*simulator.Simulator).Balance` removed: use `sim.Members.Balance`."), false,
			[]string{"2 incompatible (1 not named in CHANGELOG.md)", "ok          simulator.Simulator.Balance: removed", "FAIL        mwallet.Error.RetryAfter"}},
		{"two breaks in one item", []finding{retry, balance}, changelogWith("- Breaking: `mwallet.Error.RetryAfter` is a time.Duration, and", "  `simulator.Simulator.Balance` is removed."), true, nil},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		if got := report(&out, tt.findings, tt.items, false, 5); got != tt.want {
			t.Errorf("%s: report = %v, want %v\n%s", tt.name, got, tt.want, out.String())
		}
		for _, s := range tt.out {
			if !strings.Contains(out.String(), s) {
				t.Errorf("%s: output lacks %q:\n%s", tt.name, s, out.String())
			}
		}
	}
}

// Wrong flags exit 2 before anything runs.
func TestFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-nope"}, {"extra"}} {
		var out, errb bytes.Buffer
		if code := run(t.Context(), args, &out, &errb); code != 2 {
			t.Errorf("apicompat %q: exit %d, want 2 (%s)", args, code, errb.String())
		}
	}
}
