package mwclient_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

func TestNewRefusesBadArgumentsAndSendsNothing(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		base  string
		creds mwallet.Credentials
	}{
		"no base URL":    {"", mwallet.Credentials{ClientID: "c", APIKey: "k", SigningKey: "s"}},
		"ftp scheme":     {"ftp://example.com", mwallet.Credentials{ClientID: "c", APIKey: "k", SigningKey: "s"}},
		"no client id":   {"https://example.com", mwallet.Credentials{APIKey: "k", SigningKey: "s"}},
		"no signing key": {"https://example.com", mwallet.Credentials{ClientID: "c", APIKey: "k"}},
	} {
		c, err := mwclient.New(tc.base, tc.creds)
		var pe *mwallet.ParamError
		if c != nil || !errors.As(err, &pe) {
			t.Errorf("%s: client %v, error %v; want no client and a *mwallet.ParamError", name, c, err)
		}
	}
}

// Every product line is wired to the one root client: a call through each
// reaches the same simulator with the same token.
func TestEveryProductLineSharesTheRootClient(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	client := sim.Client()
	ctx := context.Background()
	if client.QRPay == nil || client.Cards == nil || client.Remittances == nil || client.Deposits == nil ||
		client.KYC == nil || client.Members == nil || client.Webhooks == nil || client.Client == nil {
		t.Fatalf("a product line is not wired: %#v", *client)
	}
	if _, err := client.Assets(ctx); err != nil { // promoted from the root client
		t.Fatal(err)
	}
	if _, err := client.KYC.Get(ctx, "member-1"); err != nil {
		t.Fatal(err)
	}
	for _, err := range client.Webhooks.List(ctx, mwallet.ListParams{}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	exchanges := 0
	for _, r := range sim.Requests.List() {
		if r.Path == "/v1/connect/token" {
			exchanges++
		}
	}
	if exchanges != 1 {
		t.Errorf("%d token exchanges across product lines, want 1", exchanges)
	}
}

// The aggregate prints like the root client: base URL and client id only.
func TestClientNeverPrintsCredentials(t *testing.T) {
	t.Parallel()
	creds := mwallet.Credentials{ClientID: "client-1", APIKey: "apikey-SECRET", SigningKey: "signkey-SECRET"}
	c, err := mwclient.New("https://api.example.com", creds)
	if err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		for _, v := range []any{c, *c} {
			if out := fmt.Sprintf(verb, v); strings.Contains(out, "SECRET") || !strings.Contains(out, "client-1") {
				t.Errorf("%s of %T = %s", verb, v, out)
			}
		}
	}
}
