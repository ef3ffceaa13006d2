package stepup

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/simulator/internal/control/controltest"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
)

// TestControlDomains: the line's domains, by key and name, and their
// lookups of ids the line does not have.
func TestControlDomains(t *testing.T) {
	t.Parallel()
	svc := kerneltest.New()
	tx := svc.Begin()
	defer tx.End()
	l := new(Line)
	l.Init(svc.Kernel(), &fakeHost{max: 10})
	doms := ControlDomains(controltest.At[Line])
	got := map[string]string{}
	var keys []string
	for k, d := range doms {
		got[k] = d.Name
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if diff := cmp.Diff(map[string]string{"challenge": "step-up challenge"}, got); diff != "" {
		t.Errorf("domains (-want +got):\n%s", diff)
	}
	x := controltest.Run[Line]{Line: l, Tx: tx}
	for _, k := range keys {
		if d := doms[k]; d.Object != nil && d.Object(x, "nonsense-0000") {
			t.Errorf("%s: an unknown id is found", k)
		}
	}
}
