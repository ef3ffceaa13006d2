package webhooks

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// EndpointConfig configures a new endpoint: its URL, the event types it
// subscribes to (every event when empty), its environment (the
// simulator's when empty) and its secret (the merchant's webhook_secret
// credential when empty).
type EndpointConfig struct {
	URL         string
	Events      []string
	Environment string
	Secret      string
}

// EndpointView is a read-only copy of one endpoint, without its secret.
type EndpointView struct {
	ID          string
	URL         string
	Events      []string // sorted; empty means every event
	Environment string
	Disabled    bool
	CreatedAt   time.Time
}

// DeliveryView is a read-only copy of one delivery row with its attempts.
type DeliveryView struct {
	ID               string
	EventID          string
	EventType        string
	EndpointID       string
	Status           string
	Attempts         []Attempt
	NextAttemptAt    *time.Time
	CreatedAt        time.Time
	ObjectID         string
	ExternalMemberID string
}

// AddEndpoint registers an endpoint and returns it with its secret.
func (l *Line) AddEndpoint(tx *kernel.Tx, cfg EndpointConfig) (EndpointView, string, error) {
	st := &l.st
	raw := strings.TrimSpace(cfg.URL)
	u, err := url.Parse(raw)
	if raw == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return EndpointView{}, "", api.InvalidFields("url must be an absolute http or https URL", "url")
	}
	env := cfg.Environment
	if env == "" {
		env = l.host.Environment()
	}
	if env != Sandbox && env != Production {
		return EndpointView{}, "", api.InvalidFields("environment must be sandbox or production", "environment")
	}
	events := map[string]bool{}
	for _, t := range cfg.Events {
		t = strings.TrimSpace(t)
		if t == "" {
			return EndpointView{}, "", api.InvalidFields("events must not contain empty event types", "events")
		}
		events[t] = true
	}
	secret := cfg.Secret
	if secret == "" {
		secret = l.host.WebhookSecret()
	}
	e := &endpoint{
		ID: "whe_" + tx.NewUUID(), URL: raw, Secret: secret, Events: events, Env: env,
		CreatedAt: tx.Now(),
	}
	st.endpoints = append(st.endpoints, e)
	st.endpointByID[e.ID] = e
	return e.view(), e.Secret, nil
}

// endpoint finds an endpoint by its id, with or without the whe_ prefix.
func (l *Line) endpoint(id string) (*endpoint, error) {
	id = strings.TrimSpace(id)
	e := l.st.endpointByID[id]
	if e == nil && !strings.HasPrefix(id, "whe_") {
		e = l.st.endpointByID["whe_"+id]
	}
	if e == nil {
		return nil, fmt.Errorf("webhook endpoint %q: %w", id, l.host.NotFound())
	}
	return e, nil
}

// RemoveEndpoint deletes an endpoint; its pending deliveries become
// no_subscriber.
func (l *Line) RemoveEndpoint(tx *kernel.Tx, id string) error {
	tx.Live()
	e, err := l.endpoint(id)
	if err != nil {
		return err
	}
	st := &l.st
	delete(st.endpointByID, e.ID)
	for i, x := range st.endpoints {
		if x == e {
			st.endpoints = append(st.endpoints[:i:i], st.endpoints[i+1:]...)
			break
		}
	}
	l.orphanPending(e.ID)
	return nil
}

// SetEndpointDisabled disables or enables an endpoint; disabling turns its
// pending deliveries no_subscriber.
func (l *Line) SetEndpointDisabled(tx *kernel.Tx, id string, disabled bool) (EndpointView, error) {
	tx.Live()
	e, err := l.endpoint(id)
	if err != nil {
		return EndpointView{}, err
	}
	e.Disabled = disabled
	if disabled {
		l.orphanPending(e.ID)
	}
	return e.view(), nil
}

// orphanPending turns the pending rows of an endpoint that was
// disabled or deleted into no_subscriber. A row whose attempt is in flight
// is settled when the attempt returns.
func (l *Line) orphanPending(endpointID string) {
	for _, d := range l.st.created {
		if d.EndpointID == endpointID && d.Status == StatusPending && !d.inFlight {
			d.Status, d.NextAttemptAt = StatusNoSubscriber, time.Time{}
		}
	}
}

func (e *endpoint) view() EndpointView {
	v := EndpointView{ID: e.ID, URL: e.URL, Events: []string{}, Environment: e.Env, Disabled: e.Disabled, CreatedAt: e.CreatedAt}
	for t := range e.Events {
		v.Events = append(v.Events, t)
	}
	sort.Strings(v.Events)
	return v
}

