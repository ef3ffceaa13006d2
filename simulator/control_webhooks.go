package simulator

import (
	"context"
	"errors"
	"net/http"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
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
	return call3(w.s, ctlWebhooksAddEndpoint, func() (string, string, error) {
		if err := checkEventTypes(events); err != nil {
			return "", "", err
		}
		return w.add(WebhookEndpointConfig{URL: rawURL, Events: events})
	}, rawURL, events)
}

// AddEndpointConfig registers an endpoint with its own environment or
// secret (see WebhookEndpointConfig) and returns its id and secret.
func (w *WebhooksControl) AddEndpointConfig(cfg WebhookEndpointConfig) (id, secret string, err error) {
	return call3(w.s, ctlWebhooksAddEndpointConfig, func() (string, string, error) {
		if err := checkEventTypes(cfg.Events); err != nil {
			return "", "", err
		}
		return w.add(cfg)
	}, cfg)
}

// RemoveEndpoint deletes an endpoint; its pending deliveries become
// no_subscriber. Control API: DELETE /_sim/webhooks/endpoints/{id}.
func (w *WebhooksControl) RemoveEndpoint(id string) error {
	return call1(w.s, ctlWebhooksRemoveEndpoint, func() error {
		return unknownID("webhook endpoint", id, inTx(w.s, func(tx *kernel.Tx) error { return w.s.st.webhooks.RemoveEndpoint(tx, id) }))
	}, id)
}

// DisableEndpoint stops deliveries to an endpoint; its pending
// deliveries become no_subscriber. Control API: POST
// /_sim/webhooks/endpoints/{id}/disable.
func (w *WebhooksControl) DisableEndpoint(id string) error {
	return call1(w.s, ctlWebhooksDisableEndpoint, func() error {
		return unknownID("webhook endpoint", id, inTx(w.s, func(tx *kernel.Tx) error { _, err := w.s.st.webhooks.SetEndpointDisabled(tx, id, true); return err }))
	}, id)
}

// EnableEndpoint re-enables a disabled endpoint for events queued from
// now on (rows already turned no_subscriber stay so until redelivered).
// Control API: POST /_sim/webhooks/endpoints/{id}/enable.
func (w *WebhooksControl) EnableEndpoint(id string) error {
	return call1(w.s, ctlWebhooksEnableEndpoint, func() error {
		return unknownID("webhook endpoint", id, inTx(w.s, func(tx *kernel.Tx) error { _, err := w.s.st.webhooks.SetEndpointDisabled(tx, id, false); return err }))
	}, id)
}

// Endpoints returns the configured endpoints in creation order.
// Control API: GET /_sim/webhooks/endpoints.
func (w *WebhooksControl) Endpoints() []WebhookEndpoint {
	v, _ := inTx1(w.s, func(tx *kernel.Tx) ([]WebhookEndpoint, error) { return webhookEndpoints(tx, w.s.st.webhooks), nil })
	return v
}

// Deliveries returns every delivery row with its attempts, in the
// order the rows were created. Control API: GET /_sim/webhooks/deliveries.
func (w *WebhooksControl) Deliveries() []WebhookDelivery {
	v, _ := inTx1(w.s, func(tx *kernel.Tx) ([]WebhookDelivery, error) { return webhookDeliveries(tx, w.s.st.webhooks), nil })
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
	return call0(w.s, ctlWebhooksSetAutoDeliver, func() { _ = inTx(w.s, func(tx *kernel.Tx) error { w.s.st.webhooks.SetAuto(tx, on); return nil }) }, on)
}

// Redeliver queues a dead, failed or no_subscriber delivery row for
// one more attempt at the next flush, as POST
// /v1/webhooks/deliveries/{id}/redeliver does for the merchant (id with or
// without whd_). Control API: POST /_sim/webhooks/deliveries/{id}/redeliver.
func (w *WebhooksControl) Redeliver(id string) error {
	return call1(w.s, ctlWebhooksRedeliver, func() error {
		return unknownID("webhook delivery", id, inTx(w.s, func(tx *kernel.Tx) error {
			_, err := redeliver(tx, w.s.st.webhooks, w.s.st.clock.Now(), id)
			return err
		}))
	}, id)
}

// add registers an endpoint with its own environment or secret (see
// WebhookEndpointConfig) and returns its id and secret.
func (w *WebhooksControl) add(cfg WebhookEndpointConfig) (id, secret string, err error) {
	err = inTx(w.s, func(tx *kernel.Tx) error {
		v, sec, err := w.s.st.webhooks.AddEndpoint(tx, webhookEndpointConfig(cfg))
		if err != nil {
			return err
		}
		id, secret = v.ID, sec
		return nil
	})
	return id, secret, err
}

