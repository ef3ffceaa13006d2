package simulator

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

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
	e, err := s.addWebhookEndpoint(tx, cfg)
	if err != nil {
		return "", "", err
	}
	return e.ID, e.Secret, nil
}

// runRemoveWebhookEndpoint deletes an endpoint; its pending deliveries become
// no_subscriber. Control API: DELETE /_sim/webhooks/endpoints/{id}.
func (s *Simulator) runRemoveWebhookEndpoint(id string) error {
	tx := s.k.Begin()
	defer tx.End()
	return s.removeWebhookEndpoint(tx, id)
}

// disableWebhookEndpoint stops deliveries to an endpoint; its pending
// deliveries become no_subscriber. Control API: POST
// /_sim/webhooks/endpoints/{id}/disable.
func (s *Simulator) disableWebhookEndpoint(id string) error {
	tx := s.k.Begin()
	defer tx.End()
	_, err := s.setWebhookEndpointDisabled(tx, id, true)
	return err
}

// enableWebhookEndpoint re-enables a disabled endpoint for events queued from
// now on (rows already turned no_subscriber stay so until redelivered).
// Control API: POST /_sim/webhooks/endpoints/{id}/enable.
func (s *Simulator) enableWebhookEndpoint(id string) error {
	tx := s.k.Begin()
	defer tx.End()
	_, err := s.setWebhookEndpointDisabled(tx, id, false)
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
	s.webhookState(tx).auto = on
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

func (s *Simulator) addWebhookEndpoint(tx *kernel.Tx, cfg WebhookEndpointConfig) (*whEndpoint, error) {
	st := s.webhookState(tx)
	raw := strings.TrimSpace(cfg.URL)
	u, err := url.Parse(raw)
	if raw == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errInvalidFields("url must be an absolute http or https URL", "url")
	}
	env := cfg.Environment
	if env == "" {
		env = s.st.creds.Environment
	}
	if env != Sandbox && env != Production {
		return nil, errInvalidFields("environment must be sandbox or production", "environment")
	}
	events := map[string]bool{}
	for _, t := range cfg.Events {
		t = strings.TrimSpace(t)
		if t == "" {
			return nil, errInvalidFields("events must not contain empty event types", "events")
		}
		events[t] = true
	}
	secret := cfg.Secret
	if secret == "" {
		secret = s.st.creds.WebhookSecret
	}
	e := &whEndpoint{
		ID: "whe_" + s.newUUID(), URL: raw, Secret: secret, Events: events, Env: env,
		CreatedAt: s.st.clock.Now(),
	}
	st.endpoints = append(st.endpoints, e)
	st.endpointByID[e.ID] = e
	return e, nil
}

func (s *Simulator) webhookEndpoint(tx *kernel.Tx, id string) (*whEndpoint, error) {
	id = strings.TrimSpace(id)
	st := s.webhookState(tx)
	e := st.endpointByID[id]
	if e == nil && !strings.HasPrefix(id, "whe_") {
		e = st.endpointByID["whe_"+id]
	}
	if e == nil {
		return nil, fmt.Errorf("webhook endpoint %q: %w", id, errControlNotFound)
	}
	return e, nil
}

func (s *Simulator) removeWebhookEndpoint(tx *kernel.Tx, id string) error {
	e, err := s.webhookEndpoint(tx, id)
	if err != nil {
		return err
	}
	st := s.webhookState(tx)
	delete(st.endpointByID, e.ID)
	for i, x := range st.endpoints {
		if x == e {
			st.endpoints = append(st.endpoints[:i:i], st.endpoints[i+1:]...)
			break
		}
	}
	s.orphanPending(tx, e.ID)
	return nil
}

func (s *Simulator) setWebhookEndpointDisabled(tx *kernel.Tx, id string, disabled bool) (*whEndpoint, error) {
	e, err := s.webhookEndpoint(tx, id)
	if err != nil {
		return nil, err
	}
	e.Disabled = disabled
	if disabled {
		s.orphanPending(tx, e.ID)
	}
	return e, nil
}

// orphanPending turns the pending rows of an endpoint that was
// disabled or deleted into no_subscriber. A row whose attempt is in flight
// is settled when the attempt returns.
func (s *Simulator) orphanPending(tx *kernel.Tx, endpointID string) {
	for _, d := range s.webhookState(tx).created {
		if d.EndpointID == endpointID && d.Status == deliveryPending && !d.inFlight {
			d.Status, d.NextAttemptAt = deliveryNoSubscriber, time.Time{}
		}
	}
}

func (e *whEndpoint) view() WebhookEndpoint {
	v := WebhookEndpoint{ID: e.ID, URL: e.URL, Events: []string{}, Environment: e.Env, Disabled: e.Disabled, CreatedAt: e.CreatedAt}
	for t := range e.Events {
		v.Events = append(v.Events, t)
	}
	sort.Strings(v.Events)
	return v
}

