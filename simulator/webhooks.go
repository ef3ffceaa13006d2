package simulator

import (
	"time"

	hookline "github.com/mwallet/mwallet-go/simulator/internal/webhooks"
)

// closeDeliveries lets go of the delivery pool's idle connections.
func (d *deliverer) closeDeliveries() {
	if d != nil {
		d.CloseIdle()
	}
}

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

// webhookEndpointOf is the public copy of an endpoint.
func webhookEndpointOf(v hookline.EndpointView) WebhookEndpoint {
	return WebhookEndpoint{
		ID: v.ID, URL: v.URL, Events: v.Events, Environment: Environment(v.Environment),
		Disabled: v.Disabled, CreatedAt: v.CreatedAt,
	}
}

// webhookDeliveryOf is the public copy of a delivery row.
func webhookDeliveryOf(v hookline.DeliveryView) WebhookDelivery {
	return WebhookDelivery{
		ID: v.ID, EventID: v.EventID, EventType: v.EventType, EndpointID: v.EndpointID, Status: v.Status,
		Attempts:      hookline.Copies(v.Attempts, func(a hookline.Attempt) WebhookAttempt { return WebhookAttempt(a) }),
		NextAttemptAt: v.NextAttemptAt, CreatedAt: v.CreatedAt, ObjectID: v.ObjectID, ExternalMemberID: v.ExternalMemberID,
	}
}
