package simulator

import (
	"crypto/sha256"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/image"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/windows"
)

// The idempotency store: the records of keyed requests (Idempotency rules
// of the specification), their key, their 24-hour window and expiry, the
// bound on how many are kept, and the records StartInProgress stages. The
// gateway (gateway.go) asks it at its idempotency step; the sweep of every
// business request (sweep) expires its records.
//
// Its two fields are kernel tables; the digest's projection
// (idemStore.legacy, image.IdemStore) writes them as the gatewayState fields they replaced,
// so digests and recordings of earlier builds are unchanged. For the same
// reason the bound (storeCaps.IdempotencyKeys) and the key of the body digests
// (gatewayState.bodyKey, bodyDigest) stay where the image has them: the
// gateway passes them in.
//
// The remittance line's byIdem (internal/remittances) is not part of it: it maps
// a key to the order its first request created, so that the replay of a
// kept success (POST /v1/remittances replays through its handler,
// ownReplay) answers the order's current status; the answers themselves
// stay here.

// idempotencyWindow is how long an idempotency record lives.
const idempotencyWindow = 24 * time.Hour

// idemStore holds the idempotency records and their expiry queue (class
// Record: the gateway's records of keyed requests).
type idemStore struct {
	records *kernel.Table[string, idemRow] // idemKey(merchant, key) -> record
	queue   windows.ExpiryQueue            // kept records by expiry
}

func newIdemStore(k *kernel.Kernel) idemStore {
	return idemStore{
		records: kernel.NewTable[string, idemRow](k, "gateway.idempotency", kernel.Records()),
		queue:   windows.NewExpiryQueue(k, "gateway.idempotency_expiry"),
	}
}

// idemKey is the key of the record of the x-idempotency-key key sent to
// merchant: keys are the merchant's own.
func idemKey(merchant, key string) string { return merchant + "|" + key }

// len is the number of records held, expired ones not yet swept included.
func (st *idemStore) len(tx *kernel.Tx) int { return st.records.Len(tx) }

// lookup returns the record stored under recKey. A record StartInProgress
// made whose time has run out is dropped instead: its request ended without
// a stored result. (Data, not a timer, so that the state stays an image:
// internal/datadir.)
func (st *idemStore) lookup(tx *kernel.Tx, recKey string, now time.Time) (idemRow, bool) {
	rec, ok := st.records.Get(tx, recKey)
	if ok && !rec.StagedUntil.IsZero() && !now.Before(rec.StagedUntil) {
		st.records.Delete(tx, recKey)
		return idemRow{}, false
	}
	return rec, ok
}

// holds reports whether rec still holds its key at now: its request is
// running, or its answer is inside the window.
func (rec idemRow) holds(now time.Time) bool {
	return rec.InProgress || now.Before(rec.ExpiresAt)
}

// check is the gateway's idempotency step for a request to endpoint with
// body digest hash under recKey, with at most capacity records kept. It
// returns the record whose answer is replayed, or the refusal: a full store
// (when the key has no record), idempotency_key_reused (another endpoint
// or body), idempotency_in_progress (the first request still runs). Both
// nil: the request executes (start).
func (st *idemStore) check(tx *kernel.Tx, recKey, endpoint string, hash [sha256.Size]byte, now time.Time, capacity int) (*idemRow, *apiError) {
	rec, ok := st.lookup(tx, recKey, now)
	if !ok && st.records.Len(tx) >= capacity {
		return nil, storeFull(tx, capIdempotencyKeys, capacity, st.queue, now)
	}
	if !ok || !rec.holds(now) {
		return nil, nil
	}
	if rec.Endpoint != endpoint || rec.BodyHash != hash {
		return nil, newErr("idempotency_key_reused", "the idempotency key was used with a different body or endpoint")
	}
	if rec.InProgress {
		return nil, newErr("idempotency_in_progress", "the first request with this idempotency key is still running")
	}
	return &rec, nil
}

// start records recKey as taken by a request that now executes.
func (st *idemStore) start(tx *kernel.Tx, recKey, endpoint string, hash [sha256.Size]byte, now time.Time) idemRow {
	rec := idemRow{Endpoint: endpoint, BodyHash: hash, ExpiresAt: now.Add(idempotencyWindow), InProgress: true}
	st.records.Put(tx, recKey, rec)
	return rec
}

// end ends the request start recorded with its answer: an answer kept
// under the key (storedUnderKey) is replayed for the window; any other
// removes the record, so that the resend executes afresh.
func (st *idemStore) end(tx *kernel.Tx, recKey string, rec idemRow, resp response, requestID string) {
	if !storedUnderKey(resp) {
		st.records.Delete(tx, recKey)
		return
	}
	rec.InProgress = false
	rec.Status, rec.Code = resp.status, resp.code
	if resp.header != nil {
		rec.Header, rec.HeaderSet = headerFields(resp.header), true
	}
	if resp.body != nil {
		rec.Body, rec.BodySet = string(resp.body), true
	}
	rec.RequestID = requestID
	st.records.Put(tx, recKey, rec)
	// Queued for expiry only once kept, so a record removed above leaves
	// nothing behind in the queue.
	st.queue.Push(tx, recKey, rec.ExpiresAt)
}

// stage records recKey as taken by a first request that is still running
// until until (StartInProgress): state_invalid while the key holds a
// record. Staged records are not queued for expiry: they end by lookup.
func (st *idemStore) stage(tx *kernel.Tx, recKey, endpoint string, hash [sha256.Size]byte, now, until time.Time) error {
	if rec, ok := st.lookup(tx, recKey, now); ok && rec.holds(now) {
		return newErr("state_invalid", "the idempotency key is already in use")
	}
	st.records.Put(tx, recKey, idemRow{Endpoint: endpoint, BodyHash: hash, ExpiresAt: now.Add(idempotencyWindow), InProgress: true, StagedUntil: until})
	return nil
}

// sweep deletes the kept records whose window has passed at now. A record
// still running after its window (a held request) is looked at again a
// minute later.
func (st *idemStore) sweep(tx *kernel.Tx, now time.Time) {
	for {
		it, ok := st.queue.Pop(tx, now)
		if !ok {
			break
		}
		rec, ok := st.records.Get(tx, it.Key)
		if !ok || now.Before(rec.ExpiresAt) {
			continue // removed, or replaced by a newer record with its own entry
		}
		if rec.InProgress {
			// Still running after its window (a held request): look again
			// in a minute.
			st.queue.Push(tx, it.Key, now.Add(time.Minute))
			continue
		}
		st.records.Delete(tx, it.Key)
	}
}

// legacy is the store as the state image of recordings of versions 1 and
// 2 held it.
func (st *idemStore) legacy(tx *kernel.Tx) image.IdemStore {
	out := image.IdemStore{Records: map[string]*image.IdemRecord{}, Queue: legacyQueue(tx, st.queue)}
	for k, r := range st.records.All(tx) {
		out.Records[k] = &image.IdemRecord{
			Endpoint: r.Endpoint, BodyHash: r.BodyHash, ExpiresAt: r.ExpiresAt, InProgress: r.InProgress,
			StagedUntil: r.StagedUntil, Status: r.Status, Header: r.header(), Body: r.body(), Code: r.Code, RequestID: r.RequestID,
		}
	}
	return out
}

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
