package simulator

// What an idempotency record keeps (Idempotency rules 2 to 4 and Retry
// rules of the specification). A record is created when a keyed request
// passes every gateway rule; the handler's answer is then kept and replayed
// to the same key and body for 24 hours, with one exception: the answers
// the retry rules tell the client to resend with the same key are not kept,
// so that resend executes afresh instead of replaying the refusal forever.
// Every other answer, success or failure, is a definite outcome and is kept
// (Idempotency rule 4: a definite business failure is replayed; use a new
// key after correcting the cause).
//
// Answers given before the record exists are never kept either: the
// gateway's own refusals (token, IP allowlist, environment, merchant status,
// scope, body size, signature, member, precheck, idempotency key), a full
// store, and injected faults that act before the handler (error,
// drop_before).

// notStoredCodes are the handler answers that are not kept under the key,
// each with the rule that sends the client back with the same key.
var notStoredCodes = map[string]string{
	"step_up_required":        "the caller resends the same body with the same key and x-step-up once the hosted screen is done (Step-up; Retry rule 1)",
	"rate_limited":            "the quota frees up after Retry-After; the same request is then served (Limits)",
	"upstream_error":          "retry with the same key (Retry rule 1); a handler answers it only when nothing executed",
	"upstream_timeout":        "retry with the same key (Idempotency rule 4, Retry rule 1); a handler that executed keeps its real outcome instead (error_after)",
	"idempotency_in_progress": "the key belongs to the first request, still running; wait and retry (Idempotency rule 3; Retry rule 1)",
	"idempotency_key_reused":  "the key belongs to the first request and its body (Idempotency rule 3)",
}

// storedUnderKey reports whether resp is kept under its idempotency key.
func storedUnderKey(resp response) bool {
	_, notStored := notStoredCodes[resp.code]
	return !notStored && !resp.transient
}
