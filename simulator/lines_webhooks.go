package simulator

import (
	"context"

	hookline "github.com/mwallet/mwallet-go/simulator/internal/webhooks"
)

// newWebhooksLine builds the webhook line; it exists before the fixture,
// whose events it queues.
func newWebhooksLine(s *Simulator) *hookline.Line {
	return hookline.New(&s.k, webhooksHost{st: &s.st, replaying: s.wiring.rec.Replaying, flush: func() {
		_, _ = s.wiring.delivery.flushWebhooks(context.Background())
	}}, deliveryTransport)
}

// webhookEndpointIn is the line's copy of a public endpoint config, the
// input of AddEndpointConfig.
func webhookEndpointIn(cfg WebhookEndpointConfig) *hookline.EndpointIn {
	return &hookline.EndpointIn{URL: cfg.URL, Events: cfg.Events, Environment: string(cfg.Environment), Secret: cfg.Secret}
}

// webhooksHost is the webhook line's webhooks.Host.
type webhooksHost struct {
	st *simState
	// replaying reports a recording being replayed (recorder.Replaying);
	// flush runs a flush of the due deliveries (deliverer.flushWebhooks).
	replaying func() bool
	flush     func()
}

// AutoFlush starts a background flush; the goroutine waits for the state
// lock, so it runs after the current request. A replay runs the flushes the
// recording holds instead.
func (h webhooksHost) AutoFlush() {
	if h.replaying() {
		return
	}
	go h.flush()
}
