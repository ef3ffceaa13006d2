package simulator

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Webhook delivery rules of the contract.
const (
	// webhookMaxAttempts is the number of attempts of one delivery run; the
	// failed sixth makes the row dead.
	webhookMaxAttempts = 6
	// webhookTimeout bounds one delivery attempt (a real-time HTTP timeout).
	webhookTimeout = 10 * time.Second
	// maxFlushRounds bounds how often one flush looks again for deliveries
	// that became due while it ran (events emitted by receivers calling back).
	maxFlushRounds = 100
	// maxAnswerKept is how many bytes of a receiver's answer an attempt
	// keeps (WebhookAttempt.Response).
	maxAnswerKept = 512
)

// webhookBackoff is the wait after each failed attempt, on the simulator
// clock: 1, 5, 30, 120 and 360 minutes.
var webhookBackoff = [webhookMaxAttempts - 1]time.Duration{
	1 * time.Minute, 5 * time.Minute, 30 * time.Minute, 120 * time.Minute, 360 * time.Minute,
}

// Delivery row statuses.
const (
	deliveryPending      = "pending"
	deliverySent         = "sent"
	deliveryFailed       = "failed"
	deliveryDead         = "dead"
	deliveryNoSubscriber = "no_subscriber"
)

// webhookState holds the webhook endpoints and the delivery rows.
type webhookState struct {
	endpoints    []*whEndpoint // in creation order
	endpointByID map[string]*whEndpoint
	deliveries   []*whDelivery // ascending by deliveryKey, for lists
	created      []*whDelivery // in creation order
	deliveryByID map[string]*whDelivery
	bodies       map[string][]byte // event id -> the exact JSON body sent
	auto         bool
	client       *http.Client
	// transport is the simulator's own connection pool for deliveries:
	// never http.DefaultTransport, whose idle connections any code in the
	// process may close (httptest.Server.Close does) under an attempt in
	// flight. Close lets go of its connections.
	transport *http.Transport
}

// whEndpoint is one configured webhook endpoint.
type whEndpoint struct {
	ID        string
	URL       string
	Secret    string
	Events    map[string]bool // empty: every event
	Env       Environment
	Disabled  bool
	CreatedAt time.Time
}

// whDelivery is one delivery row: one event to one endpoint.
type whDelivery struct {
	seq        int64  // creation sequence, the tie-break of lists (paginate.go)
	ID         string // whd_<uuid>
	Event      *Event
	EndpointID string // empty for a row that never had a subscriber
	Status     string
	Attempts   []WebhookAttempt
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

func (s *Simulator) webhookState(tx *kernel.Tx) *webhookState {
	if s.st.webhooks == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		s.st.webhooks = &webhookState{
			transport:    tr,
			endpointByID: map[string]*whEndpoint{},
			deliveryByID: map[string]*whDelivery{},
			bodies:       map[string][]byte{},
			client: &http.Client{
				Transport: deliveryTransport(tr),
				Timeout:   webhookTimeout,
				// A redirect is not a 2xx: the attempt fails.
				CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			},
		}
	}
	return s.st.webhooks
}

// closeDeliveries lets go of the delivery pool's idle connections.
func (s *Simulator) closeDeliveries() {
	tx := s.k.Begin()
	wh := s.st.webhooks
	tx.End()
	if wh != nil {
		wh.transport.CloseIdleConnections()
	}
}

func deliveryKey(d *whDelivery) pageKey { return pageKey{At: d.CreatedAt, Seq: d.seq} }

// WebhookEndpoint describes a configured endpoint (its secret is not shown).
type WebhookEndpoint struct {
	ID  string `json:"id"`
	URL string `json:"url"`
	// Events lists the event types the endpoint subscribes to; empty means
	// every event.
	Events []string `json:"events"`
	// Environment is the environment the endpoint belongs to.
	Environment Environment `json:"environment"`
	Disabled    bool        `json:"disabled"`
	CreatedAt   time.Time   `json:"created_at"`
}

// WebhookEndpointConfig configures WebhooksControl.AddEndpointConfig.
type WebhookEndpointConfig struct {
	// URL is the absolute http or https address deliveries are POSTed to.
	URL string `json:"url"`
	// Events restricts the endpoint to these event types; empty subscribes
	// to every event.
	Events []string `json:"events"`
	// Environment is sandbox or production; empty means the simulator's
	// environment. A sandbox event goes to matching sandbox endpoints, or,
	// when there is none, to the merchant's production endpoints; a
	// production event never goes to a sandbox endpoint.
	Environment Environment `json:"environment"`
	// Secret signs this endpoint's deliveries; empty means the merchant's
	// webhook_secret credential.
	Secret string `json:"secret"`
}

