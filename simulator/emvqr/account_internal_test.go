package emvqr

import "testing"

// TestEverySchemeReadsItsAccount: every scheme this package recognises has
// a reader of its account template, so no scheme's payee falls back to a
// raw sub-object (the payee table of package qrpay has rows for each).
func TestEverySchemeReadsItsAccount(t *testing.T) {
	t.Parallel()
	for _, s := range Schemes() {
		if accountReaders[s.ID] == nil {
			t.Errorf("scheme %q has no account reader", s.ID)
		}
	}
	if len(accountReaders) != len(Schemes()) {
		t.Errorf("%d readers for %d schemes", len(accountReaders), len(Schemes()))
	}
}