// EndpointList returns the configured endpoints in creation order.
func (l *Line) EndpointList(tx *kernel.Tx) []EndpointView {
	tx.Live()
	out := make([]EndpointView, 0, len(l.st.endpoints))
	for _, e := range l.st.endpoints {
		out = append(out, e.view())
	}
	return out
}

func (d *delivery) view() DeliveryView {
	v := DeliveryView{
		ID: d.ID, EventID: d.Event.ID, EventType: d.Event.Type, EndpointID: d.EndpointID,
		Status: d.Status, Attempts: append([]Attempt{}, d.Attempts...), CreatedAt: d.CreatedAt,
		ObjectID: d.Event.ObjectID, ExternalMemberID: d.Event.ExternalMemberID,
	}
	if !d.NextAttemptAt.IsZero() {
		t := d.NextAttemptAt
		v.NextAttemptAt = &t
	}
	return v
}

// Deliveries returns every delivery row with its attempts, in the order
// the rows were created.
func (l *Line) Deliveries(tx *kernel.Tx) []DeliveryView {
	tx.Live()
	out := make([]DeliveryView, 0, len(l.st.created))
	for _, d := range l.st.created {
		out = append(out, d.view())
	}
	return out
}

// Endpoints are the line's business endpoints, for the gateway.
func (l *Line) Endpoints() []api.Endpoint {
	return []api.Endpoint{
		{
			Method: http.MethodPost, Pattern: "/v1/webhooks/deliveries/{id}/redeliver",
			Scope: "merchant:read", Idempotent: true, Handle: l.redeliver,
		},
		{
			Method: http.MethodGet, Pattern: "/v1/webhooks/deliveries",
			Scope: "merchant:read", Handle: l.list,
		},
	}
}

// redeliver serves POST /v1/webhooks/deliveries/{id}/redeliver: the
// row must be dead, failed or no_subscriber and an endpoint must subscribe
// now. The row keeps its event (same event_id and body) and is queued for
// one attempt at the next flush; when its own endpoint no longer subscribes
// it is pointed at the first current subscriber, and further current
// subscribers get rows of their own.
func (l *Line) redeliver(c *api.Request) (int, any, error) {
	if err := c.NoBody(); err != nil {
		return 0, nil, err
	}
	st := &l.st
	id := strings.TrimSpace(c.PathID())
	if !strings.HasPrefix(id, "whd_") {
		id = "whd_" + id
	}
	d := st.deliveryByID[id]
	if d == nil {
		return 0, nil, api.NotFound("webhook delivery")
	}
	switch d.Status {
	case StatusDead, StatusFailed, StatusNoSubscriber:
	default:
		return 0, nil, api.NewErr("state_invalid", "a "+d.Status+" delivery cannot be redelivered")
	}
	var targets []*endpoint
	if e := st.endpointByID[d.EndpointID]; e != nil && l.subscribes(e, d.Event.Type) {
		targets = []*endpoint{e}
	} else {
		targets = l.subscribers(d.Event.Type)
	}
	if len(targets) == 0 {
		return 0, nil, api.NewErr("state_invalid", "no endpoint currently subscribes to "+d.Event.Type)
	}
	requeue := func(x *delivery, e *endpoint) {
		x.EndpointID, x.Status, x.NextAttemptAt = e.ID, StatusPending, c.Now
		x.runLeft, x.redelivery = 1, true
	}
	requeue(d, targets[0])
	for _, e := range targets[1:] {
		requeue(l.newDelivery(c.Tx, d.Event, e.ID, StatusPending, 1), e)
	}
	l.kick()
	return 200, map[string]any{"id": d.ID, "queued": true}, nil
}

// Redeliver is the redelivery of POST
// /v1/webhooks/deliveries/{id}/redeliver, for the operator's control API.
func (l *Line) Redeliver(c *api.Request) (int, any, error) { return l.redeliver(c) }

// listItem is one item of GET /v1/webhooks/deliveries (a shape inferred
// from the redeliver result and the delivery states).
type listItem struct {
	ID            string     `json:"id"`
	EventID       string     `json:"event_id"`
	EventType     string     `json:"event_type"`
	EndpointID    string     `json:"endpoint_id"`
	Status        string     `json:"status"`
	Attempts      int        `json:"attempts"`
	NextAttemptAt *time.Time `json:"next_attempt_at"`
	CreatedAt     time.Time  `json:"created_at"`
}

// list serves GET /v1/webhooks/deliveries, newest first.
func (l *Line) list(c *api.Request) (int, any, error) {
	env := api.Paginate(l.st.deliveries, deliveryKey, c.Req.URL.Query())
	rows, _ := env.Data.([]*delivery)
	items := make([]listItem, 0, len(rows))
	for _, d := range rows {
		it := listItem{
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
