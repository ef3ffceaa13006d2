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

// webhooksRoutes declares the control routes of the webhook line (control_decl.go), each answered in a transaction of the control API; registerWebhooks registers them in this order.
var webhooksRoutes = []controlDecl{
	{route: "POST /_sim/webhooks/endpoints", inTx: func(s *Simulator, tx *kernel.Tx, _ *http.Request, body []byte) (int, any, error) {
		var in WebhookEndpointConfig
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
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
	}},
	{route: "GET /_sim/webhooks/endpoints", inTx: func(s *Simulator, tx *kernel.Tx, _ *http.Request, _ []byte) (int, any, error) {
		return http.StatusOK, map[string]any{"endpoints": webhookEndpoints(tx, s.st.webhooks)}, nil
	}},
	{route: "DELETE /_sim/webhooks/endpoints/{id}", inTx: func(s *Simulator, tx *kernel.Tx, r *http.Request, _ []byte) (int, any, error) {
		if err := s.st.webhooks.RemoveEndpoint(tx, r.PathValue("id")); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, map[string]any{"id": r.PathValue("id"), "deleted": true}, nil
	}},
	{route: "POST /_sim/webhooks/endpoints/{id}/disable", inTx: func(s *Simulator, tx *kernel.Tx, r *http.Request, _ []byte) (int, any, error) {
		v, err := s.st.webhooks.SetEndpointDisabled(tx, r.PathValue("id"), true)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, webhookEndpointOf(v), nil
	}},
	{route: "POST /_sim/webhooks/endpoints/{id}/enable", inTx: func(s *Simulator, tx *kernel.Tx, r *http.Request, _ []byte) (int, any, error) {
		v, err := s.st.webhooks.SetEndpointDisabled(tx, r.PathValue("id"), false)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, webhookEndpointOf(v), nil
	}},
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
	{route: "POST /_sim/webhooks/auto", inTx: func(s *Simulator, tx *kernel.Tx, _ *http.Request, body []byte) (int, any, error) {
		var in struct {
			Enabled bool `json:"enabled"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		s.st.webhooks.SetAuto(tx, in.Enabled)
		return http.StatusOK, map[string]any{"enabled": in.Enabled}, nil
	}},
}
