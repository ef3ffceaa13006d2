package outcomes

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestParseMode reads every form of a mode, refuses the rest with their
// wording, and writes each mode it reads back as String names it.
func TestParseMode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, str string
		want    Mode
		err     string
	}{
		{in: "", str: "manual", want: Mode{Kind: Manual}},
		{in: "manual", str: "manual", want: Mode{Kind: Manual}},
		{in: "immediate", str: "immediate", want: Mode{Kind: Immediate}},
		{in: "after:30s", str: "after:30s", want: Mode{Kind: After, After: 30 * time.Second}},
		{in: "after:0s", str: "after:0s", want: Mode{Kind: After}},
		{in: "after:1h30m", str: "after:1h30m0s", want: Mode{Kind: After, After: 90 * time.Minute}},
		{in: "after:-1s", err: `bad outcome duration "after:-1s"`},
		{in: "after:soon", err: `bad outcome duration "after:soon"`},
		{in: "later", err: `unknown outcome mode "later" (manual, immediate, after:<duration>)`},
		{in: "Manual", err: `unknown outcome mode "Manual" (manual, immediate, after:<duration>)`},
	} {
		got, err := ParseMode(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("ParseMode(%q) = %v, %v; want error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseMode(%q): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParseMode(%q) (-want +got):\n%s", tc.in, diff)
		}
		if s := got.String(); s != tc.str {
			t.Errorf("ParseMode(%q).String() = %q, want %q", tc.in, s, tc.str)
		}
	}
}

// TestModeString names the zero mode manual and an unknown kind by itself.
func TestModeString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		m    Mode
		want string
	}{
		{Mode{}, "manual"},
		{Mode{Kind: After, After: time.Minute}, "after:1m0s"},
		{Mode{Kind: "odd"}, "odd"},
	} {
		if got := tc.m.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.m, got, tc.want)
		}
	}
}
