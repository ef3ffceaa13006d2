// Package webhooks is the webhook line of the simulator: the endpoints
// events are delivered to, the delivery rows with their attempts, and GET
// /v1/webhooks/deliveries and POST /v1/webhooks/deliveries/{id}/redeliver.
// It owns that state and the transitions that run under the state lock:
// queuing an event's deliveries, picking the due ones, recording an
// attempt's answer, redelivery and the endpoints' changes. The flush that
// delivers over HTTP runs outside the lock and is the simulator's: it logs
// each step as an input and calls back into the Line. What the line needs
// from the rest of the simulator (the merchant's credentials, starting a
// background flush) it reaches through Host.
package webhooks

import (
	"bytes"
	"cmp"
	"encoding/json"
	"net/http"
	"sort"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Webhook delivery rules of the contract.
const (
	// MaxAttempts is the number of attempts of one delivery run; the
	// failed sixth makes the row dead.
	MaxAttempts = 6
	// Timeout bounds one delivery attempt (a real-time HTTP timeout).
	Timeout = 10 * time.Second
)

// backoff is the wait after each failed attempt, on the simulator
// clock: 1, 5, 30, 120 and 360 minutes.
var backoff = [MaxAttempts - 1]time.Duration{
	1 * time.Minute, 5 * time.Minute, 30 * time.Minute, 120 * time.Minute, 360 * time.Minute,
}

// Delivery row statuses.
const (
	StatusPending      = "pending"
	StatusSent         = "sent"
	StatusFailed       = "failed"
	StatusDead         = "dead"
	StatusNoSubscriber = "no_subscriber"
)

// Environments of endpoints and events.
const (
	Sandbox    = "sandbox"
	Production = "production"
)

// Host is what the webhook line needs of the simulator's delivery, beyond
// what every transaction gives (kernel.Tx: the clock, ids, list order, the
// merchant's environment and webhook secret).
type Host interface {
	// AutoFlush starts a background flush that runs after the current
	// transaction (automatic delivery is on); a replay starts none.
	AutoFlush()
}

// Event is an event recorded for delivery. Its fields are those of the
// simulator's public Event, in the same order.
type Event struct {
	ID               string
	Type             string
	CreatedAt        time.Time
	Object           string
	ObjectID         string
	ExternalMemberID string
	Status           string
	StatusVersion    int64
	Extra            map[string]any
}

// eventRow is an event as the events table holds it: its extra data fields
// in typed JSON (extra.go), and its place among the events.
type eventRow struct {
	ID               string
	Type             string
	CreatedAt        time.Time
	Object           string
	ObjectID         string
	ExternalMemberID string
	Status           string
	StatusVersion    int64
	Extra            string
	Seq              int64
}

func (e eventRow) event() Event {
	return Event{
		ID: e.ID, Type: e.Type, CreatedAt: e.CreatedAt, Object: e.Object, ObjectID: e.ObjectID,
		ExternalMemberID: e.ExternalMemberID, Status: e.Status, StatusVersion: e.StatusVersion, Extra: decodeExtra(e.Extra),
	}
}

// Attempt is one delivery attempt. Its fields are those of the
// simulator's public WebhookAttempt, in the same order.
type Attempt struct {
	// At is the simulator time of the attempt (its signature timestamp).
	At time.Time
	// StatusCode is the receiver's HTTP status; 0 when no answer came.
	StatusCode int
	// Response is the kept beginning of the receiver's answer body.
	Response string
	// Error describes a failure (empty on success).
	Error string
}

// state holds the events, the webhook endpoints and the delivery rows.
type state struct {
	events       *kernel.Table[string, eventRow] // by event id
	eventOrder   *kernel.Index[string, eventRow, int64]
	endpoints    *kernel.Table[string, endpoint] // by whe_ id
	endpointList *kernel.Index[string, endpoint, int64]
	deliveries   *kernel.Table[string, delivery]              // by whd_ id
	listed       *kernel.Index[string, delivery, api.PageKey] // for lists
	created      *kernel.Index[string, delivery, int64]       // in creation order
	bodies       *kernel.Table[string, string]                // event id -> the exact JSON body sent
	auto         *kernel.Cell[bool]
	// counts numbers the events and the endpoints as they are made.
	counts *kernel.Cell[counts]
}

// counts are the events and endpoints made so far.
type counts struct{ Events, Endpoints int64 }

// endpoint is one configured webhook endpoint.
type endpoint struct {
	ID        string
	URL       string
	Secret    string
	Events    kernel.List[string] // sorted; empty: every event
	Env       string
	Disabled  bool
	CreatedAt time.Time
	Seq       int64 // creation order
}

// subscribesTo reports whether the endpoint subscribes to events of type
// typ (every type when it names none).
func (e endpoint) subscribesTo(typ string) bool {
	return e.Events.Len() == 0 || e.Events.Index(func(t string) bool { return t == typ }) >= 0
}

// delivery is one delivery row: one event to one endpoint.
type delivery struct {
	Seq        int64  // creation sequence, the tie-break of lists
	ID         string // whd_<uuid>
	EventID    string
	EventType  string
	EndpointID string // empty for a row that never had a subscriber
	Status     string
	Attempts   kernel.List[Attempt]
	// NextAttemptAt is when the next attempt is due (zero when none).
	NextAttemptAt time.Time
	CreatedAt     time.Time
	// RunLeft is the number of attempts left in the current run: 6 when
	// queued by an event, 1 after a redelivery.
	RunLeft int
	// Redelivery marks a run started by a redelivery (one attempt; a
	// failure makes the row failed).
	Redelivery bool
	InFlight   bool
}

func deliveryKey(d delivery) api.PageKey { return api.PageKey{At: d.CreatedAt, Seq: d.Seq} }

// Line is the webhook line: its state, its host and its delivery client.
// The state is part of the simulator's state image; the rest is not.
type Line struct {
	st   state
	host Host `image:"-"`
	// client sends the deliveries through transport, the line's own
	// connection pool: never http.DefaultTransport, whose idle connections
	// any code in the process may close (httptest.Server.Close does) under
	// an attempt in flight. CloseIdle lets go of its connections.
	client    *http.Client    `image:"-"`
	transport *http.Transport `image:"-"`
}

// New returns the line with no events, endpoints or deliveries, its tables
// in kernel k. wrap gives the round tripper the delivery client sends
// through, around the line's own pool (the simulator's exchange log, or the
// pool itself).
func New(k *kernel.Kernel, h Host, wrap func(*http.Transport) http.RoundTripper) *Line {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	events := kernel.NewTable[string, eventRow](k, "webhooks.events")
	endpoints := kernel.NewTable[string, endpoint](k, "webhooks.endpoints")
	deliveries := kernel.NewTable[string, delivery](k, "webhooks.deliveries")
	bySeq := func(a, b int64) int { return cmp.Compare(a, b) }
	return &Line{
		st: state{
			events:       events,
			eventOrder:   kernel.NewIndex(events, "by_creation", func(e eventRow) (int64, bool) { return e.Seq, true }, bySeq),
			endpoints:    endpoints,
			endpointList: kernel.NewIndex(endpoints, "by_creation", func(e endpoint) (int64, bool) { return e.Seq, true }, bySeq),
			deliveries:   deliveries,
			listed:       kernel.NewIndex(deliveries, "by_created", func(d delivery) (api.PageKey, bool) { return deliveryKey(d), true }, api.ComparePageKey),
			created:      kernel.NewIndex(deliveries, "by_creation", func(d delivery) (int64, bool) { return d.Seq, true }, bySeq),
			bodies:       kernel.NewTable[string, string](k, "webhooks.bodies"),
			auto:         kernel.NewCell(k, "webhooks.auto", false),
			counts:       kernel.NewCell(k, "webhooks.counts", counts{}),
		},
		host:      h,
		transport: tr,
		client: &http.Client{
			Transport: wrap(tr),
			Timeout:   Timeout,
			// A redirect is not a 2xx: the attempt fails.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
}

// Client is the delivery client; attempts run outside any transaction.
func (l *Line) Client() *http.Client { return l.client }

// Transport is the delivery client's own connection pool.
func (l *Line) Transport() *http.Transport { return l.transport }

// CloseIdle lets go of the delivery pool's idle connections.
func (l *Line) CloseIdle() { l.transport.CloseIdleConnections() }

// SetAuto switches automatic delivery on or off.
func (l *Line) SetAuto(tx *kernel.Tx, on bool) { l.st.auto.Set(tx, on) }

// Emit records the event e for delivery and returns its id, drawn from
// the seeded ids; it is created now on the simulator clock and carries
// externalMemberID, its owner's (empty for none). The rule of which
// members' events are not sent at all is the caller's.
func (l *Line) Emit(tx *kernel.Tx, e kernel.Event, externalMemberID string) string {
	ev := Event{
		ID:               "evt_" + tx.NewUUID(),
		Type:             e.Type,
		CreatedAt:        tx.Now(),
		Object:           e.Object,
		ObjectID:         e.ObjectID,
		ExternalMemberID: externalMemberID,
		Status:           e.Status,
		StatusVersion:    e.Version,
		Extra:            e.Extra,
	}
	l.Queue(tx, ev)
	return ev.ID
}

// Queue records ev and creates its delivery rows: one pending row per
// subscribing endpoint (fan-out at queue time), or one no_subscriber row
// when none subscribes.
func (l *Line) Queue(tx *kernel.Tx, ev Event) {
	var n counts
	l.st.counts.Update(tx, func(c *counts) { c.Events++; n = *c })
	l.st.events.Put(tx, ev.ID, eventRow{
		ID: ev.ID, Type: ev.Type, CreatedAt: ev.CreatedAt, Object: ev.Object, ObjectID: ev.ObjectID,
		ExternalMemberID: ev.ExternalMemberID, Status: ev.Status, StatusVersion: ev.StatusVersion,
		Extra: encodeExtra(ev.Extra), Seq: n.Events,
	})
	l.st.bodies.Put(tx, ev.ID, string(l.eventBody(tx, ev)))
	subs := l.subscribers(tx, ev.Type)
	if len(subs) == 0 {
		l.newDelivery(tx, ev.ID, ev.Type, "", StatusNoSubscriber, 0)
		return
	}
	for _, e := range subs {
		l.newDelivery(tx, ev.ID, ev.Type, e.ID, StatusPending, MaxAttempts)
	}
	l.kick(tx)
}

// Events returns the events recorded, oldest first.
func (l *Line) Events(tx *kernel.Tx) []Event {
	out := make([]Event, 0, l.st.eventOrder.Len(tx))
	for _, e := range l.st.eventOrder.All(tx) {
		out = append(out, e.event())
	}
	return out
}

// EventCount is the number of events recorded.
func (l *Line) EventCount(tx *kernel.Tx) int { return l.st.events.Len(tx) }

func (l *Line) newDelivery(tx *kernel.Tx, eventID, eventType, endpointID, status string, runLeft int) delivery {
	now := tx.Now()
	d := delivery{
		Seq: tx.NextSeq(), ID: "whd_" + tx.NewUUID(), EventID: eventID, EventType: eventType, EndpointID: endpointID, Status: status,
		CreatedAt: now, RunLeft: runLeft,
	}
	if status == StatusPending {
		d.NextAttemptAt = now
	}
	l.st.deliveries.Put(tx, d.ID, d)
	return d
}

// subscribers returns the active endpoints an event of type typ goes
// to: in sandbox the matching sandbox endpoints, else the matching
// production ones; in production only production endpoints.
func (l *Line) subscribers(tx *kernel.Tx, typ string) []endpoint {
	match := func(env string) []endpoint {
		var out []endpoint
		for _, e := range l.st.endpointList.All(tx) {
			if !e.Disabled && e.Env == env && e.subscribesTo(typ) {
				out = append(out, e)
			}
		}
		return out
	}
	env := tx.Environment()
	subs := match(env)
	if len(subs) == 0 && env == Sandbox {
		subs = match(Production)
	}
	return subs
}

// subscribes reports whether the endpoint of id receives events of type
// typ now.
func (l *Line) subscribes(tx *kernel.Tx, id, typ string) bool {
	for _, x := range l.subscribers(tx, typ) {
		if x.ID == id {
			return true
		}
	}
	return false
}

// kick starts a background flush, once the step that asks for it commits,
// when automatic delivery is on.
func (l *Line) kick(tx *kernel.Tx) {
	if !l.st.auto.Get(tx) {
		return
	}
	tx.OnCommit(l.host.AutoFlush)
}

// Kick starts a background flush when automatic delivery is on.
func (l *Line) Kick(tx *kernel.Tx) { l.kick(tx) }

// eventBody renders the delivery body of ev: identifiers and statuses only.
func (l *Line) eventBody(tx *kernel.Tx, ev Event) []byte {
	type wireData struct {
		Object           string `json:"object"`
		ID               string `json:"id"`
		ExternalMemberID string `json:"external_member_id"`
		Status           string `json:"status"`
		StatusVersion    int64  `json:"status_version"`
	}
	type wireEvent struct {
		EventID    string          `json:"event_id"`
		EventType  string          `json:"event_type"`
		CreatedAt  string          `json:"created_at"`
		MerchantID string          `json:"merchant_id"`
		Livemode   bool            `json:"livemode"`
		Data       json.RawMessage `json:"data"`
	}
	data, _ := json.Marshal(wireData{ev.Object, ev.ObjectID, ev.ExternalMemberID, ev.Status, ev.StatusVersion})
	if len(ev.Extra) > 0 {
		keys := make([]string, 0, len(ev.Extra))
		for k := range ev.Extra {
			switch k {
			case "object", "id", "external_member_id", "status", "status_version":
				continue
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b bytes.Buffer
		b.Write(data[:len(data)-1])
		for _, k := range keys {
			v, err := json.Marshal(ev.Extra[k])
			if err != nil {
				continue
			}
			kb, _ := json.Marshal(k)
			b.WriteByte(',')
			b.Write(kb)
			b.WriteByte(':')
			b.Write(v)
		}
		b.WriteByte('}')
		data = b.Bytes()
	}
	body, _ := json.Marshal(wireEvent{
		EventID: ev.ID, EventType: ev.Type, CreatedAt: ev.CreatedAt.UTC().Format(time.RFC3339Nano),
		MerchantID: tx.MerchantID(), Livemode: tx.Environment() == Production, Data: data,
	})
	return body
}

// Legacy is the webhook line as the state image of recordings of versions
// 1 and 2 held it.
type Legacy struct{ St legacyState }

type legacyState struct {
	Endpoints    []*legacyEndpoint
	EndpointByID map[string]*legacyEndpoint
	Deliveries   []*legacyDelivery
	Created      []*legacyDelivery
	DeliveryByID map[string]*legacyDelivery
	Bodies       map[string][]byte
	Auto         bool
}

type legacyEndpoint struct {
	ID        string
	URL       string
	Secret    string
	Events    map[string]bool
	Env       string
	Disabled  bool
	CreatedAt time.Time
}

type legacyDelivery struct {
	Seq           int64
	ID            string
	Event         *Event
	EndpointID    string
	Status        string
	Attempts      []Attempt
	NextAttemptAt time.Time
	CreatedAt     time.Time
	RunLeft       int
	Redelivery    bool
	InFlight      bool
}

// Legacy returns the events, oldest first, and the line as the state image
// of recordings of versions 1 and 2 held them (the simulator's list of
// events, and the line's rows sharing them).
func (l *Line) Legacy(tx *kernel.Tx) ([]*Event, *Legacy) {
	var events []*Event
	byID := map[string]*Event{}
	for _, e := range l.st.eventOrder.All(tx) {
		ev := e.event()
		events = append(events, &ev)
		byID[ev.ID] = &ev
	}
	st := legacyState{EndpointByID: map[string]*legacyEndpoint{}, DeliveryByID: map[string]*legacyDelivery{}, Bodies: map[string][]byte{}, Auto: l.st.auto.Get(tx)}
	if l.st.counts.Get(tx).Endpoints > 0 {
		st.Endpoints = []*legacyEndpoint{}
	}
	for _, e := range l.st.endpointList.All(tx) {
		le := &legacyEndpoint{ID: e.ID, URL: e.URL, Secret: e.Secret, Events: map[string]bool{}, Env: e.Env, Disabled: e.Disabled, CreatedAt: e.CreatedAt}
		for t := range e.Events.Values() {
			le.Events[t] = true
		}
		st.Endpoints = append(st.Endpoints, le)
		st.EndpointByID[e.ID] = le
	}
	for _, d := range l.st.created.All(tx) {
		ld := &legacyDelivery{
			Seq: d.Seq, ID: d.ID, Event: byID[d.EventID], EndpointID: d.EndpointID, Status: d.Status,
			Attempts: d.Attempts.Slice(), NextAttemptAt: d.NextAttemptAt, CreatedAt: d.CreatedAt,
			RunLeft: d.RunLeft, Redelivery: d.Redelivery, InFlight: d.InFlight,
		}
		st.Created = append(st.Created, ld)
		st.DeliveryByID[d.ID] = ld
	}
	for _, d := range l.st.listed.All(tx) {
		st.Deliveries = append(st.Deliveries, st.DeliveryByID[d.ID])
	}
	for id, b := range l.st.bodies.All(tx) {
		st.Bodies[id] = []byte(b)
	}
	return events, &Legacy{St: st}
}
