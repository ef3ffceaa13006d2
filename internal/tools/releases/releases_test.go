package releases

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const c1, c2 = "0123456789abcdef0123456789abcdef01234567", "89abcdef0123456789abcdef0123456789abcdef"

func TestParse(t *testing.T) {
	t.Parallel()
	got, err := Parse("# comment\n\n# No release yet.\n")
	if err != nil || len(got) != 0 {
		t.Fatalf("comments only: %v, %v", got, err)
	}
	got, err = Parse("# releases\n" + Line("v0.1.0", c1) + "  " + Line("v0.2.0-rc.1", c2))
	if err != nil {
		t.Fatal(err)
	}
	want := []Release{{Version: "v0.1.0", Commit: c1, Line: 2}, {Version: "v0.2.0-rc.1", Commit: c2, Line: 3}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, bad := range []struct{ text, want string }{
		{"0.1.0 " + c1, `RELEASES:1: "0.1.0 `},
		{"v0.1.0 " + c1[:12], "is not \"VERSION COMMIT\""},
		{"v0.1.0 " + strings.ToUpper(c1), "is not"},
		{"v0.1.0 " + c1 + " extra", "is not"},
		{"v0.1 " + c1, "is not"},
		{Line("v0.2.0", c1) + Line("v0.1.0", c2), "RELEASES:2: v0.1.0 does not follow v0.2.0"},
		{Line("v0.1.0", c1) + Line("v0.1.0", c2), "does not follow"},
	} {
		if _, err := Parse(bad.text); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", bad.text, err, bad.want)
		}
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	ordered := []string{"v0.1.0-alpha", "v0.1.0-alpha.1", "v0.1.0-alpha.beta", "v0.1.0-beta.2", "v0.1.0-beta.11", "v0.1.0-rc.1", "v0.1.0", "v0.1.1", "v0.2.0", "v0.10.0", "v1.0.0"}
	for i := range ordered {
		for j := range ordered {
			want := cmpInt(i, j)
			if got := Compare(ordered[i], ordered[j]); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
}

// The file committed at the root parses.
func TestTheRepositorysFile(t *testing.T) {
	t.Parallel()
	if _, err := Read("../../../" + File); err != nil {
		t.Fatal(err)
	}
}
