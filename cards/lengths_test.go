package cards_test

import (
	"errors"
	"strings"
	"testing"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// TestFilterLengthsCountCharacters: auth_code, kind and status are "at most
// 64 characters". A filter of 64 two-, three- or four-byte characters (up to
// 256 bytes) is sent, and the service accepts it (an empty list); 65 are
// refused locally, before anything is sent.
func TestFilterLengthsCountCharacters(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	card := issueVirtual(t, sim, cl, "")
	set := map[string]func(*cards.TransactionListParams, string){
		"auth_code": func(f *cards.TransactionListParams, v string) { f.AuthCode = v },
		"kind":      func(f *cards.TransactionListParams, v string) { f.Kind = cards.TransactionKind(v) },
		"status":    func(f *cards.TransactionListParams, v string) { f.Status = cards.TransactionStatus(v) },
	}
	for field, apply := range set {
		for _, ch := range []string{"a", "é", "€", "𝄞"} {
			for _, n := range []int{cards.MaxFilterLength, cards.MaxFilterLength + 1} {
				var f cards.TransactionListParams
				apply(&f, strings.Repeat(ch, n))
				before := len(sim.Requests.List())
				got, err := listTx(t, cl, card, f)
				sent := len(sim.Requests.List()) - before
				if n <= cards.MaxFilterLength {
					if err != nil || len(got) != 0 || sent != 1 {
						t.Errorf("%s of %d %q (%d bytes): %v, %d rows, %d requests; want an empty list from the service",
							field, n, ch, n*len(ch), err, len(got), sent)
					}
					continue
				}
				var pe *mwallet.ParamError
				if !errors.As(err, &pe) || pe.Param != field || sent != 0 {
					t.Errorf("%s of %d %q: %v after %d requests, want a local *ParamError", field, n, ch, err, sent)
				}
			}
		}
	}
	checkBooks(t, sim)
}
