package mwallet

// The rule that decides, for every error code, whether a call's
// PendingStore record is kept (the request may still execute under its
// idempotency key, and Client.Resume finishes it) or deleted (its outcome is
// decided). PendingTable lists it for every code of the code table, and the
// PendingStore documentation and docs/operations.md are checked against it.

// keyStage says where the service answers a code: before its idempotency
// check (the answer says nothing about an earlier request with the same
// key, and no result is stored under the key) or after it (the answer is
// the key's outcome, replayed to a resend with the same key and body).
type keyStage int

const (
	stageAfterKey keyStage = iota
	stageBeforeKey
)

// beforeKeyCodes are the codes the service answers before its idempotency
// check, each with what a first answer of it means for the record: kept
// when the same request under the same key executes once the cause is gone
// (it clears by itself, or for the same Key once its configuration is
// fixed), deleted when the specification says not to retry or the request
// itself is malformed. Every other code is answered after the check.
var beforeKeyCodes = map[Code]struct {
	keep bool
	why  string
}{
	CodeInvalidToken:           {true, "refused before execution: the client renews the token; the same key executes it"},
	CodeInvalidSignature:       {true, "refused before execution: once the Key's signing key is fixed, the same key executes it"},
	CodeSignatureRequired:      {true, "refused before execution: once signed, the same key executes it"},
	CodeTimestampOutOfRange:    {true, "refused before execution: once the clock is corrected, the same key executes it"},
	CodeNonceReused:            {true, "refused before execution: a resend has a new nonce and the same key executes it"},
	CodeRateLimited:            {true, "refused before execution: after Retry-After the same key executes it"},
	CodeInvalidCredentials:     {false, "token exchange refused: nothing reached the endpoint and the Key must be replaced"},
	CodeEnvironmentMismatch:    {false, "refused before execution: credentials of another environment; a resend to this base URL fails the same"},
	CodeInsufficientScope:      {false, "refused before execution; do not retry (the specification)"},
	CodeIPNotAllowed:           {false, "refused before execution; do not retry (the specification)"},
	CodeMerchantDisabled:       {false, "refused before execution; do not retry (the specification)"},
	CodeMemberNotFound:         {false, "refused before execution; do not retry (the specification: every 404)"},
	CodeMemberSuspended:        {false, "refused before execution (reserved; answered as member_not_found)"},
	CodeMemberContextRequired:  {false, "malformed request: a resend fails the same"},
	CodeIdempotencyKeyRequired: {false, "malformed request: a resend fails the same"},
	CodeIdempotencyKeyInvalid:  {false, "malformed request: a resend fails the same"},
	CodeIdempotencyInProgress:  {true, "outcome unknown: the first request with the key is still running"},
}

// stageOf returns where the service answers c.
func stageOf(c Code) keyStage {
	if _, ok := beforeKeyCodes[c]; ok {
		return stageBeforeKey
	}
	return stageAfterKey
}

// pendingRule decides whether a call's record is kept after an error answer
// of code (HTTP status), replayed or not, and whether an earlier attempt of
// the call (or the process that recorded it, for Client.Resume) may have
// executed it; why says the reason in words.
func pendingRule(code Code, status int, replayed, earlierMayHaveRun bool) (keep bool, why string) {
	switch {
	case replayed:
		return false, "replayed: the outcome stored under the key, a definite failure"
	case status >= 500 || !code.Known():
		return true, "outcome unknown: it may have executed; resend with the same key"
	case earlierMayHaveRun && !settles(status, replayed):
		return true, "after an attempt that may have executed only a 2xx or a replay settles the call (the outcome is unknown, ErrOutcomeUnknown): resend with the same key"
	}
	if r, ok := beforeKeyCodes[code]; ok {
		return r.keep, r.why
	}
	if why, ok := afterKeyWhy[code]; ok {
		return false, why
	}
	return false, "definite failure after the idempotency check: the same key replays it; use a new key"
}

