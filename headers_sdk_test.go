package mwallet_test

import (
	"context"
	"strings"
	"testing"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/simulator"
)

// TestSDKNeverSendsAContractHeaderTwice: the simulator refuses a request
// carrying a header of the contract twice (TestContractHeaderTable). The
// SDK owns those headers: a caller's WithHeader of any of them, in any case,
// is dropped, so a signed, keyed, member-scoped write (a deposit, always
// signed) still executes, for every header of the contract.
func TestSDKNeverSendsAContractHeaderTwice(t *testing.T) {
	t.Parallel()
	sim, client := newSim(t)
	for i, h := range simulator.ContractHeaders() {
		var out struct {
			ID string `json:"id"`
		}
		_, err := client.Do(context.Background(), &mwallet.Request{
			Method: "POST", Path: "/v1/deposits", MemberScoped: true, Member: simulator.DefaultMemberExternalID,
			Body:       map[string]string{"asset": "USDT", "amount": "1", "reference": "dup-" + strings.ToLower(h)},
			Idempotent: true,
		}, &out, mwallet.WithHeader(h, "caller-value"), mwallet.WithHeader(strings.ToLower(h), "caller-value-2"))
		if err != nil {
			t.Errorf("%d %s given by the caller: %v", i, h, err)
			continue
		}
		if out.ID == "" {
			t.Errorf("%s: no deposit id", h)
		}
	}
	if got := len(simulator.ContractHeaders()); got != 11 {
		t.Errorf("%d contract headers, want 11", got)
	}
	if n := countPath(sim, "/v1/deposits"); n != 11 {
		t.Errorf("%d deposits sent, want 11 (one per header, no retry)", n)
	}
}
