package simulator

import (
	"time"

	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// RequestRecord is one business-API request as the simulator saw it. It never
// holds a secret: no token, API key, signing key, signature or body. The
// nonce appears only in the canonical string of a refused signature (a
// nonce such a request does not consume).
type RequestRecord struct {
	// Seq numbers requests from 1 in arrival order.
	Seq int64 `json:"seq"`
	// Time is the simulator clock when the request arrived.
	Time time.Time `json:"time"`
	// RequestID is the X-Request-Id the simulator answered with.
	RequestID string `json:"request_id"`
	// Method and Path (escaped, without the query) and Query (raw).
	Method string `json:"method"`
	Path   string `json:"path"`
	Query  string `json:"query,omitempty"`
	// ClientID is the Key's client id, once known.
	ClientID string `json:"client_id,omitempty"`
	// Member is the trimmed x-on-behalf-of, as sent.
	Member string `json:"member,omitempty"`
	// IdempotencyKey is the trimmed x-idempotency-key, as sent.
	IdempotencyKey string `json:"idempotency_key,omitempty"`
	// Status is the HTTP status answered (0 when the connection was dropped).
	Status int `json:"status"`
	// Code is the error code answered, empty on success.
	Code string `json:"code,omitempty"`
	// Replay is true when the answer was an idempotent replay.
	Replay bool `json:"replay"`
	// ReplayOf is, on a replay, the request id of the earlier request whose
	// stored answer (a success or a definite failure) was replayed.
	ReplayOf string `json:"replay_of,omitempty"`
	// Fault is the kind of the injected fault the request took, if any.
	Fault string `json:"fault,omitempty"`
	// Dropped is true when the connection was closed without an answer.
	Dropped bool `json:"dropped,omitempty"`
	// Signature explains a refused signature (Code invalid_signature or
	// timestamp_out_of_range): the canonical string and body hash the
	// simulator computed and the clock it checked the timestamp against.
	// Nil for every other request.
	Signature *SignatureCheck `json:"signature,omitempty"`
}

// journalList returns the records of the request journal (internal/gateway's
// Journal) oldest first.
func journalList(tx *kernel.Tx, j *pipeline.Journal) []RequestRecord {
	out := make([]RequestRecord, 0, j.Len(tx))
	for row := range j.Rows(tx) {
		out = append(out, recordOf(row))
	}
	return out
}

// recordOf is the journal row as a RequestRecord.
func recordOf(row pipeline.JournalRow) RequestRecord {
	r := RequestRecord{
		Seq: row.Seq, Time: row.Time, RequestID: row.RequestID, Method: row.Method, Path: row.Path, Query: row.Query,
		ClientID: row.ClientID, Member: row.Member, IdempotencyKey: row.IdempotencyKey, Status: row.Status, Code: row.Code,
		Replay: row.Replay, ReplayOf: row.ReplayOf, Fault: row.Fault, Dropped: row.Dropped,
	}
	if row.HasSignature {
		r.Signature = signatureCheckOf(row.Signature)
	}
	return r
}
