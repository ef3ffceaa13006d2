package simulator

import (
	"context"
	"errors"
	"net/http"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	hookline "github.com/mwallet/mwallet-go/simulator/internal/webhooks"
	"github.com/mwallet/mwallet-go/webhooks"
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
//
// When any attempt failed (a receiver answered other than 2xx, or did not
// answer), Flush returns the result and a *FlushError listing each failed
// attempt with the receiver's status and the beginning of its answer, and a
// hint when the answers show a likely cause: a test that flushes and checks
// the error cannot miss a receiver that refuses every delivery. A test that
// makes a receiver fail on purpose (an outage, the retry schedule) reads
// FlushResult.Failures, or the *FlushError, instead. POST
// /_sim/webhooks/flush answers 200 with the same result (failures and hint
// included).
func (w *WebhooksControl) Flush(ctx context.Context) (FlushResult, error) {
	return w.s.wiring.delivery.flushWebhooks(ctx)
}

// FlushExpectingFailures is Flush for a test in which receivers fail on
// purpose (an outage, the retry schedule, a dead delivery): the failed
// attempts are in the result (Failed, Failures, Hint) and are not an
// error. The error is that of the flush itself only: a cancelled ctx, or a
// simulator that cannot record the flush.
//
//	res, err := sim.Webhooks.FlushExpectingFailures(ctx)
//	if err != nil || res.Failed != 1 { ... }
func (w *WebhooksControl) FlushExpectingFailures(ctx context.Context) (FlushResult, error) {
	res, err := w.s.wiring.delivery.flushWebhooks(ctx)
	if fe := (*FlushError)(nil); errors.As(err, &fe) {
		return res, nil
	}
	return res, err
}

// Handler returns a webhook receiver for this simulator: webhooks.Handler
// verifying z-signature with the simulator's webhook secret (the
// webhook_secret credential, which signs the deliveries of every endpoint
// added without a secret of its own) and on the simulator's clock, then
// opts. Deliveries are signed with the simulator's time, which starts at
// 2026-01-01 in the embedded simulator and moves only when told to; a
// receiver that checks the timestamp against the wall clock refuses every
// one of them as stale. fn and opts are as for webhooks.Handler (WithLogger
// logs each refusal with its reason). Serve it, register its URL with
// AddEndpoint and Flush:
//
//	srv := httptest.NewServer(sim.Webhooks.Handler(handle))
//	defer srv.Close()
//	_, _, _ = sim.Webhooks.AddEndpoint(srv.URL)
//
// In production build the same receiver with webhooks.Handler(secret, fn).
func (w *WebhooksControl) Handler(fn webhooks.HandlerFunc, opts ...webhooks.Option) http.Handler {
	all := append([]webhooks.Option{webhooks.WithClock(w.s.st.clock.Now)}, opts...)
	return webhooks.Handler(mwallet.Secret(w.s.Credentials().WebhookSecret), fn, all...)
}

// AddEndpoint registers an endpoint of the simulator's environment
// that receives the given event types (every event when none is given; a
// type the contract does not document is refused with a *NameError),
// signed with the merchant's webhook_secret credential. It returns the
// endpoint id and its secret. Control API: POST /_sim/webhooks/endpoints.
func (w *WebhooksControl) AddEndpoint(rawURL string, events ...string) (id, secret string, err error) {
	ep, err := invoke[hookline.EndpointAdded](w.s, endpointOps.AddEndpoint, &hookline.EndpointIn{URL: rawURL, Events: events})
	return ep.ID, ep.Secret, err
}

// AddEndpointConfig registers an endpoint with its own environment or
// secret (see WebhookEndpointConfig) and returns its id and secret.
func (w *WebhooksControl) AddEndpointConfig(cfg WebhookEndpointConfig) (id, secret string, err error) {
	ep, err := invoke[hookline.EndpointAdded](w.s, endpointOps.AddEndpointConfig, webhookEndpointIn(cfg))
	return ep.ID, ep.Secret, err
}

// RemoveEndpoint deletes an endpoint; its pending deliveries become
// no_subscriber. Control API: DELETE /_sim/webhooks/endpoints/{id}.
func (w *WebhooksControl) RemoveEndpoint(id string) error {
	return w.s.wiring.ctl.perform(hookOps.RemoveEndpoint, &hookline.EndpointRef{ID: id})
}

// DisableEndpoint stops deliveries to an endpoint; its pending
// deliveries become no_subscriber. Control API: POST
// /_sim/webhooks/endpoints/{id}/disable.
func (w *WebhooksControl) DisableEndpoint(id string) error {
	return w.s.wiring.ctl.perform(hookOps.DisableEndpoint, &hookline.EndpointRef{ID: id})
}

// EnableEndpoint re-enables a disabled endpoint for events queued from
// now on (rows already turned no_subscriber stay so until redelivered).
// Control API: POST /_sim/webhooks/endpoints/{id}/enable.
func (w *WebhooksControl) EnableEndpoint(id string) error {
	return w.s.wiring.ctl.perform(hookOps.EnableEndpoint, &hookline.EndpointRef{ID: id})
}

// Endpoints returns the configured endpoints in creation order.
// Control API: GET /_sim/webhooks/endpoints.
func (w *WebhooksControl) Endpoints() []WebhookEndpoint {
	v, _ := invoke[[]WebhookEndpoint](w.s, endpointOps.Endpoints, &noInput{})
	return v
}

// Deliveries returns every delivery row with its attempts, in the
// order the rows were created. Control API: GET /_sim/webhooks/deliveries.
func (w *WebhooksControl) Deliveries() []WebhookDelivery {
	v, _ := invoke[[]WebhookDelivery](w.s, endpointOps.Deliveries, &noInput{})
	return v
}

// SetAutoDeliver switches automatic delivery on or off (default
// off). When on, queuing a delivery starts a background flush that runs as
// soon as the request that emitted the event has finished; attempt times
// still follow the simulator clock, and retries still wait for the clock to
// advance and a flush. Off keeps tests deterministic: deliveries happen
// exactly when Flush is called. Control API: POST /_sim/webhooks/auto
// with {"enabled": true}.
func (w *WebhooksControl) SetAutoDeliver(on bool) error {
	return w.s.wiring.ctl.perform(hookOps.SetAutoDeliver, &hookline.AutoIn{Enabled: on})
}

// Redeliver queues a dead, failed or no_subscriber delivery row for
// one more attempt at the next flush, as POST
// /v1/webhooks/deliveries/{id}/redeliver does for the merchant (id with or
// without whd_). Control API: POST /_sim/webhooks/deliveries/{id}/redeliver.
func (w *WebhooksControl) Redeliver(id string) error {
	return w.s.wiring.ctl.perform(hookOps.Redeliver, &hookline.DeliveryRef{ID: id})
}

// opWebhooksFlush is POST /_sim/webhooks/flush, which delivers over HTTP,
// so it runs outside the state lock (a receiver may call back into the
// simulator) and logs its own inputs (the flush's parts). Failed attempts
// are part of the answer (failures, hint), not an error of the flush.
var opWebhooksFlush = def[noInput]{Route: "POST /_sim/webhooks/flush", Unlocked: true, Run: func(x *opRun, _ *noInput) (any, error) {
	res, err := x.Sim.wiring.delivery.flushWebhooks(x.Req.Context())
	var fe *FlushError
	if err != nil && !errors.As(err, &fe) {
		return nil, errBusiness500("flush interrupted: " + err.Error())
	}
	return res, nil
}}.Op()

// hookOps are the webhook ops declared in the line (internal/webhooks): an
// endpoint disabled or enabled answers as the public WebhookEndpoint, and a
// redelivery is the operator's (the line's RedeliverID); endpointOps,
// declared there too, take and answer the public WebhookEndpointConfig,
// WebhookEndpoint and WebhookDelivery.
var hookOps = hookline.NewControlOps(hooksAt,
	func(v hookline.EndpointView) any { return webhookEndpointOf(v) },
	func(x *opRun, id string) (any, error) {
		return x.Sim.st.webhooks.RedeliverID(x.Tx, x.Sim.st.clock.Now(), id)
	})

var endpointOps = hookline.NewEndpointOps(hooksAt,
	func(in hookline.EndpointIn) any { return webhookEndpointConfigOf(in) }, webhookEndpointOf, webhookDeliveryOf)

// webhookEndpointConfigOf is the public endpoint config of the line's input
// (webhookEndpointIn, lines_webhooks.go, is the other way).
func webhookEndpointConfigOf(in hookline.EndpointIn) WebhookEndpointConfig {
	return WebhookEndpointConfig{URL: in.URL, Events: in.Events, Environment: Environment(in.Environment), Secret: in.Secret}
}

// webhooksOps declares the webhooks' routes and methods.
var webhooksOps = []*op{
	def[noInput]{Name: "Webhooks.Flush", NoCall: true}.Op(),
	def[noInput]{Name: "Webhooks.FlushExpectingFailures", NoCall: true}.Op(),
	def[noInput]{Name: "Webhooks.Handler", NoCall: true}.Op(),
	endpointOps.AddEndpoint, endpointOps.AddEndpointConfig, endpointOps.Endpoints, hookOps.RemoveEndpoint,
	hookOps.DisableEndpoint, hookOps.EnableEndpoint, endpointOps.Deliveries, hookOps.SetAutoDeliver,
	hookOps.Redeliver, opWebhooksFlush,
}

// hooksAt is the webhook line and the transaction of a run.
func hooksAt(x *opRun) (*hookline.Line, *kernel.Tx) { return x.Sim.st.webhooks, x.Tx }
