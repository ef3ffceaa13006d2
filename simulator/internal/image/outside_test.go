package image

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// outsideProbe has a field of every kind the outside image writes or
// leaves out.
type outsideProbe struct {
	n      int
	name   string
	at     time.Time
	shared *outsideLeaf
	again  *outsideLeaf
	byKey  map[string]int
	list   []bool
	owner  *outsideLeaf // named in skip
	mu     *sync.Mutex
	hook   func()
	anyVal any
}

type outsideLeaf struct{ v uint8 }

// TestOutsideWritesEveryValueOnce: the outside image names each value by
// its path, reads unexported fields, writes a pointer reached twice once,
// sorts a map's entries, and leaves out locks, functions, interfaces and
// the fields skip names.
func TestOutsideWritesEveryValueOnce(t *testing.T) {
	t.Parallel()
	leaf := &outsideLeaf{v: 7}
	p := &outsideProbe{
		n: -3, name: "a b", at: time.Unix(5, 0), shared: leaf, again: leaf,
		byKey: map[string]int{"z": 1, "a": 2}, list: []bool{true},
		owner: &outsideLeaf{v: 9}, mu: &sync.Mutex{}, hook: func() {}, anyVal: 1,
	}
	got := strings.Split(strings.TrimSuffix(string(Outside(p, map[string]bool{"outsideProbe.owner": true})()), "\n"), "\n")
	want := []string{
		"st.n = -3",
		`st.name = "a b"`,
		"st.at = " + got[2][len("st.at = "):], // the wall and monotonic words, by kind
		"st.shared.v = 7",
		"st.byKey.len = 2",
		`st.byKey["a"] = 2`,
		`st.byKey["z"] = 1`,
		"st.list.len = 1",
		"st.list[0] = true",
	}
	if !strings.HasPrefix(got[2], "st.at = time ") {
		t.Errorf("time written as %q", got[2])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outside image (-want +got):\n%s", diff)
	}
	before := string(Outside(p, nil)())
	p.n++
	if string(Outside(p, nil)()) == before {
		t.Error("a changed unexported field left the outside image as it was")
	}
}
