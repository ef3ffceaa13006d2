package simulator

import mwallet "github.com/mwallet/mwallet-go"

// WebhookSecretValue returns WebhookSecret as an mwallet.Secret, the type
// the webhook receivers take, so the path from the simulator's credentials to
// a verifier needs no conversion:
//
//	h := webhooks.Handler(sim.Credentials().WebhookSecretValue(), handle, webhooks.WithClock(sim.Clock.Now))
//
// (sim.Webhooks.Handler builds that receiver in one call.)
func (c Credentials) WebhookSecretValue() mwallet.Secret { return mwallet.Secret(c.WebhookSecret) }

// ClientCredentials returns ClientID, APIKey and SigningKey as the
// mwallet.Credentials an SDK client takes, for a client built by hand (for
// example against a standalone mwallet-sim, or with options sim.Client does
// not set):
//
//	client, err := mwclient.New(sim.URL(), sim.Credentials().ClientCredentials())
func (c Credentials) ClientCredentials() mwallet.Credentials {
	return mwallet.Credentials{ClientID: c.ClientID, APIKey: mwallet.Secret(c.APIKey), SigningKey: mwallet.Secret(c.SigningKey)}
}