func (s *Simulator) webhookEndpoints(tx *kernel.Tx) []WebhookEndpoint {
	st := s.webhookState(tx)
	out := make([]WebhookEndpoint, 0, len(st.endpoints))
	for _, e := range st.endpoints {
		out = append(out, e.view())
	}
	return out
}

func (d *whDelivery) view() WebhookDelivery {
	v := WebhookDelivery{
		ID: d.ID, EventID: d.Event.ID, EventType: d.Event.Type, EndpointID: d.EndpointID,
		Status: d.Status, Attempts: append([]WebhookAttempt{}, d.Attempts...), CreatedAt: d.CreatedAt,
		ObjectID: d.Event.ObjectID, ExternalMemberID: d.Event.ExternalMemberID,
	}
	if !d.NextAttemptAt.IsZero() {
		t := d.NextAttemptAt
		v.NextAttemptAt = &t
	}
	return v
}

func (s *Simulator) webhookDeliveries(tx *kernel.Tx) []WebhookDelivery {
	st := s.webhookState(tx)
	out := make([]WebhookDelivery, 0, len(st.created))
	for _, d := range st.created {
		out = append(out, d.view())
	}
	return out
}

// handleRedeliver serves POST /v1/webhooks/deliveries/{id}/redeliver: the
// row must be dead, failed or no_subscriber and an endpoint must subscribe
// now. The row keeps its event (same event_id and body) and is queued for
// one attempt at the next flush; when its own endpoint no longer subscribes
// it is pointed at the first current subscriber, and further current
// subscribers get rows of their own.
func (s *Simulator) handleRedeliver(c *rc) (int, any, error) {
	if err := c.NoBody(); err != nil {
		return 0, nil, err
	}
	st := s.webhookState(c.Tx)
	id := strings.TrimSpace(c.PathID())
	if !strings.HasPrefix(id, "whd_") {
		id = "whd_" + id
	}
	d := st.deliveryByID[id]
	if d == nil {
		return 0, nil, errNotFound("webhook delivery")
	}
	switch d.Status {
	case deliveryDead, deliveryFailed, deliveryNoSubscriber:
	default:
		return 0, nil, newErr("state_invalid", "a "+d.Status+" delivery cannot be redelivered")
	}
	var targets []*whEndpoint
	if e := st.endpointByID[d.EndpointID]; e != nil && s.subscribes(c.Tx, e, d.Event.Type) {
		targets = []*whEndpoint{e}
	} else {
		targets = s.subscribers(c.Tx, d.Event.Type)
	}
	if len(targets) == 0 {
		return 0, nil, newErr("state_invalid", "no endpoint currently subscribes to "+d.Event.Type)
	}
	requeue := func(x *whDelivery, e *whEndpoint) {
		x.EndpointID, x.Status, x.NextAttemptAt = e.ID, deliveryPending, c.Now
		x.runLeft, x.redelivery = 1, true
	}
	requeue(d, targets[0])
	for _, e := range targets[1:] {
		requeue(s.newDelivery(c.Tx, d.Event, e.ID, deliveryPending, 1), e)
	}
	s.kickAutoDelivery(c.Tx)
	return 200, map[string]any{"id": d.ID, "queued": true}, nil
}

// deliveryListItem is one item of GET /v1/webhooks/deliveries (a shape
// inferred from the redeliver result and the delivery states).
type deliveryListItem struct {
	ID            string     `json:"id"`
	EventID       string     `json:"event_id"`
	EventType     string     `json:"event_type"`
	EndpointID    string     `json:"endpoint_id"`
	Status        string     `json:"status"`
	Attempts      int        `json:"attempts"`
	NextAttemptAt *time.Time `json:"next_attempt_at"`
	CreatedAt     time.Time  `json:"created_at"`
}

// handleListDeliveries serves GET /v1/webhooks/deliveries, newest first.
func (s *Simulator) handleListDeliveries(c *rc) (int, any, error) {
	st := s.webhookState(c.Tx)
	env := paginate(st.deliveries, deliveryKey, c.Req.URL.Query())
	rows, _ := env.Data.([]*whDelivery)
	items := make([]deliveryListItem, 0, len(rows))
	for _, d := range rows {
		it := deliveryListItem{
			ID: d.ID, EventID: d.Event.ID, EventType: d.Event.Type, EndpointID: d.EndpointID,
			Status: d.Status, Attempts: len(d.Attempts), CreatedAt: d.CreatedAt.UTC(),
		}
		if !d.NextAttemptAt.IsZero() {
			t := d.NextAttemptAt.UTC()
			it.NextAttemptAt = &t
		}
		items = append(items, it)
	}
	env.Data = items
	return 200, env, nil
}