// afterKeyWhy gives the reason of the codes answered after the idempotency
// check whose meaning for the record is not the usual replayed failure.
var afterKeyWhy = map[Code]string{
	CodeStepUpRequired:       "not executed until the end user completes step-up; the resend with the same key and the challenge is recorded again",
	CodeIdempotencyKeyReused: "the key belongs to another body or endpoint: this request never executes under it",
}

// PendingRule is one row of PendingTable: what the client does with a
// call's PendingStore record when the call ends with Code (or, for a row
// without a code, with Outcome).
type PendingRule struct {
	// Code is the error code of the answer; empty for the rows of
	// transport outcomes and successes.
	Code Code
	// Outcome describes a row without a code ("2xx", "network error", ...).
	Outcome string
	// HTTPStatus is the code's documented status.
	HTTPStatus int
	// BeforeKey is true when the service answers the code before its
	// idempotency check.
	BeforeKey bool
	// First: the answer to the call's first attempt, nothing uncertain
	// before it. AfterUncertain: the answer after an attempt that may have
	// executed (network error, 5xx, idempotency_in_progress), and every
	// answer to Client.Resume. Replayed: the answer carries
	// X-Idempotent-Replay: true.
	First, AfterUncertain, Replayed PendingDecision
}

// PendingDecision is kept or deleted, and why.
type PendingDecision struct {
	// Keep is true when the record stays in the store.
	Keep bool
	// Why is the reason in words.
	Why string
}

// String returns "kept" or "deleted".
func (d PendingDecision) String() string {
	if d.Keep {
		return "kept"
	}
	return "deleted"
}

// PendingTable returns the PendingStore behaviour for every documented
// error code, in the order of the code table (codes.tsv), followed by the
// outcomes without a code: success, replayed success, the transport
// outcomes and a call that sent nothing. The client applies exactly these
// rules; the PendingStore documentation is checked against them.
func PendingTable() []PendingRule {
	rows := make([]PendingRule, 0, len(codeOrder)+5)
	for _, c := range codeOrder {
		st := c.HTTPStatus()
		first, why1 := pendingRule(c, st, false, false)
		after, why2 := pendingRule(c, st, false, true)
		rep, why3 := pendingRule(c, st, true, false)
		rows = append(rows, PendingRule{
			Code: c, HTTPStatus: st, BeforeKey: stageOf(c) == stageBeforeKey,
			First: PendingDecision{first, why1}, AfterUncertain: PendingDecision{after, why2}, Replayed: PendingDecision{rep, why3},
		})
	}
	// An unknown code is handled as api_error.
	const unknown = Code("an_unknown_code")
	u1, w1 := pendingRule(unknown, 400, false, false)
	u2, w2 := pendingRule(unknown, 400, false, true)
	u3, w3 := pendingRule(unknown, 400, true, false)
	rows = append(rows, PendingRule{Outcome: "unknown code (handled as api_error)",
		First: PendingDecision{u1, w1}, AfterUncertain: PendingDecision{u2, w2}, Replayed: PendingDecision{u3, w3}})
	same := func(outcome string, keep bool, why string) PendingRule {
		d := PendingDecision{keep, why}
		return PendingRule{Outcome: outcome, First: d, AfterUncertain: d, Replayed: d}
	}
	rows = append(rows,
		same("2xx", false, "executed: the outcome is the answer"),
		same("2xx whose answer cannot be read (AnswerError)", false, "executed: never send it with a new key; the same key replays its answer"),
		same("no answer: network error (sent or not), reset, attempt timeout, truncated answer", true, "outcome unknown, or not executed yet: resend with the same key"),
		same("token exchange failed before a resend", true, "an earlier attempt was answered before execution or may have run; resend with the same key"),
		PendingRule{Outcome: "nothing sent (the token exchange failed, the context ended or a check failed before the first attempt)",
			First:          PendingDecision{false, "nothing was sent by this call: not recorded, or deleted"},
			AfterUncertain: PendingDecision{true, "Client.Resume: the record's earlier process may have sent it"},
			Replayed:       PendingDecision{false, "nothing was sent by this call"}},
	)
	return rows
}
