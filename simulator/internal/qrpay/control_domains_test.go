package qrpay

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/simulator/internal/control/controltest"
)

// TestControlDomains: the line's domains, by key and name, and their
// lookups of ids the line does not have.
func TestControlDomains(t *testing.T) {
	t.Parallel()
	svc := newServices()
	tx := svc.Begin()
	defer tx.End()
	l := New(svc.Kernel(), tx, newFakeHost())
	doms := ControlDomains(controltest.At[Line])
	got := map[string]string{}
	var keys []string
	for k, d := range doms {
		got[k] = d.Name
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if diff := cmp.Diff(map[string]string{"qr_scenario": "QR scenario", "qr_order": "QR payment order"}, got); diff != "" {
		t.Errorf("domains (-want +got):\n%s", diff)
	}
	x := controltest.Run[Line]{Line: l, Tx: tx}
	for _, k := range keys {
		if d := doms[k]; d.Object != nil && d.Object(x, "nonsense-0000") {
			t.Errorf("%s: an unknown id is found", k)
		}
	}
}