// The names the Webhooks control methods record their calls under, each declared
// once and used by its method and by webhooksControls.
const (
	ctlWebhooksAddEndpoint       = "Webhooks.AddEndpoint"
	ctlWebhooksAddEndpointConfig = "Webhooks.AddEndpointConfig"
	ctlWebhooksRemoveEndpoint    = "Webhooks.RemoveEndpoint"
	ctlWebhooksDisableEndpoint   = "Webhooks.DisableEndpoint"
	ctlWebhooksEnableEndpoint    = "Webhooks.EnableEndpoint"
	ctlWebhooksSetAutoDeliver    = "Webhooks.SetAutoDeliver"
	ctlWebhooksRedeliver         = "Webhooks.Redeliver"
)

// webhooksControls declares the webhooks control methods and the routes that call them
// (control_decl.go), the routes in their registration order.
//
// The methods with a control route of their own are declared with it in
// webhooksRoutes (lines_webhooks.go) and devtoolsRoutes (devtools.go).
var webhooksControls = []controlDecl{
	{name: "Webhooks.Flush", noCall: true, bind: func(s *Simulator) any { return s.Webhooks.Flush }},
	{name: "Webhooks.FlushExpectingFailures", noCall: true, bind: func(s *Simulator) any { return s.Webhooks.FlushExpectingFailures }},
	{name: "Webhooks.Handler", noCall: true, bind: func(s *Simulator) any { return s.Webhooks.Handler }},
	{name: ctlWebhooksAddEndpoint, bind: func(s *Simulator) any { return s.Webhooks.AddEndpoint }},
	{name: "Webhooks.Endpoints", noCall: true, bind: func(s *Simulator) any { return s.Webhooks.Endpoints }},
	{name: "Webhooks.Deliveries", noCall: true, bind: func(s *Simulator) any { return s.Webhooks.Deliveries }},
}

// The HTTP entries of the Webhooks and Events methods (control_call.go),
// declared with their routes in webhooksRoutes and devtoolsRoutes, where
// those register.

// addEndpointCall is POST /_sim/webhooks/endpoints, the HTTP entry of
// AddEndpointConfig: it answers 201 with the endpoint and its secret.
func addEndpointCall(s *Simulator, _ *http.Request, body []byte) (string, []any, controlRun, error) {
	var in WebhookEndpointConfig
	if err := decodeControl(body, &in); err != nil {
		return "", nil, nil, err
	}
	return "", []any{in}, func(tx *kernel.Tx) (int, any, error) {
		if err := checkEventTypes(in.Events); err != nil {
			return 0, nil, err
		}
		v, secret, err := s.st.webhooks.AddEndpoint(tx, webhookEndpointConfig(in))
		if err != nil {
			return 0, nil, err
		}
		out := webhookEndpointOf(v)
		return http.StatusCreated, map[string]any{
			"id": out.ID, "secret": secret, "url": out.URL, "events": out.Events,
			"environment": out.Environment, "created_at": out.CreatedAt,
		}, nil
	}, nil
}

// removeEndpointCall is DELETE /_sim/webhooks/endpoints/{id}, the HTTP
// entry of RemoveEndpoint.
func removeEndpointCall(s *Simulator, r *http.Request, _ []byte) (string, []any, controlRun, error) {
	id := r.PathValue("id")
	return "", []any{id}, func(tx *kernel.Tx) (int, any, error) {
		if err := s.st.webhooks.RemoveEndpoint(tx, id); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, map[string]any{"id": id, "deleted": true}, nil
	}, nil
}

// endpointDisabledCall is POST /_sim/webhooks/endpoints/{id}/disable (the
// HTTP entry of DisableEndpoint) or .../enable (EnableEndpoint): it answers
// the endpoint.
func endpointDisabledCall(disabled bool) routeCallFunc {
	return func(s *Simulator, r *http.Request, _ []byte) (string, []any, controlRun, error) {
		id := r.PathValue("id")
		return "", []any{id}, func(tx *kernel.Tx) (int, any, error) {
			v, err := s.st.webhooks.SetEndpointDisabled(tx, id, disabled)
			if err != nil {
				return 0, nil, err
			}
			return http.StatusOK, webhookEndpointOf(v), nil
		}, nil
	}
}

// setAutoDeliverCall is POST /_sim/webhooks/auto, the HTTP entry of
// SetAutoDeliver.
func setAutoDeliverCall(s *Simulator, _ *http.Request, body []byte) (string, []any, controlRun, error) {
	var in struct {
		Enabled bool `json:"enabled"`
	}
	if err := decodeControl(body, &in); err != nil {
		return "", nil, nil, err
	}
	return "", []any{in.Enabled}, func(tx *kernel.Tx) (int, any, error) {
		s.st.webhooks.SetAuto(tx, in.Enabled)
		return http.StatusOK, map[string]any{"enabled": in.Enabled}, nil
	}, nil
}

// redeliverCall is POST /_sim/webhooks/deliveries/{id}/redeliver, the HTTP
// entry of Redeliver: it answers the delivery.
func redeliverCall(s *Simulator, r *http.Request, _ []byte) (string, []any, controlRun, error) {
	id := r.PathValue("id")
	return "", []any{id}, func(tx *kernel.Tx) (int, any, error) {
		out, err := redeliver(tx, s.st.webhooks, s.st.clock.Now(), id)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, out, nil
	}, nil
}
