package webhooks

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
)

// Deliveries is the webhook deliveries client (redeliver, list). Get it
// from mwclient.Client as client.Webhooks; it shares the root client's
// tokens, signing, idempotency keys and retries. Both endpoints are
// merchant-scoped (no x-on-behalf-of) and need the merchant:read scope.
type Deliveries struct {
	caller *mwallet.Client
}

// NewDeliveries returns a deliveries client that sends its calls through c,
// the root client. mwclient.New builds one for its Webhooks field.
func NewDeliveries(c *mwallet.Client) *Deliveries { return &Deliveries{caller: c} }

// DeliveryStatus is the state of one delivery row (open enumeration).
type DeliveryStatus string

// Delivery statuses.
const (
	// DeliveryPending: queued; attempts remain.
	DeliveryPending DeliveryStatus = "pending"
	// DeliverySent: an attempt got a 2xx answer.
	DeliverySent DeliveryStatus = "sent"
	// DeliveryFailed: delivery failed without being retried further; it can
	// be redelivered.
	DeliveryFailed DeliveryStatus = "failed"
	// DeliveryDead: the sixth attempt failed; it can be redelivered.
	DeliveryDead DeliveryStatus = "dead"
	// DeliveryNoSubscriber: no endpoint subscribed when the event was
	// queued, or the endpoint was disabled or deleted while the delivery
	// was pending; it can be redelivered once an endpoint subscribes.
	DeliveryNoSubscriber DeliveryStatus = "no_subscriber"
)

// Known reports whether s is a documented delivery status.
func (s DeliveryStatus) Known() bool {
	switch s {
	case DeliveryPending, DeliverySent, DeliveryFailed, DeliveryDead, DeliveryNoSubscriber:
		return true
	}
	return false
}

// Redeliverable reports whether Redeliver accepts a delivery in status s
// (dead, failed or no_subscriber; the service also requires that an
// endpoint subscribes now).
func (s DeliveryStatus) Redeliverable() bool {
	return s == DeliveryDead || s == DeliveryFailed || s == DeliveryNoSubscriber
}

// Delivery is one delivery row: one event to one endpoint.
//
// The shape is inferred: the specification names the delivery list without
// showing its fields.
type Delivery struct {
	// ID is whd_<id>.
	ID string `json:"id"`
	// EventID is the event delivered (evt_ prefix).
	EventID string `json:"event_id"`
	// EventType is the event's type.
	EventType EventType `json:"event_type"`
	// EndpointID is the endpoint the row delivers to; empty for a
	// no_subscriber row that never had one.
	EndpointID string `json:"endpoint_id"`
	// Status is the row's state.
	Status DeliveryStatus `json:"status"`
	// Attempts is the number of attempts made so far, redeliveries
	// included: above 6 for a dead row that was redelivered.
	Attempts int `json:"attempts"`
	// NextAttemptAt is when the next attempt is due; nil when none is
	// scheduled.
	NextAttemptAt *time.Time `json:"next_attempt_at"`
	// CreatedAt is when the row was queued.
	CreatedAt time.Time `json:"created_at"`
}

// RedeliverResult is the answer of Redeliver.
type RedeliverResult struct {
	// Meta holds Response, the HTTP exchange that returned the value.
	mwallet.Meta
	// ID is the delivery id (whd_ prefix).
	ID string `json:"id"`
	// Queued is true: the delivery is queued again, not yet delivered.
	Queued bool `json:"queued"`
}

// Redeliver queues a delivery again (POST
// /v1/webhooks/deliveries/{id}/redeliver, scope merchant:read). id is whd_<id> or the bare id.
// The delivery must be dead, failed or no_subscriber and an endpoint must
// subscribe now, otherwise the service answers 400 state_invalid (not to be
// retried); an unknown id gives 404 not_found. The redelivery keeps the
// same event_id, so receivers deduplicate it like any retry.
//
// The call carries an idempotency key, generated once and reused on retries
// (or the one given with mwallet.WithIdempotencyKey). It sends no body.
func (d *Deliveries) Redeliver(ctx context.Context, id string, opts ...mwallet.CallOption) (*RedeliverResult, error) {
	pid, err := deliveryID(id)
	return mwallet.Call[RedeliverResult](ctx, d.caller, &mwallet.Request{
		Method:     http.MethodPost,
		Path:       "/v1/webhooks/deliveries/" + url.PathEscape(pid) + "/redeliver",
		Idempotent: true,
		Invalid:    err,
	}, opts...)
}

// List walks the merchant's delivery rows, newest first (GET
// /v1/webhooks/deliveries, scope merchant:read), following next_cursor until
// has_more is false.
// Stop early by breaking out of the loop; to stop and resume later, walk
// ListPages instead.
//
// The response shape is inferred: the specification names this endpoint
// without showing its fields.
func (d *Deliveries) List(ctx context.Context, p mwallet.ListParams, opts ...mwallet.CallOption) iter.Seq2[Delivery, error] {
	return mwallet.Items(d.ListPages(ctx, p, opts...))
}

// ListPages walks the pages of List: each page carries its delivery rows,
// the cursor of the next page and the Response. Keep a page's NextCursor and
// pass it as p.Cursor to resume after that page (see mwallet.Pages).
func (d *Deliveries) ListPages(ctx context.Context, p mwallet.ListParams, opts ...mwallet.CallOption) iter.Seq2[*mwallet.Page[Delivery], error] {
	return mwallet.Pages[Delivery](ctx, d.caller, mwallet.Request{Method: http.MethodGet, Path: "/v1/webhooks/deliveries"}, p, opts...)
}

// deliveryID checks a delivery id and adds the whd_ prefix when missing.
func deliveryID(id string) (string, error) {
	id = strings.TrimSpace(id)
	if id == "" || id == "whd_" {
		return "", &mwallet.ParamError{Param: "id", Reason: "is required", Code: mwallet.CodeNotFound}
	}
	if strings.ContainsAny(id, "/?#%") || strings.IndexFunc(id, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return "", &mwallet.ParamError{Param: "id", Reason: "contains characters that are not valid in an identifier", Code: mwallet.CodeNotFound}
	}
	return withPrefix("whd_", id), nil
}
