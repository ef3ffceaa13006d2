package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSeeds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want []uint64
		bad  bool
	}{
		{in: "1", want: []uint64{1}},
		{in: "1,2,3", want: []uint64{1, 2, 3}},
		{in: "1-4", want: []uint64{1, 2, 3, 4}},
		{in: "7, 1-2", want: []uint64{7, 1, 2}},
		{in: "", bad: true},
		{in: "4-1", bad: true},
		{in: "x", bad: true},
		{in: "1-", bad: true},
		{in: "-3", bad: true},
	} {
		got, err := parseSeeds(tc.in)
		if (err != nil) != tc.bad {
			t.Errorf("%q: error %v, want an error: %v", tc.in, err, tc.bad)
			continue
		}
		if diff := cmp.Diff(tc.want, got); !tc.bad && diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.in, diff)
		}
	}
}
