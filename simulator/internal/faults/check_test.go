package faults

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// TestCheck: a fault is refused for an unknown kind, a relative path, a
// negative count or one_in, a status outside 400-599, or a delay out of
// range or missing without a Hold channel, each with its message.
func TestCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		row  Row
		hold bool
		want string
	}{
		{Row{Kind: "error", Path: "/v1/x"}, false, ""},
		{Row{Kind: "boom", Path: "/v1/x"}, false, `fault kind "boom": want error, error_after, drop_before, drop_after or delay`},
		{Row{Kind: "error", Path: "v1/x"}, false, `fault path "v1/x" must start with /`},
		{Row{Kind: "error", Path: "/", Count: -1}, false, "fault count -1 is negative"},
		{Row{Kind: "error", Path: "/", OneIn: -2}, false, "fault one_in -2 is negative"},
		{Row{Kind: "error", Path: "/", Status: 302}, false, "fault status 302: want 400 to 599"},
		{Row{Kind: "delay", Path: "/", DelayMS: 60_001}, false, "fault delay_ms 60001: want 1 to 60000"},
		{Row{Kind: "delay", Path: "/"}, false, "a delay fault needs delay_ms"},
		{Row{Kind: "delay", Path: "/"}, true, ""},
		{Row{Kind: "drop_after", Path: "/", DelayMS: -5}, false, ""},
	} {
		got := ""
		if err := tc.row.Check(tc.hold); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%+v hold %v: %q, want %q", tc.row, tc.hold, got, tc.want)
		}
	}
}

// TestArmedAndListed: a fault without a Count applies once, or without
// limit when it is random; a listing reports what remains, 0 for no limit.
func TestArmedAndListed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want Row }{
		{Row{}, Row{Count: 1}},
		{Row{OneIn: 1}, Row{Count: 1, OneIn: 1}},
		{Row{OneIn: 4}, Row{OneIn: 4, Unlimited: true}},
		{Row{Count: 3, OneIn: 4}, Row{Count: 3, OneIn: 4}},
	} {
		if diff := cmp.Diff(tc.want, tc.in.Armed()); diff != "" {
			t.Errorf("Armed(%+v) (-want +got):\n%s", tc.in, diff)
		}
	}
	k := new(kernel.Kernel)
	tab := New(k)
	tx := k.BeginSetup()
	defer tx.End()
	tab.Arm(tx, Row{Path: "/a", Kind: "error", Count: 2}.Armed())
	tab.Arm(tx, Row{Path: "/b", Kind: "delay", OneIn: 3}.Armed())
	tab.Take(tx, "GET", "/a", func(n, oneIn int) bool { return true })
	type listed struct {
		Path  string
		Count int
	}
	var got []listed
	for r := range tab.Listed(tx) {
		got = append(got, listed{r.Path, r.Count})
	}
	if diff := cmp.Diff([]listed{{"/a", 1}, {"/b", 0}}, got); diff != "" {
		t.Errorf("Listed (-want +got):\n%s", diff)
	}
}