// WebhookAttempt is one delivery attempt.
type WebhookAttempt struct {
	// At is the simulator time of the attempt (its signature timestamp).
	At time.Time `json:"at"`
	// StatusCode is the receiver's HTTP status; 0 when no answer came.
	StatusCode int `json:"status_code"`
	// Response is the beginning of the receiver's answer body (at most 512
	// bytes, invalid UTF-8 replaced), on success and on failure: what a
	// receiver says about a refusal, such as webhooks.Handler's "invalid
	// signature: ... timestamp out of range".
	Response string `json:"response,omitempty"`
	// Error describes a failure (empty on success): the receiver's status
	// and the beginning of its answer, or why no answer came.
	Error string `json:"error,omitempty"`
}

// WebhookDelivery is one delivery row with its attempts.
type WebhookDelivery struct {
	ID               string           `json:"id"`
	EventID          string           `json:"event_id"`
	EventType        string           `json:"event_type"`
	EndpointID       string           `json:"endpoint_id"`
	Status           string           `json:"status"`
	Attempts         []WebhookAttempt `json:"attempts"`
	NextAttemptAt    *time.Time       `json:"next_attempt_at"`
	CreatedAt        time.Time        `json:"created_at"`
	ObjectID         string           `json:"object_id"`
	ExternalMemberID string           `json:"external_member_id"`
}

