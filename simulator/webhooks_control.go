package simulator

import (
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// runAddWebhookEndpoint registers an endpoint of the simulator's environment
// that receives the given event types (every event when none is given),
// signed with the merchant's webhook_secret credential. It returns the
// endpoint id and its secret. Control API: POST /_sim/webhooks/endpoints.
func (s *Simulator) runAddWebhookEndpoint(rawURL string, events ...string) (id, secret string, err error) {
	return s.addWebhookEndpointConfig(WebhookEndpointConfig{URL: rawURL, Events: events})
}

// addWebhookEndpointConfig registers an endpoint with its own environment or
// secret (see WebhookEndpointConfig) and returns its id and secret.
func (s *Simulator) addWebhookEndpointConfig(cfg WebhookEndpointConfig) (id, secret string, err error) {
	tx := s.k.Begin()
	defer tx.End()
	v, secret, err := s.st.webhooks.AddEndpoint(tx, webhookEndpointConfig(cfg))
	if err != nil {
		return "", "", err
	}
	return v.ID, secret, nil
}

// runRemoveWebhookEndpoint deletes an endpoint; its pending deliveries become
// no_subscriber. Control API: DELETE /_sim/webhooks/endpoints/{id}.
func (s *Simulator) runRemoveWebhookEndpoint(id string) error {
	tx := s.k.Begin()
	defer tx.End()
	return s.st.webhooks.RemoveEndpoint(tx, id)
}

// disableWebhookEndpoint stops deliveries to an endpoint; its pending
// deliveries become no_subscriber. Control API: POST
// /_sim/webhooks/endpoints/{id}/disable.
func (s *Simulator) disableWebhookEndpoint(id string) error {
	tx := s.k.Begin()
	defer tx.End()
	_, err := s.st.webhooks.SetEndpointDisabled(tx, id, true)
	return err
}

// enableWebhookEndpoint re-enables a disabled endpoint for events queued from
// now on (rows already turned no_subscriber stay so until redelivered).
// Control API: POST /_sim/webhooks/endpoints/{id}/enable.
func (s *Simulator) enableWebhookEndpoint(id string) error {
	tx := s.k.Begin()
	defer tx.End()
	_, err := s.st.webhooks.SetEndpointDisabled(tx, id, false)
	return err
}

// runWebhookEndpoints returns the configured endpoints in creation order.
// Control API: GET /_sim/webhooks/endpoints.
func (s *Simulator) runWebhookEndpoints() []WebhookEndpoint {
	tx := s.k.Begin()
	defer tx.End()
	return s.webhookEndpoints(tx)
}

// runWebhookDeliveries returns every delivery row with its attempts, in the
// order the rows were created. Control API: GET /_sim/webhooks/deliveries.
func (s *Simulator) runWebhookDeliveries() []WebhookDelivery {
	tx := s.k.Begin()
	defer tx.End()
	return s.webhookDeliveries(tx)
}

// setWebhookAutoDeliver switches automatic delivery on or off (default
// off). When on, queuing a delivery starts a background flush that runs as
// soon as the request that emitted the event has finished; attempt times
// still follow the simulator clock, and retries still wait for the clock to
// advance and a flush. Off keeps tests deterministic: deliveries happen
// exactly when FlushWebhooks is called. Control API: POST /_sim/webhooks/auto
// with {"enabled": true}.
func (s *Simulator) setWebhookAutoDeliver(on bool) {
	tx := s.k.Begin()
	defer tx.End()
	s.st.webhooks.SetAuto(tx, on)
}

// runEmitEvent records an event as the service would and queues its
// deliveries: typ is an event type (for example "card.status.updated"),
// object the data.object kind, id the data.id, externalMemberID the member
// (an external_member_id or mem_ id of a simulator member, or any value for
// a member the simulator does not know), status and version data.status and
// data.status_version. It returns the event_id. Events of platform-direct
// members are not recorded (the contract sends none): the id is then empty.
// Use it to test receivers with events whose product flow the simulator
// does not drive. Control API: POST /_sim/webhooks/events.
func (s *Simulator) runEmitEvent(typ, object, id, externalMemberID, status string, version int64) (string, error) {
	return s.emitEventExtra(typ, object, id, externalMemberID, status, version, nil)
}

// emitEventExtra is EmitEvent with extra data fields (for example
// compensation_source and application_id of kyc.quick.compensated). Extras
// must be identifiers or statuses, like every field of an event body.
func (s *Simulator) emitEventExtra(typ, object, id, externalMemberID, status string, version int64, extra map[string]any) (string, error) {
	tx := s.k.Begin()
	defer tx.End()
	return s.emitEvent(tx, typ, object, id, externalMemberID, status, version, extra)
}

func (s *Simulator) emitEvent(tx *kernel.Tx, typ, object, id, ext, status string, version int64, extra map[string]any) (string, error) {
	typ, object, id, ext = strings.TrimSpace(typ), strings.TrimSpace(object), strings.TrimSpace(id), strings.TrimSpace(ext)
	var missing []string
	for _, f := range []struct{ k, v string }{{"event_type", typ}, {"object", object}, {"id", id}} {
		if f.v == "" {
			missing = append(missing, f.k)
		}
	}
	if len(missing) > 0 {
		return "", errInvalidFields("required: "+strings.Join(missing, ", "), missing...)
	}
	if version < 0 {
		return "", errInvalidFields("status_version must not be negative", "status_version")
	}
	m := s.st.members.Get(ext)
	if m == nil {
		m = s.st.members.ByExternal(ext)
	}
	if m == nil {
		m = &member{ExternalID: ext}
	}
	n := len(s.st.events)
	s.emit(tx, typ, object, id, m, status, version, extra)
	if len(s.st.events) == n {
		return "", nil
	}
	return s.st.events[len(s.st.events)-1].ID, nil
}

// webhookEndpoints returns the configured endpoints in creation order.
func (s *Simulator) webhookEndpoints(tx *kernel.Tx) []WebhookEndpoint {
	views := s.st.webhooks.EndpointList(tx)
	out := make([]WebhookEndpoint, 0, len(views))
	for _, v := range views {
		out = append(out, webhookEndpointOf(v))
	}
	return out
}

// webhookDeliveries returns every delivery row, in creation order.
func (s *Simulator) webhookDeliveries(tx *kernel.Tx) []WebhookDelivery {
	views := s.st.webhooks.Deliveries(tx)
	out := make([]WebhookDelivery, 0, len(views))
	for _, v := range views {
		out = append(out, webhookDeliveryOf(v))
	}
	return out
}
