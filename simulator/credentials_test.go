package simulator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
	"github.com/mwallet/mwallet-go/webhooks"
)

// The simulator's credentials reach the SDK's types without a conversion:
// WebhookSecretValue is what a webhook receiver takes, ClientCredentials what
// a client takes. The credentials' JSON (the control API's) is unchanged and
// the secrets stay hidden from fmt.
func TestCredentialsGiveTheSDKTypes(t *testing.T) {
	t.Parallel()
	sim, _ := simtest.New(t)
	creds := sim.Credentials()

	raw, err := json.Marshal(creds)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"client_id": simulator.DefaultClientID, "api_key": simulator.DefaultAPIKey, "signing_key": simulator.DefaultSigningKey,
		"webhook_secret": simulator.DefaultWebhookSecret, "merchant_id": simulator.DefaultMerchantID,
		"model": "platform_hosted", "environment": "sandbox",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("credentials JSON (-want +got):\n%s", diff)
	}

	secret := creds.WebhookSecretValue()
	if secret.Reveal() != simulator.DefaultWebhookSecret {
		t.Errorf("WebhookSecretValue reveals %q", secret.Reveal())
	}
	cc := creds.ClientCredentials()
	if cc.ClientID != simulator.DefaultClientID || cc.APIKey.Reveal() != simulator.DefaultAPIKey || cc.SigningKey.Reveal() != simulator.DefaultSigningKey {
		t.Errorf("ClientCredentials = %s", cc)
	}
	for _, s := range []string{fmt.Sprintf("%v %+v %#v %s", secret, cc, cc, cc), fmt.Sprint(creds)} {
		for _, v := range []string{simulator.DefaultWebhookSecret, simulator.DefaultAPIKey, simulator.DefaultSigningKey} {
			if strings.Contains(s, v) {
				t.Errorf("a secret printed: %s", s)
			}
		}
	}

	// A client built from ClientCredentials signs writes the simulator accepts.
	client, err := mwclient.New(sim.URL(), cc, mwallet.WithClockSource(sim.Clock))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.KYC.ProfileSession(context.Background(), simulator.DefaultMemberExternalID); err != nil {
		t.Fatalf("a signed write with ClientCredentials: %v", err)
	}

	// A receiver built from WebhookSecretValue verifies the deliveries.
	var received []webhooks.EventType
	recv := httptest.NewServer(webhooks.Handler(secret, func(_ context.Context, ev webhooks.Event) error {
		received = append(received, ev.EventType)
		return nil
	}, webhooks.WithClock(sim.Clock.Now)))
	defer recv.Close()
	if _, _, err := sim.Webhooks.AddEndpoint(recv.URL, string(webhooks.EventMemberSuspended)); err != nil {
		t.Fatal(err)
	}
	if err := sim.Members.SetStatus(simulator.DefaultMemberExternalID, "suspended"); err != nil {
		t.Fatal(err)
	}
	res, err := sim.Webhooks.Flush(context.Background())
	if err != nil || res.Succeeded != 1 {
		t.Fatalf("flush %+v, %v", res, err)
	}
	if diff := cmp.Diff([]webhooks.EventType{webhooks.EventMemberSuspended}, received); diff != "" {
		t.Errorf("received (-want +got):\n%s", diff)
	}
}
