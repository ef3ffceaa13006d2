package simulator

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	hookline "github.com/mwallet/mwallet-go/simulator/internal/webhooks"
)

// newWebhooksLine builds the webhook line; it exists before the fixture,
// whose events it queues.
func newWebhooksLine(s *Simulator) *hookline.Line {
	return hookline.New(webhooksHost{st: &s.st, replaying: s.wiring.rec.replaying, flush: func() {
		_, _ = s.wiring.delivery.flushWebhooks(context.Background())
	}}, deliveryTransport)
}

// registerWebhooks registers the webhook line's endpoints and the control
// API of webhooks (/_sim/webhooks/...). The flush, which delivers over HTTP
// outside the state lock, is webhooks_flush.go.
func (ctl *controlAPI) registerWebhooks() {
	s := ctl.sim
	for _, e := range s.st.webhooks.Endpoints() {
		s.wiring.gw.register(e)
	}

	ctl.registerTable(webhooksRoutes)
	// Flush delivers over HTTP, so it must not run under the state lock (a
	// receiver may call back into the simulator): it is not a ctl.control
	// endpoint.
	s.wiring.mux.HandleFunc("POST /_sim/webhooks/flush", func(w http.ResponseWriter, r *http.Request) {
		id := s.wiring.gw.controlRequestID(w)
		body, _ := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
		if ae := decodeStrict(body, &struct{}{}, refuseUnknown); ae != nil {
			writeJSON(w, ae.Status, ae.Envelope(id))
			return
		}
		// Failed attempts are part of the answer (failures, hint), not an
		// error of the flush.
		res, err := s.wiring.delivery.flushWebhooks(r.Context())
		var fe *FlushError
		if err != nil && !errors.As(err, &fe) {
			writeJSON(w, http.StatusInternalServerError, errBusiness500("flush interrupted: "+err.Error()).Envelope(id))
			return
		}
		writeJSON(w, http.StatusOK, res)
	})
}

// webhookEndpointConfig is the line's copy of a public endpoint config.
func webhookEndpointConfig(cfg WebhookEndpointConfig) hookline.EndpointConfig {
	return hookline.EndpointConfig{URL: cfg.URL, Events: cfg.Events, Environment: string(cfg.Environment), Secret: cfg.Secret}
}

// webhooksHost is the webhook line's webhooks.Host.
type webhooksHost struct {
	st *simState
	// replaying reports a recording being replayed (recorder.replaying);
	// flush runs a flush of the due deliveries (deliverer.flushWebhooks).
	replaying func() bool
	flush     func()
}

func (h webhooksHost) MerchantID() string { return h.st.creds.MerchantID }

func (h webhooksHost) Environment() string { return string(h.st.creds.Environment) }

func (h webhooksHost) WebhookSecret() string { return h.st.creds.WebhookSecret }

func (h webhooksHost) NotFound() error { return errControlNotFound }

// AutoFlush starts a background flush; the goroutine waits for the state
// lock, so it runs after the current request. A replay runs the flushes the
// recording holds instead.
func (h webhooksHost) AutoFlush() {
	if h.replaying() {
		return
	}
	go h.flush()
}

// webhooksRoutes declares the control routes of the webhook line (control_decl.go); registerWebhooks registers them in this order. A write is the HTTP entry of its Go method (control_call.go), declared here with it, but POST /_sim/webhooks/events: its extra keeps the numbers of the body as written (json.Number), which Events.EmitExtra's arguments do not, so it runs in a transaction of the control API.
var webhooksRoutes = []controlDecl{
	{name: ctlWebhooksAddEndpointConfig, bind: func(s *Simulator) any { return s.Webhooks.AddEndpointConfig }, route: "POST /_sim/webhooks/endpoints", asCall: addEndpointCall},
	{route: "GET /_sim/webhooks/endpoints", inTx: func(s *Simulator, tx *kernel.Tx, _ *http.Request, _ []byte) (int, any, error) {
		return http.StatusOK, map[string]any{"endpoints": webhookEndpoints(tx, s.st.webhooks)}, nil
	}},
	{name: ctlWebhooksRemoveEndpoint, bind: func(s *Simulator) any { return s.Webhooks.RemoveEndpoint }, route: "DELETE /_sim/webhooks/endpoints/{id}", asCall: removeEndpointCall},
	{name: ctlWebhooksDisableEndpoint, bind: func(s *Simulator) any { return s.Webhooks.DisableEndpoint }, route: "POST /_sim/webhooks/endpoints/{id}/disable", asCall: endpointDisabledCall(true)},
	{name: ctlWebhooksEnableEndpoint, bind: func(s *Simulator) any { return s.Webhooks.EnableEndpoint }, route: "POST /_sim/webhooks/endpoints/{id}/enable", asCall: endpointDisabledCall(false)},
	{route: "GET /_sim/webhooks/deliveries", inTx: func(s *Simulator, tx *kernel.Tx, _ *http.Request, _ []byte) (int, any, error) {
		return http.StatusOK, map[string]any{"deliveries": webhookDeliveries(tx, s.st.webhooks)}, nil
	}},
	{route: "POST /_sim/webhooks/events", inTx: func(s *Simulator, tx *kernel.Tx, _ *http.Request, body []byte) (int, any, error) {
		var in struct {
			EventType        string         `json:"event_type"`
			Object           string         `json:"object"`
			ID               string         `json:"id"`
			ExternalMemberID string         `json:"external_member_id"`
			Status           string         `json:"status"`
			StatusVersion    json.Number    `json:"status_version"`
			Extra            map[string]any `json:"extra"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		var version int64
		if in.StatusVersion != "" {
			v, err := strconv.ParseInt(in.StatusVersion.String(), 10, 64)
			if err != nil {
				return 0, nil, errInvalidRequest("status_version must be an integer")
			}
			version = v
		}
		if err := checkEventType(in.EventType); err != nil {
			return 0, nil, err
		}
		id, err := s.wiring.ctl.emitEvent(tx, in.EventType, in.Object, in.ID, in.ExternalMemberID, in.Status, version, in.Extra)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusCreated, map[string]any{"event_id": id}, nil
	}},
	{name: ctlWebhooksSetAutoDeliver, bind: func(s *Simulator) any { return s.Webhooks.SetAutoDeliver }, route: "POST /_sim/webhooks/auto", asCall: setAutoDeliverCall},
}
