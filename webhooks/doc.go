// Package webhooks receives and manages the service's webhook events.
//
// Receive them with Handler, mounted on the URL you registered: it verifies
// the signature over the raw body, decodes the event, deduplicates it by
// event_id and calls your function, answering 2xx only when the function
// succeeded so the service retries otherwise:
//
//	http.Handle("POST /webhooks", webhooks.Handler(secret, func(ctx context.Context, ev webhooks.Event) error {
//		id, _ := ev.Data.RESTID() // bodies carry ids and statuses: re-read the object
//		return process(ctx, ev.EventType, id, ev.Data.ExternalMemberID)
//	}))
//
// In a test against the simulator, sim.Webhooks.Handler(fn) is the same
// Handler with the simulator's secret and clock. The other entry points serve
// needs Handler does not:
//
//   - ConstructEvent: the raw body and the z-signature header reach you
//     outside an http.Handler (a serverless function, a message queue); it
//     verifies and decodes.
//   - Verify: verification alone, for code that keeps the raw bytes (to
//     forward or store them) and decodes them later.
//   - DecodeEvent: a body verified earlier; it verifies nothing.
//
// The service POSTs every event to each configured endpoint with the headers
// z-signature (t=<unix seconds>,v1=<base64>), z-event-id and z-event-type. The
// signature is base64(HMAC-SHA-256(webhook_secret, t + "." + raw body)); it
// must be checked over the raw bytes received, with t within plus or minus 300
// seconds of the receiver's clock.
//
// The package offers, from the lowest level up:
//
//   - Verify: checks a signature header against the raw body (constant time,
//     several v1 values and several secrets accepted for rotation, typed
//     errors usable with errors.Is).
//   - ConstructEvent: verify, then decode into a typed Event with open
//     enumerations for event types (27 known) and data.object kinds.
//   - Data.RESTID and Data.RetrievalPath: turn data.id into the REST id and
//     the GET path that reads the object's current state. Bodies carry only
//     identifiers and statuses, so retrieve details, and always send
//     x-on-behalf-of set to data.external_member_id when you do.
//   - Deduper and MemoryDeduper: delivery is at least once and a redelivery
//     keeps the same event_id, so deduplicate by event_id: Handler claims an
//     id for a lease (WithLease) and records it as done only after your
//     function succeeded, so a receiver that dies mid-way loses nothing.
//     Packages redisstore and sqlstore keep claims across restarts and
//     instances; dedupetest checks an implementation of your own.
//   - Tracker and Supersedes: deliveries may arrive out of order; merge
//     forward by status_version and drop older versions, except for the
//     events whose status_version is the constant 0, which are ordered by
//     created_at and never skipped for an equal version.
//   - Handler: an http.Handler doing all of the above (body cap, verify,
//     decode, claim, call your function, record it done) that answers 2xx
//     only when your function succeeded, so the service retries otherwise.
//   - RetrievalTable: the specification's data.object rows, which RESTID,
//     RetrievalPath and RetrievalNote read.
//   - Deliveries: the REST client for delivery records (redeliver, list),
//     reached as mwclient.Client.Webhooks.
//   - WithObserver: reports every verification by Result (verified,
//     signature_mismatch, timestamp_out_of_range, ...) to an Observer, for
//     telemetry; the module github.com/mwallet/mwallet-go/otel counts them
//     as an OpenTelemetry metric.
//
// The service retries a failed delivery after 1, 5, 30, 120 and 360 minutes
// (at most 6 attempts, about 8.6 hours in all); the sixth failure marks the
// delivery dead, from where Deliveries.Redeliver queues it again with the
// same event_id.
//
// The webhook secret is an mwallet.Secret, which prints as [redacted] through
// fmt, slog and JSON. Nothing in this package logs a secret or a body.
package webhooks
