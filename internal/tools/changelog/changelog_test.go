package changelog

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sample = `# Changelog

Intro.

## [Unreleased]

### Changed
- Breaking: ` + "`mwallet.Error.RetryAfter`" + ` is a time.Duration;
  it was int seconds, so ` + "`e.RetryAfter != 1`" + ` no longer compiles.
- **Breaking**: ` + "`(*simulator.Simulator).Balance`" + ` removed.
- A compatible change that mentions ` + "`mwallet.Client`" + `.
  - Breaking, nested: ` + "`cards.ListParams`" + ` removed.

Breaking changes to package simulator (a paragraph, not an item): ` + "`simulator.Ledger`" + `.

### Removed
* BREAKING is not the mark: ` + "`qrpay.StepUp`" + `.
- Not breaking: ` + "`remittance.PayeeResult`" + `.

## [0.1.0] - 2026-12-01

### Added
- Breaking: ` + "`mwallet.Old`" + ` (a released section does not count).
`

func TestSections(t *testing.T) {
	t.Parallel()
	var got []string
	for _, s := range Sections(sample) {
		got = append(got, s.Name)
	}
	if diff := cmp.Diff([]string{"Unreleased", "0.1.0"}, got); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}
	s, err := Find(sample, "v0.1.0")
	if err != nil || s.Line != 20 {
		t.Fatalf("Find(v0.1.0) = line %d, %v; want 20", s.Line, err)
	}
	if want := "### Added\n- Breaking: `mwallet.Old` (a released section does not count).\n"; s.Body() != want {
		t.Errorf("Body = %q, want %q", s.Body(), want)
	}
	if _, err := Find(sample, "0.2.0"); err == nil {
		t.Error("Find(0.2.0): no error")
	}
	if _, err := Find("# Changelog\n", "Unreleased"); err == nil {
		t.Error("Find in a changelog without sections: no error")
	}
}

// Items wrap over lines; Breaking takes the items whose text starts with
// the word Breaking, plain or bold, nested ones included, and nothing else:
// not a paragraph, not BREAKING, not an item that only contains the word,
// not another section's.
func TestBreaking(t *testing.T) {
	t.Parallel()
	s, err := Find(sample, "unreleased")
	if err != nil {
		t.Fatal(err)
	}
	want := []Item{
		{Line: 8, Text: "Breaking: `mwallet.Error.RetryAfter` is a time.Duration; it was int seconds, so `e.RetryAfter != 1` no longer compiles."},
		{Line: 10, Text: "**Breaking**: `(*simulator.Simulator).Balance` removed."},
		{Line: 12, Text: "Breaking, nested: `cards.ListParams` removed."},
	}
	if diff := cmp.Diff(want, s.Breaking()); diff != "" {
		t.Errorf("Breaking (-want +got):\n%s", diff)
	}
	if n := len(s.Items()); n != 6 {
		t.Errorf("%d items, want 6: %v", n, s.Items())
	}
}

// An identifier is named only in full: not as a part of a longer name, and
// a method's receiver may be written as Go prints it.
func TestNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text, ident string
		want        bool
	}{
		{"Breaking: `mwallet.Error.RetryAfter` is a Duration", "mwallet.Error.RetryAfter", true},
		{"Breaking: mwallet.Error.RetryAfter.", "mwallet.Error.RetryAfter", true},
		{"Breaking: mwallet.Error.RetryAfter", "mwallet.Error.RetryAfter", true},
		{"Breaking: `mwallet.Error.RetryAfter`", "mwallet.Error", false},
		{"Breaking: `mwallet.ErrorCode` renamed", "mwallet.Error", false},
		{"Breaking: `xmwallet.Error` renamed", "mwallet.Error", false},
		{"Breaking: `github.com/x/mwallet.Error`", "mwallet.Error", false},
		{"Breaking: `(*simulator.Simulator).Balance` removed", "simulator.Simulator.Balance", true},
		{"Breaking: `(simulator.Simulator).Balance` removed", "simulator.Simulator.Balance", true},
		{"Breaking: `simulator.Simulator.Balance` removed", "simulator.Simulator.Balance", true},
		{"Breaking: `simulator.Simulator.BalanceOf` removed", "simulator.Simulator.Balance", false},
		{"Breaking: `github.com/mwallet/mwallet-go/simulator.Ledger` removed", "github.com/mwallet/mwallet-go/simulator.Ledger", true},
		{"Breaking: package `simulator/emvqr` removed", "simulator/emvqr", true},
		{"Breaking: package `simulator/emvqr2` removed", "simulator/emvqr", false},
		{"Breaking: `Ledger` removed", "simulator.Ledger", false},
		{"Breaking: nothing", "", false},
	}
	for _, tt := range tests {
		if got := Names(tt.text, tt.ident); got != tt.want {
			t.Errorf("Names(%q, %q) = %v, want %v", tt.text, tt.ident, got, tt.want)
		}
	}
}

// A member is named in full, or by its type in full and its name as a
// word of its own.
func TestNamesMember(t *testing.T) {
	t.Parallel()
	const item = "Breaking: `webhooks.Deduper` is `Claim(ctx, id, now, lease)` and `Done` instead of `FirstSeen` and `Forget`; `MemoryDeduper` implements it, and `redisstore.Deduper`."
	tests := []struct {
		typ, member string
		want        bool
	}{
		{"webhooks.Deduper", "Claim", true},
		{"webhooks.Deduper", "Done", true},
		{"webhooks.Deduper", "FirstSeen", true},
		{"webhooks.Deduper", "Release", false},
		{"webhooks.Deduper", "Dedupe", false},
		{"webhooks.MemoryDeduper", "Forget", false},
		{"redisstore.Deduper", "Forget", true},
		{"webhooks.Handler", "Claim", false},
	}
	for _, tt := range tests {
		if got := NamesMember(item, tt.typ, tt.member); got != tt.want {
			t.Errorf("NamesMember(%s, %s) = %v, want %v", tt.typ, tt.member, got, tt.want)
		}
	}
	if !NamesMember("Breaking: `mwallet.Error.RetryAfter` is a Duration", "mwallet.Error", "RetryAfter") {
		t.Error("a member named in full")
	}
}
