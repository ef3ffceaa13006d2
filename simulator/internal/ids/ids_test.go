package ids

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// draws returns what a generator of seeds (1, 2) draws first: two UUIDs,
// an IntN and a Uint64, and what a copy taken before them drew.
func draws(t *testing.T) []any {
	t.Helper()
	k := new(kernel.Kernel)
	g := New(k, "ids.test", 1, 2)
	tx := k.BeginSetup()
	defer tx.End()
	c := g.Copy(tx)
	return []any{g.UUID(tx), g.UUID(tx), g.IntN(tx, 1000), g.Uint64(tx), c.Uint64()}
}

// TestGeneratorIsSeeded: the same seeds draw the same values, a UUID is a
// version 4 one, and Copy reads ahead without drawing.
func TestGeneratorIsSeeded(t *testing.T) {
	t.Parallel()
	a, b := draws(t), draws(t)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two generators of the same seeds differ (-first +second):\n%s", diff)
	}
	v4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	for _, u := range a[:2] {
		if !v4.MatchString(u.(string)) {
			t.Errorf("UUID %q is not of version 4", u)
		}
	}
	if a[0] == a[1] {
		t.Errorf("two draws gave the same UUID %s", a[0])
	}
	k := new(kernel.Kernel)
	g := New(k, "ids.test", 1, 2)
	tx := k.BeginSetup()
	defer tx.End()
	c := g.Copy(tx)
	want := c.Uint64()
	if got := g.Copy(tx).Uint64(); got != want {
		t.Errorf("Copy drew: a second copy reads %d, the first %d", got, want)
	}
}