func (s *Simulator) registerWebhooks(tx *kernel.Tx) {
	s.webhookState(tx)
	s.register(endpoint{
		Method: http.MethodPost, Pattern: "/v1/webhooks/deliveries/{id}/redeliver",
		Scope: "merchant:read", Idempotent: true, Handle: s.handleRedeliver,
	})
	s.register(endpoint{
		Method: http.MethodGet, Pattern: "/v1/webhooks/deliveries",
		Scope: "merchant:read", Handle: s.handleListDeliveries,
	})

	s.control("POST /_sim/webhooks/endpoints", func(tx *kernel.Tx, _ *http.Request, body []byte) (int, any, error) {
		var in WebhookEndpointConfig
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		if err := checkEventTypes(in.Events); err != nil {
			return 0, nil, err
		}
		e, err := s.addWebhookEndpoint(tx, in)
		if err != nil {
			return 0, nil, err
		}
		out := e.view()
		return http.StatusCreated, map[string]any{
			"id": out.ID, "secret": e.Secret, "url": out.URL, "events": out.Events,
			"environment": out.Environment, "created_at": out.CreatedAt,
		}, nil
	})
	s.control("GET /_sim/webhooks/endpoints", func(tx *kernel.Tx, _ *http.Request, _ []byte) (int, any, error) {
		return http.StatusOK, map[string]any{"endpoints": s.webhookEndpoints(tx)}, nil
	})
	s.control("DELETE /_sim/webhooks/endpoints/{id}", func(tx *kernel.Tx, r *http.Request, _ []byte) (int, any, error) {
		if err := s.removeWebhookEndpoint(tx, r.PathValue("id")); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, map[string]any{"id": r.PathValue("id"), "deleted": true}, nil
	})
	s.control("POST /_sim/webhooks/endpoints/{id}/disable", func(tx *kernel.Tx, r *http.Request, _ []byte) (int, any, error) {
		e, err := s.setWebhookEndpointDisabled(tx, r.PathValue("id"), true)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, e.view(), nil
	})
	s.control("POST /_sim/webhooks/endpoints/{id}/enable", func(tx *kernel.Tx, r *http.Request, _ []byte) (int, any, error) {
		e, err := s.setWebhookEndpointDisabled(tx, r.PathValue("id"), false)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, e.view(), nil
	})
	s.control("GET /_sim/webhooks/deliveries", func(tx *kernel.Tx, _ *http.Request, _ []byte) (int, any, error) {
		return http.StatusOK, map[string]any{"deliveries": s.webhookDeliveries(tx)}, nil
	})
	s.control("POST /_sim/webhooks/events", func(tx *kernel.Tx, _ *http.Request, body []byte) (int, any, error) {
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
		id, err := s.emitEvent(tx, in.EventType, in.Object, in.ID, in.ExternalMemberID, in.Status, version, in.Extra)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusCreated, map[string]any{"event_id": id}, nil
	})
	s.control("POST /_sim/webhooks/auto", func(tx *kernel.Tx, _ *http.Request, body []byte) (int, any, error) {
		var in struct {
			Enabled bool `json:"enabled"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		s.webhookState(tx).auto = in.Enabled
		return http.StatusOK, map[string]any{"enabled": in.Enabled}, nil
	})
	// Flush delivers over HTTP, so it must not run under the state lock (a
	// receiver may call back into the simulator): it is not a s.control
	// endpoint.
	s.wiring.mux.HandleFunc("POST /_sim/webhooks/flush", func(w http.ResponseWriter, r *http.Request) {
		id := s.controlRequestID(w)
		body, _ := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
		if ae := decodeStrict(body, &struct{}{}, refuseUnknown); ae != nil {
			writeJSON(w, ae.Status, ae.Envelope(id))
			return
		}
		// Failed attempts are part of the answer (failures, hint), not an
		// error of the flush.
		res, err := s.flushWebhooks(r.Context())
		var fe *FlushError
		if err != nil && !errors.As(err, &fe) {
			writeJSON(w, http.StatusInternalServerError, errBusiness500("flush interrupted: "+err.Error()).Envelope(id))
			return
		}
		writeJSON(w, http.StatusOK, res)
	})
}

// queueDeliveries creates the delivery rows of ev: one pending row per
// subscribing endpoint (fan-out at queue time), or one no_subscriber row
// when none subscribes. It runs in a transaction.
func (s *Simulator) queueDeliveries(tx *kernel.Tx, ev *Event) {
	st := s.webhookState(tx)
	st.bodies[ev.ID] = s.eventBody(ev)
	subs := s.subscribers(tx, ev.Type)
	if len(subs) == 0 {
		s.newDelivery(tx, ev, "", deliveryNoSubscriber, 0)
		return
	}
	for _, e := range subs {
		s.newDelivery(tx, ev, e.ID, deliveryPending, webhookMaxAttempts)
	}
	s.kickAutoDelivery(tx)
}

func (s *Simulator) newDelivery(tx *kernel.Tx, ev *Event, endpointID, status string, runLeft int) *whDelivery {
	st := s.webhookState(tx)
	now := s.st.clock.Now()
	d := &whDelivery{
		seq: s.nextSeq(tx), ID: "whd_" + s.newUUID(), Event: ev, EndpointID: endpointID, Status: status,
		CreatedAt: now, runLeft: runLeft,
	}
	if status == deliveryPending {
		d.NextAttemptAt = now
	}
	st.deliveries = insertByKey(st.deliveries, d, deliveryKey)
	st.created = append(st.created, d)
	st.deliveryByID[d.ID] = d
	return d
}

// subscribers returns the active endpoints an event of type typ goes
// to: in sandbox the matching sandbox endpoints, else the matching
// production ones; in production only production endpoints.
func (s *Simulator) subscribers(tx *kernel.Tx, typ string) []*whEndpoint {
	st := s.webhookState(tx)
	match := func(env Environment) []*whEndpoint {
		var out []*whEndpoint
		for _, e := range st.endpoints {
			if !e.Disabled && e.Env == env && (len(e.Events) == 0 || e.Events[typ]) {
				out = append(out, e)
			}
		}
		return out
	}
	subs := match(s.st.creds.Environment)
	if len(subs) == 0 && s.st.creds.Environment == Sandbox {
		subs = match(Production)
	}
	return subs
}

// subscribes reports whether e receives events of type typ now.
func (s *Simulator) subscribes(tx *kernel.Tx, e *whEndpoint, typ string) bool {
	for _, x := range s.subscribers(tx, typ) {
		if x == e {
			return true
		}
	}
	return false
}

// kickAutoDelivery starts a background flush when automatic delivery
// is on. The goroutine waits for the state lock, so it runs after the current request.
func (s *Simulator) kickAutoDelivery(tx *kernel.Tx) {
	if !s.webhookState(tx).auto || s.wiring.rec.replaying() {
		// A replay runs the flushes the recording holds instead.
		return
	}
	go func() { _, _ = s.flushWebhooks(context.Background()) }()
}

// eventBody renders the delivery body of ev: identifiers and statuses only.
func (s *Simulator) eventBody(ev *Event) []byte {
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
		MerchantID: s.st.creds.MerchantID, Livemode: s.st.creds.Environment == Production, Data: data,
	})
	return body
}

// webhookSignature returns the z-signature value for body sent at t.
func webhookSignature(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "t=" + ts + ",v1=" + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}
