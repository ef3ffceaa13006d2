package webhooks

import "github.com/mwallet/mwallet-go/internal/api"

// Deliveries is the webhook deliveries sub-client (redeliver, list). Get it
// from mwallet.Client.
type Deliveries struct {
	caller api.Caller
}

// NewDeliveries returns a deliveries client that sends its calls through c.
func NewDeliveries(c api.Caller) *Deliveries { return &Deliveries{caller: c} }
