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
		env = tx.Environment()
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
	types := make([]string, 0, len(events))
	for t := range events {
		types = append(types, t)
	}
	sort.Strings(types)
	secret := cfg.Secret
	if secret == "" {
		secret = tx.WebhookSecret()
	}
	var n counts
	st.counts.Update(tx, func(c *counts) { c.Endpoints++; n = *c })
	e := endpoint{
		ID: "whe_" + tx.NewUUID(), URL: raw, Secret: secret, Events: kernel.ListOf(types...), Env: env,
		CreatedAt: tx.Now(), Seq: n.Endpoints,
	}
	st.endpoints.Put(tx, e.ID, e)
	return e.view(), e.Secret, nil
}

// endpoint finds an endpoint by its id, with or without the whe_ prefix.
func (l *Line) endpoint(tx *kernel.Tx, id string) (endpoint, error) {
	id = strings.TrimSpace(id)
	e, ok := l.st.endpoints.Get(tx, id)
	if !ok && !strings.HasPrefix(id, "whe_") {
		e, ok = l.st.endpoints.Get(tx, "whe_"+id)
	}
	if !ok {
		return endpoint{}, fmt.Errorf("webhook endpoint %q: %w", id, api.ErrControlNotFound)
	}
	return e, nil
}

// RemoveEndpoint deletes an endpoint; its pending deliveries become
// no_subscriber.
func (l *Line) RemoveEndpoint(tx *kernel.Tx, id string) error {
	e, err := l.endpoint(tx, id)
	if err != nil {
		return err
	}
	l.st.endpoints.Delete(tx, e.ID)
	l.orphanPending(tx, e.ID)
	return nil
}

// SetEndpointDisabled disables or enables an endpoint; disabling turns its
// pending deliveries no_subscriber.
func (l *Line) SetEndpointDisabled(tx *kernel.Tx, id string, disabled bool) (EndpointView, error) {
	e, err := l.endpoint(tx, id)
	if err != nil {
		return EndpointView{}, err
	}
	e.Disabled = disabled
	l.st.endpoints.Put(tx, e.ID, e)
	if disabled {
		l.orphanPending(tx, e.ID)
	}
	return e.view(), nil
}

// orphanPending turns the pending rows of an endpoint that was
// disabled or deleted into no_subscriber. A row whose attempt is in flight
// is settled when the attempt returns.
func (l *Line) orphanPending(tx *kernel.Tx, endpointID string) {
	var orphans []delivery
	for _, d := range l.st.created.All(tx) {
		if d.EndpointID == endpointID && d.Status == StatusPending && !d.InFlight {
			orphans = append(orphans, d)
		}
	}
	for _, d := range orphans {
		d.Status, d.NextAttemptAt = StatusNoSubscriber, time.Time{}
		l.st.deliveries.Put(tx, d.ID, d)
	}
}

func (e endpoint) view() EndpointView {
	v := EndpointView{ID: e.ID, URL: e.URL, Events: e.Events.Slice(), Environment: e.Env, Disabled: e.Disabled, CreatedAt: e.CreatedAt}
	if v.Events == nil {
		v.Events = []string{}
	}
	return v
}

// EndpointList returns the configured endpoints in creation order.
func (l *Line) EndpointList(tx *kernel.Tx) []EndpointView {
	out := make([]EndpointView, 0, l.st.endpointList.Len(tx))
	for _, e := range l.st.endpointList.All(tx) {
		out = append(out, e.view())
	}
	return out
}

func (l *Line) view(tx *kernel.Tx, d delivery) DeliveryView {
	ev, _ := l.st.events.Get(tx, d.EventID)
	v := DeliveryView{
		ID: d.ID, EventID: d.EventID, EventType: d.EventType, EndpointID: d.EndpointID,
		Status: d.Status, Attempts: append([]Attempt{}, d.Attempts.Slice()...), CreatedAt: d.CreatedAt,
		ObjectID: ev.ObjectID, ExternalMemberID: ev.ExternalMemberID,
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
	out := make([]DeliveryView, 0, l.st.created.Len(tx))
	for _, d := range l.st.created.All(tx) {
		out = append(out, l.view(tx, d))
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
	d, ok := st.deliveries.Get(c.Tx, id)
	if !ok {
		return 0, nil, api.NotFound("webhook delivery")
	}
	switch d.Status {
	case StatusDead, StatusFailed, StatusNoSubscriber:
	default:
		return 0, nil, api.NewErr("state_invalid", "a "+d.Status+" delivery cannot be redelivered")
	}
	var targets []endpoint
	if e, ok := st.endpoints.Get(c.Tx, d.EndpointID); ok && l.subscribes(c.Tx, e.ID, d.EventType) {
		targets = []endpoint{e}
	} else {
		targets = l.subscribers(c.Tx, d.EventType)
	}
	if len(targets) == 0 {
		return 0, nil, api.NewErr("state_invalid", "no endpoint currently subscribes to "+d.EventType)
	}
	requeue := func(x delivery, e endpoint) {
		x.EndpointID, x.Status, x.NextAttemptAt = e.ID, StatusPending, c.Now
		x.RunLeft, x.Redelivery = 1, true
		st.deliveries.Put(c.Tx, x.ID, x)
	}
	requeue(d, targets[0])
	for _, e := range targets[1:] {
		requeue(l.newDelivery(c.Tx, d.EventID, d.EventType, e.ID, StatusPending, 1), e)
	}
	l.kick(c.Tx)
	return 200, map[string]any{"id": d.ID, "queued": true}, nil
}

// Redeliver is the redelivery of POST
// /v1/webhooks/deliveries/{id}/redeliver, for the operator's control API.
func (l *Line) Redeliver(c *api.Request) (int, any, error) { return l.redeliver(c) }

// RedeliverID is the operator's redelivery of delivery id (with or without
// whd_) at now, in tx: Redeliver over a request of its own, answering the
// row (Control API: POST /_sim/webhooks/deliveries/{id}/redeliver; Go:
// WebhooksControl.Redeliver).
func (l *Line) RedeliverID(tx *kernel.Tx, now time.Time, id string) (any, error) {
	r, err := http.NewRequest(http.MethodPost, "/_sim/webhooks/deliveries/redeliver", nil)
	if err != nil {
		return nil, err
	}
	r.SetPathValue("id", id)
	_, out, err := l.Redeliver(&api.Request{Tx: tx, Req: r, Now: now, Header: http.Header{}})
	return out, err
}

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
	env := api.PaginateIndex(c.Tx, l.st.listed, c.Req.URL.Query())
	rows, _ := env.Data.([]delivery)
	items := make([]listItem, 0, len(rows))
	for _, d := range rows {
		it := listItem{
			ID: d.ID, EventID: d.EventID, EventType: d.EventType, EndpointID: d.EndpointID,
			Status: d.Status, Attempts: d.Attempts.Len(), CreatedAt: d.CreatedAt.UTC(),
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
