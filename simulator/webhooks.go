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
	"strings"
	"time"
	"unicode/utf8"
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

// FlushResult counts the attempts one flush made and lists the failed ones.
type FlushResult struct {
	Attempted int `json:"attempted"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
	// Failures lists the failed attempts in the order they were made.
	Failures []DeliveryFailure `json:"failures,omitempty"`
	// Hint explains the likely cause of the failures when the receivers'
	// answers show one (a receiver that checks signature timestamps on its
	// own clock, or verifies with another secret); empty otherwise.
	Hint string `json:"hint,omitempty"`
}

// DeliveryFailure is one failed delivery attempt of a flush.
type DeliveryFailure struct {
	DeliveryID string `json:"delivery_id"`
	EventID    string `json:"event_id"`
	EventType  string `json:"event_type"`
	EndpointID string `json:"endpoint_id"`
	URL        string `json:"url"`
	// At is the simulator time of the attempt: the signature's timestamp.
	At time.Time `json:"at"`
	// StatusCode is the receiver's status, 0 when no answer came.
	StatusCode int `json:"status_code"`
	// Response is the beginning of the receiver's answer body.
	Response string `json:"response,omitempty"`
	// Error says why the attempt failed.
	Error string `json:"error"`
	// Status is the delivery row's status after the attempt: pending (a
	// retry falls due at NextAttemptAt), dead, failed or no_subscriber.
	Status        string     `json:"status"`
	NextAttemptAt *time.Time `json:"next_attempt_at,omitempty"`
}

// FlushError is the error of a flush in which at least one delivery attempt
// failed: the receiver answered other than 2xx, or did not answer. The
// flush itself went through (every due delivery was attempted and
// recorded, retries are scheduled); the error exists so that a test cannot
// take a refusing receiver for a working one. Result is the flush's
// result, its Failures included. Test for it with errors.As; a test that
// wants a receiver to fail (an outage, a retry schedule) checks
// Result.Failures instead of treating the error as fatal.
type FlushError struct {
	Result FlushResult
}

// Error lists the failed attempts, at most five of them.
func (e *FlushError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "simulator: %d of %d webhook delivery attempts failed", e.Result.Failed, e.Result.Attempted)
	for i, f := range e.Result.Failures {
		if i == 5 {
			fmt.Fprintf(&b, "; and %d more (sim.Webhooks.Deliveries lists them)", len(e.Result.Failures)-i)
			break
		}
		fmt.Fprintf(&b, "; %s %s to %s: %s", f.EventType, f.EventID, f.URL, f.Error)
	}
	if e.Result.Hint != "" {
		b.WriteString(" (" + e.Result.Hint + ")")
	}
	return b.String()
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
		// Failed attempts are part of the answer (failures, hint), not an
		// error of the flush.
		res, err := s.flushWebhooks(r.Context())
		var fe *FlushError
		if err != nil && !errors.As(err, &fe) {
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
	if !s.webhookStateLocked().auto {
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
// the cancellation is not recorded and stays due. When an attempt failed the
// error is a *FlushError carrying the result.
func (s *Simulator) flushWebhooks(ctx context.Context) (FlushResult, error) {
	var res FlushResult
	for round := 0; round < maxFlushRounds; round++ {
		s.mu.Lock()
		jobs := s.dueDeliveriesLocked()
		s.mu.Unlock()
		if len(jobs) == 0 {
			break
		}
		for i, j := range jobs {
			if err := ctx.Err(); err != nil {
				s.mu.Lock()
				for _, rest := range jobs[i:] {
					rest.d.inFlight = false
				}
				s.mu.Unlock()
				return res, err
			}
			code, answer, aerr := s.attemptDelivery(ctx, j)
			if aerr != nil && ctx.Err() != nil {
				// Cancelled by the caller, not refused by the receiver: the
				// attempt does not count.
				s.mu.Lock()
				for _, rest := range jobs[i:] {
					rest.d.inFlight = false
				}
				s.mu.Unlock()
				return res, ctx.Err()
			}
			s.mu.Lock()
			ok := s.recordAttemptLocked(j, code, answer, aerr)
			var failure DeliveryFailure
			if !ok {
				failure = j.d.failure(j)
			}
			s.mu.Unlock()
			res.Attempted++
			if ok {
				res.Succeeded++
			} else {
				res.Failed++
				res.Failures = append(res.Failures, failure)
			}
		}
	}
	if res.Failed == 0 {
		return res, nil
	}
	res.Hint = s.flushHint(res.Failures)
	return res, &FlushError{Result: res}
}

// flushHint recognises the usual causes of a refusing receiver in the
// answers of the failed attempts.
func (s *Simulator) flushHint(fs []DeliveryFailure) string {
	for _, f := range fs {
		r := strings.ToLower(f.Response)
		switch {
		case strings.Contains(r, "timestamp") || strings.Contains(r, "stale"):
			return fmt.Sprintf("the receiver checks the signature timestamp against its own clock, but the simulator signs with its clock, now %s: "+
				"build the receiver with sim.Webhooks.Handler, or pass webhooks.WithClock(sim.Clock.Now) to webhooks.Handler",
				s.clock.Now().UTC().Format(time.RFC3339))
		case strings.Contains(r, "signature"):
			return "the receiver refused the signature: it must verify with the simulator's webhook secret (sim.Credentials().WebhookSecret, or the secret AddEndpoint returned)"
		}
	}
	return ""
}

// failure describes the attempt j just recorded on d.
func (d *whDelivery) failure(j deliveryJob) DeliveryFailure {
	a := d.Attempts[len(d.Attempts)-1]
	f := DeliveryFailure{
		DeliveryID: d.ID, EventID: j.eventID, EventType: j.eventType, EndpointID: d.EndpointID, URL: j.url,
		At: a.At, StatusCode: a.StatusCode, Response: a.Response, Error: a.Error, Status: d.Status,
	}
	if !d.NextAttemptAt.IsZero() {
		t := d.NextAttemptAt
		f.NextAttemptAt = &t
	}
	return f
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

// attemptDelivery POSTs one delivery and returns the receiver's status and
// the beginning of its answer; it runs without s.mu.
func (s *Simulator) attemptDelivery(ctx context.Context, j deliveryJob) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.url, bytes.NewReader(j.body))
	if err != nil {
		return 0, "", err
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
		return 0, "", err
	}
	defer resp.Body.Close()
	head, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswerKept))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	answer := answerText(head)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		if answer == "" {
			return resp.StatusCode, "", fmt.Errorf("receiver answered %d with an empty body", resp.StatusCode)
		}
		return resp.StatusCode, answer, fmt.Errorf("receiver answered %d: %s", resp.StatusCode, answer)
	}
	return resp.StatusCode, answer, nil
}

// answerText is the kept beginning of a receiver's answer: valid UTF-8
// (a multi-byte character cut by the limit is dropped), control
// characters but tab replaced by spaces, surrounding space trimmed.
func answerText(b []byte) string {
	if n := len(b); n > 0 && !utf8.Valid(b) {
		for i := n - 1; i >= 0 && i > n-utf8.UTFMax; i-- {
			if utf8.RuneStart(b[i]) {
				if !utf8.FullRune(b[i:]) {
					b = b[:i]
				}
				break
			}
		}
	}
	s := strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(string(b), "\uFFFD"))
	return strings.TrimSpace(s)
}

// recordAttemptLocked stores the outcome of one attempt and moves the row:
// sent on 2xx; otherwise pending with the next backoff while attempts
// remain, dead after the sixth failure of a run, failed when a redelivery's
// single attempt fails, and no_subscriber when the endpoint went away
// meanwhile.
func (s *Simulator) recordAttemptLocked(j deliveryJob, code int, answer string, aerr error) bool {
	d := j.d
	d.inFlight = false
	a := WebhookAttempt{At: j.at, StatusCode: code, Response: answer}
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
