package remittance_test

import (
	"context"
	"strings"
	"testing"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
)

const member1 = simulator.DefaultMemberExternalID

// payeeOf returns the member's first payee in currency.
func payeeOf(t *testing.T, c *mwclient.Client, member, currency string) remittance.Payee {
	t.Helper()
	for p, err := range c.Remittances.Payees(context.Background(), member, mwallet.ListParams{}) {
		if err != nil {
			t.Fatalf("Payees: %v", err)
		}
		if p.Currency == currency {
			return p
		}
	}
	t.Fatalf("member %s has no %s payee", member, currency)
	return remittance.Payee{}
}

func listOrders(t *testing.T, c *mwclient.Client, member string) []remittance.Order {
	t.Helper()
	var out []remittance.Order
	for o, err := range c.Remittances.List(context.Background(), member, mwallet.ListParams{}) {
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		out = append(out, o)
	}
	return out
}

func fieldKeys(e *mwallet.Error) string {
	var keys []string
	for _, f := range e.Fields {
		keys = append(keys, f.Key)
	}
	return strings.Join(keys, ",")
}
