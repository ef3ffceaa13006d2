package simulator

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"time"
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

func (s *Simulator) webhookStateLocked() *webhookState {
	if s.webhooks == nil {
		s.webhooks = &webhookState{
			endpointByID: map[string]*whEndpoint{},
			deliveryByID: map[string]*whDelivery{},
			bodies:       map[string][]byte{},
			client: &http.Client{
				Timeout: webhookTimeout,
				// A redirect is not a 2xx: the attempt fails.
				CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			},
		}
	}
	return s.webhooks
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
	// Error describes a failure (empty on success).
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

// FlushResult counts the attempts one flush made.
type FlushResult struct {
	Attempted int `json:"attempted"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
}

func (s *Simulator) registerWebhooks() {
	s.webhookStateLocked()
	s.register(endpoint{
		method: http.MethodPost, pattern: "/v1/webhooks/deliveries/{id}/redeliver",
		scope: "merchant:read", idempotent: true, handle: s.handleRedeliver,
	})
	s.register(endpoint{
		method: http.MethodGet, pattern: "/v1/webhooks/deliveries",
		scope: "merchant:read", handle: s.handleListDeliveries,
	})

	s.control("POST /_sim/webhooks/endpoints", func(_ *http.Request, body []byte) (int, any, error) {
		var in WebhookEndpointConfig
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		e, err := s.addWebhookEndpointLocked(in)
		if err != nil {
			return 0, nil, err
		}
		out := e.view()
		return http.StatusCreated, map[string]any{
			"id": out.ID, "secret": e.Secret, "url": out.URL, "events": out.Events,
			"environment": out.Environment, "created_at": out.CreatedAt,
		}, nil
	})
	s.control("GET /_sim/webhooks/endpoints", func(*http.Request, []byte) (int, any, error) {
		return http.StatusOK, map[string]any{"endpoints": s.webhookEndpointsLocked()}, nil
	})
	s.control("DELETE /_sim/webhooks/endpoints/{id}", func(r *http.Request, _ []byte) (int, any, error) {
		if err := s.removeWebhookEndpointLocked(r.PathValue("id")); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, map[string]any{"id": r.PathValue("id"), "deleted": true}, nil
	})
	s.control("POST /_sim/webhooks/endpoints/{id}/disable", func(r *http.Request, _ []byte) (int, any, error) {
		e, err := s.setWebhookEndpointDisabledLocked(r.PathValue("id"), true)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, e.view(), nil
	})
	s.control("POST /_sim/webhooks/endpoints/{id}/enable", func(r *http.Request, _ []byte) (int, any, error) {
		e, err := s.setWebhookEndpointDisabledLocked(r.PathValue("id"), false)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, e.view(), nil
	})
	s.control("GET /_sim/webhooks/deliveries", func(*http.Request, []byte) (int, any, error) {
		return http.StatusOK, map[string]any{"deliveries": s.webhookDeliveriesLocked()}, nil
	})
	s.control("POST /_sim/webhooks/events", func(_ *http.Request, body []byte) (int, any, error) {
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
		id, err := s.emitEventLocked(in.EventType, in.Object, in.ID, in.ExternalMemberID, in.Status, version, in.Extra)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusCreated, map[string]any{"event_id": id}, nil
	})
	s.control("POST /_sim/webhooks/auto", func(_ *http.Request, body []byte) (int, any, error) {
		var in struct {
			Enabled bool `json:"enabled"`
		}
		if err := decodeControl(body, &in); err != nil {
			return 0, nil, err
		}
		s.webhookStateLocked().auto = in.Enabled
		return http.StatusOK, map[string]any{"enabled": in.Enabled}, nil
	})
	// Flush delivers over HTTP, so it must not run under the state lock (a
	// receiver may call back into the simulator): it is not a s.control
	// endpoint.
	s.mux.HandleFunc("POST /_sim/webhooks/flush", func(w http.ResponseWriter, r *http.Request) {
		id := s.controlRequestID(w)
		body, _ := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
		if ae := decodeStrict(body, &struct{}{}, refuseUnknown); ae != nil {
			writeJSON(w, ae.status, ae.envelope(id))
			return
		}
		res, err := s.flushWebhooks(r.Context())
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, errBusiness500("flush interrupted: "+err.Error()).envelope(id))
			return
		}
		writeJSON(w, http.StatusOK, res)
	})
}

// queueDeliveries creates the delivery rows of ev: one pending row per
// subscribing endpoint (fan-out at queue time), or one no_subscriber row
// when none subscribes. It runs with s.mu held.
func (s *Simulator) queueDeliveries(ev *Event) {
	st := s.webhookStateLocked()
	st.bodies[ev.ID] = s.eventBody(ev)
	subs := s.subscribersLocked(ev.Type)
	if len(subs) == 0 {
		s.newDeliveryLocked(ev, "", deliveryNoSubscriber, 0)
		return
	}
	for _, e := range subs {
		s.newDeliveryLocked(ev, e.ID, deliveryPending, webhookMaxAttempts)
	}
	s.kickAutoDeliveryLocked()
}

func (s *Simulator) newDeliveryLocked(ev *Event, endpointID, status string, runLeft int) *whDelivery {
	st := s.webhookStateLocked()
	now := s.clock.Now()
	d := &whDelivery{
		seq: s.nextSeq(), ID: "whd_" + s.newUUID(), Event: ev, EndpointID: endpointID, Status: status,
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

// subscribersLocked returns the active endpoints an event of type typ goes
// to: in sandbox the matching sandbox endpoints, else the matching
// production ones; in production only production endpoints.
func (s *Simulator) subscribersLocked(typ string) []*whEndpoint {
	st := s.webhookStateLocked()
	match := func(env Environment) []*whEndpoint {
		var out []*whEndpoint
		for _, e := range st.endpoints {
			if !e.Disabled && e.Env == env && (len(e.Events) == 0 || e.Events[typ]) {
				out = append(out, e)
			}
		}
		return out
	}
	subs := match(s.creds.Environment)
	if len(subs) == 0 && s.creds.Environment == Sandbox {
		subs = match(Production)
	}
	return subs
}

// subscribes reports whether e receives events of type typ now.
func (s *Simulator) subscribesLocked(e *whEndpoint, typ string) bool {
	for _, x := range s.subscribersLocked(typ) {
		if x == e {
			return true
		}
	}
	return false
}

// kickAutoDeliveryLocked starts a background flush when automatic delivery
// is on. The goroutine waits for s.mu, so it runs after the current request.
func (s *Simulator) kickAutoDeliveryLocked() {
	if !s.webhookStateLocked().auto || s.rec.replaying() {
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
		MerchantID: s.creds.MerchantID, Livemode: s.creds.Environment == Production, Data: data,
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

// deliveryJob is what one attempt needs, copied out under the lock.
type deliveryJob struct {
	d         *whDelivery
	url       string
	secret    string
	body      []byte
	eventID   string
	eventType string
	at        time.Time
}

// flushWebhooks attempts every delivery that is due now on the simulator
// clock and returns when all attempts are done. Attempts are HTTP POSTs
// made without the simulator's lock, so receivers may call back into the
// simulator; deliveries that fall due during the flush (events emitted by
// those calls) are attempted too. Retries fall due as the clock advances
// (Advance), 1, 5, 30, 120 and 360 minutes after each failure; flush again
// to attempt them. A cancelled ctx stops the flush; an attempt cut short by
// the cancellation is not recorded and stays due.
//
// Each part of a flush that takes the state lock is an input of the log
// (record.go): picking the due deliveries (flush_due), each attempt with the
// receiver's answer (attempt), and giving the rest back when the flush is
// cancelled (flush_abort). A replay runs these inputs and never calls a
// receiver.
func (s *Simulator) flushWebhooks(ctx context.Context) (FlushResult, error) {
	var res FlushResult
	for round := 0; round < maxFlushRounds; round++ {
		jobs, err := s.flushDue()
		if err != nil || len(jobs) == 0 {
			return res, err
		}
		for i, j := range jobs {
			if err := ctx.Err(); err != nil {
				_ = s.giveBack(jobs[i:])
				return res, err
			}
			code, aerr := s.attemptDelivery(ctx, j)
			if aerr != nil && ctx.Err() != nil {
				// Cancelled by the caller, not refused by the receiver: the
				// attempt does not count.
				_ = s.giveBack(jobs[i:])
				return res, ctx.Err()
			}
			errText := ""
			if aerr != nil {
				errText = aerr.Error()
			}
			ok, err := s.attemptResult(j.d.ID, j.at, code, errText)
			if err != nil {
				_ = s.giveBack(jobs[i:])
				return res, err
			}
			res.Attempted++
			if ok {
				res.Succeeded++
			} else {
				res.Failed++
			}
		}
	}
	return res, nil
}

// flushDue picks the due deliveries, an input of the log when any is due.
func (s *Simulator) flushDue() ([]deliveryJob, error) {
	s.inputs.Lock()
	s.mu.Lock()
	if !s.anyDeliveryDueLocked() {
		s.mu.Unlock()
		s.inputs.Unlock()
		return nil, nil
	}
	end, err := s.rec.log(&recordedInput{Op: opFlushDue, Clock: s.clock.Now()})
	s.inputs.Unlock()
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	jobs := s.dueDeliveriesLocked()
	s.mu.Unlock()
	return jobs, s.rec.durable(end)
}

// flushDueInput is the flush_due input of a replay.
func (s *Simulator) flushDueInput() error {
	if _, err := s.lockInput(&recordedInput{Op: opFlushDue}); err != nil {
		return err
	}
	s.dueDeliveriesLocked()
	s.mu.Unlock()
	return nil
}

// anyDeliveryDueLocked reports whether dueDeliveriesLocked has anything to
// do.
func (s *Simulator) anyDeliveryDueLocked() bool {
	now := s.clock.Now()
	for _, d := range s.webhookStateLocked().created {
		if d.Status == deliveryPending && !d.inFlight && !d.NextAttemptAt.After(now) {
			return true
		}
	}
	return false
}

// attemptResult records the receiver's answer to one attempt (an attempt
// input of the log) and reports whether it succeeded.
func (s *Simulator) attemptResult(deliveryID string, at time.Time, code int, errText string) (bool, error) {
	end, err := s.lockInput(&recordedInput{Op: opAttempt, Delivery: deliveryID, At: at, StatusCode: code, Error: errText})
	if err != nil {
		return false, err
	}
	ok, err := s.applyAttemptLocked(deliveryID, at, code, errText)
	s.mu.Unlock()
	if err != nil {
		return false, err
	}
	return ok, s.rec.durable(end)
}

// attemptInput is the attempt input of a replay.
func (s *Simulator) attemptInput(deliveryID string, at time.Time, code int, errText string) error {
	_, err := s.attemptResult(deliveryID, at, code, errText)
	return err
}

func (s *Simulator) applyAttemptLocked(deliveryID string, at time.Time, code int, errText string) (bool, error) {
	d := s.webhookStateLocked().deliveryByID[deliveryID]
	if d == nil {
		return false, fmt.Errorf("simulator: webhook attempt of unknown delivery %s", deliveryID)
	}
	var aerr error
	if errText != "" {
		aerr = errors.New(errText)
	}
	return s.recordAttemptLocked(deliveryJob{d: d, at: at}, code, aerr), nil
}

// giveBack returns deliveries a flush will not attempt to pending (a
// flush_abort input of the log).
func (s *Simulator) giveBack(jobs []deliveryJob) error {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.d.ID
	}
	err := s.flushAbortInput(ids)
	if err != nil {
		// The log refuses everything now; the deliveries still go back
		// (a restart gives back whatever its log leaves in flight).
		s.mu.Lock()
		for _, j := range jobs {
			j.d.inFlight = false
		}
		s.mu.Unlock()
	}
	return err
}

// flushAbortInput takes deliveries out of flight (flush_abort).
func (s *Simulator) flushAbortInput(ids []string) error {
	end, err := s.lockInput(&recordedInput{Op: opFlushAbort, Deliveries: ids})
	if err != nil {
		return err
	}
	st := s.webhookStateLocked()
	for _, id := range ids {
		if d := st.deliveryByID[id]; d != nil {
			d.inFlight = false
		}
	}
	s.mu.Unlock()
	return s.rec.durable(end)
}

// dueDeliveriesLocked marks the due pending rows in flight and returns
// their jobs, oldest due first.
func (s *Simulator) dueDeliveriesLocked() []deliveryJob {
	st := s.webhookStateLocked()
	now := s.clock.Now()
	var due []*whDelivery
	for _, d := range st.created {
		if d.Status == deliveryPending && !d.inFlight && !d.NextAttemptAt.After(now) {
			due = append(due, d)
		}
	}
	sort.SliceStable(due, func(i, j int) bool { return due[i].NextAttemptAt.Before(due[j].NextAttemptAt) })
	jobs := make([]deliveryJob, 0, len(due))
	for _, d := range due {
		e := st.endpointByID[d.EndpointID]
		if e == nil || e.Disabled {
			d.Status, d.NextAttemptAt = deliveryNoSubscriber, time.Time{}
			continue
		}
		secret := e.Secret
		if secret == "" {
			secret = s.creds.WebhookSecret
		}
		d.inFlight = true
		jobs = append(jobs, deliveryJob{
			d: d, url: e.URL, secret: secret, body: st.bodies[d.Event.ID],
			eventID: d.Event.ID, eventType: d.Event.Type, at: now,
		})
	}
	return jobs
}

// attemptDelivery POSTs one delivery; it runs without s.mu.
func (s *Simulator) attemptDelivery(ctx context.Context, j deliveryJob) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.url, bytes.NewReader(j.body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "mwallet-simulator-webhooks")
	req.Header.Set("z-signature", webhookSignature(j.secret, j.at, j.body))
	req.Header.Set("z-event-id", j.eventID)
	req.Header.Set("z-event-type", j.eventType)
	s.mu.Lock()
	client := s.webhookStateLocked().client
	s.mu.Unlock()
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("receiver answered %d", resp.StatusCode)
	}
	return resp.StatusCode, nil
}

// recordAttemptLocked stores the outcome of one attempt and moves the row:
// sent on 2xx; otherwise pending with the next backoff while attempts
// remain, dead after the sixth failure of a run, failed when a redelivery's
// single attempt fails, and no_subscriber when the endpoint went away
// meanwhile.
func (s *Simulator) recordAttemptLocked(j deliveryJob, code int, aerr error) bool {
	d := j.d
	d.inFlight = false
	a := WebhookAttempt{At: j.at, StatusCode: code}
	if aerr != nil {
		a.Error = aerr.Error()
	}
	d.Attempts = append(d.Attempts, a)
	d.runLeft--
	d.NextAttemptAt = time.Time{}
	if aerr == nil {
		d.Status = deliverySent
		return true
	}
	st := s.webhookStateLocked()
	if e := st.endpointByID[d.EndpointID]; e == nil || e.Disabled {
		d.Status = deliveryNoSubscriber
		return false
	}
	switch {
	case d.redelivery:
		d.Status = deliveryFailed
	case d.runLeft > 0:
		n := webhookMaxAttempts - d.runLeft // failures so far in this run
		d.Status = deliveryPending
		d.NextAttemptAt = j.at.Add(webhookBackoff[n-1])
	default:
		d.Status = deliveryDead
	}
	return false
}
