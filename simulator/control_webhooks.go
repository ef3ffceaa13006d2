package simulator

import (
	"context"
)

// WebhooksControl manages webhook endpoints and deliveries (sim.Webhooks):
// endpoints and their secrets, flushing due deliveries, redelivery,
// automatic delivery. Control API: /_sim/webhooks/....
type WebhooksControl struct{ s *Simulator }

// Flush attempts every delivery that is due now on the simulator
// clock and returns when all attempts are done. Attempts are HTTP POSTs
// made without the simulator's lock, so receivers may call back into the
// simulator; deliveries that fall due during the flush (events emitted by
// those calls) are attempted too. Retries fall due as the clock advances
// (Clock.Advance), 1, 5, 30, 120 and 360 minutes after each failure; flush again
// to attempt them. A cancelled ctx stops the flush; an attempt cut short by
// the cancellation is not recorded and stays due.
func (w *WebhooksControl) Flush(ctx context.Context) (FlushResult, error) {
	return w.s.flushWebhooks(ctx)
}

// AddEndpoint registers an endpoint of the simulator's environment
// that receives the given event types (every event when none is given),
// signed with the merchant's webhook_secret credential. It returns the
// endpoint id and its secret. Control API: POST /_sim/webhooks/endpoints.
func (w *WebhooksControl) AddEndpoint(rawURL string, events ...string) (id, secret string, err error) {
	return call3(w.s, "Webhooks.AddEndpoint", func() (string, string, error) { return w.s.addWebhookEndpoint(rawURL, events...) }, rawURL, events)
}

// AddEndpointConfig registers an endpoint with its own environment or
// secret (see WebhookEndpointConfig) and returns its id and secret.
func (w *WebhooksControl) AddEndpointConfig(cfg WebhookEndpointConfig) (id, secret string, err error) {
	return call3(w.s, "Webhooks.AddEndpointConfig", func() (string, string, error) { return w.s.addWebhookEndpointConfig(cfg) }, cfg)
}

// RemoveEndpoint deletes an endpoint; its pending deliveries become
// no_subscriber. Control API: DELETE /_sim/webhooks/endpoints/{id}.
func (w *WebhooksControl) RemoveEndpoint(id string) error {
	return call1(w.s, "Webhooks.RemoveEndpoint", func() error { return w.s.removeWebhookEndpoint(id) }, id)
}

// DisableEndpoint stops deliveries to an endpoint; its pending
// deliveries become no_subscriber. Control API: POST
// /_sim/webhooks/endpoints/{id}/disable.
func (w *WebhooksControl) DisableEndpoint(id string) error {
	return call1(w.s, "Webhooks.DisableEndpoint", func() error { return w.s.disableWebhookEndpoint(id) }, id)
}

// EnableEndpoint re-enables a disabled endpoint for events queued from
// now on (rows already turned no_subscriber stay so until redelivered).
// Control API: POST /_sim/webhooks/endpoints/{id}/enable.
func (w *WebhooksControl) EnableEndpoint(id string) error {
	return call1(w.s, "Webhooks.EnableEndpoint", func() error { return w.s.enableWebhookEndpoint(id) }, id)
}

// Endpoints returns the configured endpoints in creation order.
// Control API: GET /_sim/webhooks/endpoints.
func (w *WebhooksControl) Endpoints() []WebhookEndpoint {
	return w.s.webhookEndpoints()
}

// Deliveries returns every delivery row with its attempts, in the
// order the rows were created. Control API: GET /_sim/webhooks/deliveries.
func (w *WebhooksControl) Deliveries() []WebhookDelivery {
	return w.s.webhookDeliveries()
}

// SetAutoDeliver switches automatic delivery on or off (default
// off). When on, queuing a delivery starts a background flush that runs as
// soon as the request that emitted the event has finished; attempt times
// still follow the simulator clock, and retries still wait for the clock to
// advance and a flush. Off keeps tests deterministic: deliveries happen
// exactly when Flush is called. Control API: POST /_sim/webhooks/auto
// with {"enabled": true}.
func (w *WebhooksControl) SetAutoDeliver(on bool) {
	call0(w.s, "Webhooks.SetAutoDeliver", func() { w.s.setWebhookAutoDeliver(on) }, on)
}

// Redeliver queues a dead, failed or no_subscriber delivery row for
// one more attempt at the next flush, as POST
// /v1/webhooks/deliveries/{id}/redeliver does for the merchant (id with or
// without whd_). Control API: POST /_sim/webhooks/deliveries/{id}/redeliver.
func (w *WebhooksControl) Redeliver(id string) error {
	return call1(w.s, "Webhooks.Redeliver", func() error { return w.s.redeliverWebhook(id) }, id)
}
