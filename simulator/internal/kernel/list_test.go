package kernel

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSortedSet(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   map[string]bool
		want []string
	}{
		{"nil", nil, nil},
		{"none set", map[string]bool{"a": false}, nil},
		{"sorted", map[string]bool{"c": true, "a": true, "b": true}, []string{"a", "b", "c"}},
		{"unset left out", map[string]bool{"b": true, "a": false}, []string{"b"}},
	} {
		got := SortedSet(tc.in)
		if diff := cmp.Diff(tc.want, got.Slice()); diff != "" {
			t.Errorf("%s: SortedSet (-want +got):\n%s", tc.name, diff)
		}
	}
}
