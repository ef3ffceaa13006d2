package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/devtools"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Stats counts what a simulator holds in its bounded windows, so a test can
// check that memory stays bounded however long the simulator runs: nonces,
// idempotency records, step-up challenges and the QR quote memo expire by the
// simulator clock (and, when the clock stands still, a full store refuses new
// entries rather than forget live ones), tokens expire by the clock, and the
// request journal keeps the newest requests only.
type Stats struct {
	// Nonces is the number of consumed nonces still refused (five minutes).
	Nonces int `json:"nonces"`
	// NoncesCap is the cap of the nonce store (WithMaxNonces): a signed
	// write is refused while Nonces is at it.
	NoncesCap int `json:"nonces_cap"`
	// IdempotencyRecords is the number of stored idempotent results (24 hours).
	IdempotencyRecords int `json:"idempotency_records"`
	// IdempotencyRecordsCap is the cap of the idempotency store
	// (WithMaxIdempotencyKeys): a keyed write with a new key is refused
	// while IdempotencyRecords is at it.
	IdempotencyRecordsCap int `json:"idempotency_records_cap"`
	// Tokens is the number of access tokens issued and not yet expired.
	Tokens int `json:"tokens"`
	// JournalEntries is the number of requests in the journal (at most 10 000).
	JournalEntries int `json:"journal_entries"`
	// Requests is the number of business-API requests served since start
	// (token exchanges included; control API calls are not counted).
	Requests int64 `json:"requests"`
	// Events is the number of events recorded for webhook delivery.
	Events int `json:"events"`
	// StepUpChallenges is the number of step-up challenges not yet expired
	// (five minutes).
	StepUpChallenges int `json:"step_up_challenges"`
	// StepUpChallengesCap is the cap of the step-up challenge store
	// (WithMaxStepUpChallenges).
	StepUpChallengesCap int `json:"step_up_challenges_cap"`
	// QRQuoteMemo is the number of upstream QR orders reusable by an equal
	// quote (60 seconds).
	QRQuoteMemo int `json:"qr_quote_memo"`
}

// Stats returns the current sizes of the simulator's windows.
func (s *Simulator) Stats() Stats {
	tx := s.k.Begin()
	defer tx.End()
	return s.wiring.view.stats(tx)
}

// stats is Stats in a transaction (GET /_sim/stats; internal/devtools'
// WindowSizes).
func (s *view) stats(tx *kernel.Tx) Stats {
	st := s.st
	return Stats(devtools.WindowSizes(tx, st.gw, st.tokens.Len(tx), st.webhooks.EventCount, st.stepUp.Len, st.qr.MemoLen))
}
