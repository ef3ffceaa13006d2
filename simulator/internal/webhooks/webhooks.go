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

// Host is what the webhook line needs from the rest of the simulator,
// beyond what every transaction gives (kernel.Tx: the clock, ids, list
// order).
type Host interface {
	// MerchantID is the merchant_id of event bodies.
	MerchantID() string
	// Environment is the simulator's environment, sandbox or production.
	Environment() string
	// WebhookSecret is the merchant's webhook_secret credential, the
	// secret of endpoints that have none of their own.
	WebhookSecret() string
	// AutoFlush starts a background flush that runs after the current
	// transaction (automatic delivery is on); a replay starts none.
	AutoFlush()
	// NotFound is the marker of a missing object that the control API
	// answers with 404 not_found.
	NotFound() error
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

// state holds the webhook endpoints and the delivery rows.
type state struct {
	endpoints    []*endpoint // in creation order
	endpointByID map[string]*endpoint
	deliveries   []*delivery // ascending by deliveryKey, for lists
	created      []*delivery // in creation order
	deliveryByID map[string]*delivery
	bodies       map[string][]byte // event id -> the exact JSON body sent
	auto         bool
}

// endpoint is one configured webhook endpoint.
type endpoint struct {
	ID        string
	URL       string
	Secret    string
	Events    map[string]bool // empty: every event
	Env       string
	Disabled  bool
	CreatedAt time.Time
}

// delivery is one delivery row: one event to one endpoint.
type delivery struct {
	seq        int64  // creation sequence, the tie-break of lists
	ID         string // whd_<uuid>
	Event      *Event
	EndpointID string // empty for a row that never had a subscriber
	Status     string
	Attempts   []Attempt
	// NextAttemptAt is when the next attempt is due (zero when none).
	NextAttemptAt time.Time
	CreatedAt     time.Time
	// runLeft is the number of attempts left in the current run: 6 when
	// queued by an event, 1 after a redelivery.
	runLeft int
	// redelivery marks a run started by a redelivery (one attempt; a
	// failure makes the row failed).
	redelivery bool
	inFlight   bool
}

func deliveryKey(d *delivery) api.PageKey { return api.PageKey{At: d.CreatedAt, Seq: d.seq} }

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

// New returns the line with no endpoints and no deliveries. wrap gives the
// round tripper the delivery client sends through, around the line's own
// pool (the simulator's exchange log, or the pool itself).
func New(h Host, wrap func(*http.Transport) http.RoundTripper) *Line {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	return &Line{
		st: state{
			endpointByID: map[string]*endpoint{},
			deliveryByID: map[string]*delivery{},
			bodies:       map[string][]byte{},
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
func (l *Line) SetAuto(tx *kernel.Tx, on bool) {
	tx.Live()
	l.st.auto = on
}

// Queue creates the delivery rows of ev: one pending row per subscribing
// endpoint (fan-out at queue time), or one no_subscriber row when none
// subscribes.
func (l *Line) Queue(tx *kernel.Tx, ev *Event) {
	l.st.bodies[ev.ID] = l.eventBody(ev)
	subs := l.subscribers(ev.Type)
	if len(subs) == 0 {
		l.newDelivery(tx, ev, "", StatusNoSubscriber, 0)
		return
	}
	for _, e := range subs {
		l.newDelivery(tx, ev, e.ID, StatusPending, MaxAttempts)
	}
	l.kick()
}

func (l *Line) newDelivery(tx *kernel.Tx, ev *Event, endpointID, status string, runLeft int) *delivery {
	now := tx.Now()
	d := &delivery{
		seq: tx.NextSeq(), ID: "whd_" + tx.NewUUID(), Event: ev, EndpointID: endpointID, Status: status,
		CreatedAt: now, runLeft: runLeft,
	}
	if status == StatusPending {
		d.NextAttemptAt = now
	}
	l.st.deliveries = api.InsertByKey(l.st.deliveries, d, deliveryKey)
	l.st.created = append(l.st.created, d)
	l.st.deliveryByID[d.ID] = d
	return d
}

// subscribers returns the active endpoints an event of type typ goes
// to: in sandbox the matching sandbox endpoints, else the matching
// production ones; in production only production endpoints.
func (l *Line) subscribers(typ string) []*endpoint {
	match := func(env string) []*endpoint {
		var out []*endpoint
		for _, e := range l.st.endpoints {
			if !e.Disabled && e.Env == env && (len(e.Events) == 0 || e.Events[typ]) {
				out = append(out, e)
			}
		}
		return out
	}
	env := l.host.Environment()
	subs := match(env)
	if len(subs) == 0 && env == Sandbox {
		subs = match(Production)
	}
	return subs
}

// subscribes reports whether e receives events of type typ now.
func (l *Line) subscribes(e *endpoint, typ string) bool {
	for _, x := range l.subscribers(typ) {
		if x == e {
			return true
		}
	}
	return false
}

// kick starts a background flush when automatic delivery is on.
func (l *Line) kick() {
	if !l.st.auto {
		return
	}
	l.host.AutoFlush()
}

// Kick starts a background flush when automatic delivery is on.
func (l *Line) Kick(tx *kernel.Tx) {
	tx.Live()
	l.kick()
}

// eventBody renders the delivery body of ev: identifiers and statuses only.
func (l *Line) eventBody(ev *Event) []byte {
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
		MerchantID: l.host.MerchantID(), Livemode: l.host.Environment() == Production, Data: data,
	})
	return body
}
