package cards

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
	f := newFixture(t)
	l, tx := f.l, f.tx
	doms := ControlDomains(controltest.At[Line])
	got := map[string]string{}
	var keys []string
	for k, d := range doms {
		got[k] = d.Name
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if diff := cmp.Diff(map[string]string{"card_status": "card status", "secure_session": "secure session", "card": "card", "card_application": "card application", "card_topup": "card top-up", "card_product": "card product"}, got); diff != "" {
		t.Errorf("domains (-want +got):\n%s", diff)
	}
	x := controltest.Run[Line]{Line: l, Tx: tx}
	for _, k := range keys {
		if d := doms[k]; d.Object != nil && d.Object(x, "nonsense-0000") {
			t.Errorf("%s: an unknown id is found", k)
		}
	}
	if diff := cmp.Diff(Statuses(), doms["card_status"].Choices(x), cmp.Transformer("sort", func(s []string) []string { s = append([]string{}, s...); sort.Strings(s); return s })); diff != "" {
		t.Errorf("card statuses (-want +got):\n%s", diff)
	}
}
