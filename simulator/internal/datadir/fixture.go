package datadir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Fixture is what shapes a simulator's fixture in the configuration of a
// data directory's log, as plain values: a directory is opened only with
// the options its log was started with (the rest of the configuration is
// the log's).
type Fixture struct {
	Model, Environment, ClientID, APIKey, SigningKey, WebhookSecret, MerchantID string

	Seed int64
	// Members are the seeded members, compared by their JSON.
	Members         any
	NoFixtureMember bool
}

// Same reports how f, a data directory's fixture, differs from o, the one
// of the options given now (naming the settings, never showing a
// credential); nil when they are the same.
func (f Fixture) Same(o Fixture) error {
	var diff []string
	add := func(name string, same bool) {
		if !same {
			diff = append(diff, name)
		}
	}
	add("model", f.Model == o.Model)
	add("environment", f.Environment == o.Environment)
	add("client id", f.ClientID == o.ClientID)
	add("API key", f.APIKey == o.APIKey)
	add("signing key", f.SigningKey == o.SigningKey)
	add("webhook secret", f.WebhookSecret == o.WebhookSecret)
	add("merchant id", f.MerchantID == o.MerchantID)
	add("seed", f.Seed == o.Seed)
	ma, _ := json.Marshal(f.Members)
	mb, _ := json.Marshal(o.Members)
	add("members", bytes.Equal(ma, mb) && f.NoFixtureMember == o.NoFixtureMember)
	if len(diff) > 0 {
		return fmt.Errorf("its log was started with another %s; start with the options it was started with, or use another directory", strings.Join(diff, ", "))
	}
	return nil
}
