// Package idempotency is the gateway's idempotency store: the records of
// keyed requests (Idempotency rules of the specification), their key, their
// 24-hour window and expiry, the bound on how many are kept, and the
// records the control API stages (StartInProgress). The gateway asks it at
// its idempotency step and turns its refusals into the contract's errors;
// the sweep of every business request expires its records.
//
// The remittance line's own map of keys to orders (internal/remittances) is
// not part of it: it lets the replay of a kept success answer the order's
// current status; the answers themselves stay here.
package idempotency

import (
	"crypto/sha256"
	"net/http"
	"sort"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/windows"
)

// Window is how long an idempotency record lives.
const Window = 24 * time.Hour

// Store holds the idempotency records and their expiry queue (class
// Record: the gateway's records of keyed requests). Its tables are
// exported for the digest's projection of them and for tests that fill a
// store; everything else goes through its methods.
type Store struct {
	Records *kernel.Table[string, Record] // Key(merchant, key) -> record
	Queue   windows.ExpiryQueue           // kept records by expiry
}

// New registers the store's tables (gateway.idempotency and its expiry
// queue, gateway.idempotency_expiry) with k.
func New(k *kernel.Kernel) Store {
	return Store{
		Records: kernel.NewTable[string, Record](k, "gateway.idempotency", kernel.Records()),
		Queue:   windows.NewExpiryQueue(k, "gateway.idempotency_expiry"),
	}
}

// Key is the key of the record of the x-idempotency-key key sent to
// merchant: keys are the merchant's own.
func Key(merchant, key string) string { return merchant + "|" + key }

// Record is an idempotency record as a row: the answer kept, with whether
// its header and body were set (nil and empty differ in the image of
// earlier recordings).
type Record struct {
	Endpoint    string   // METHOD and escaped path
	BodyHash    [32]byte // keyed digest of the body, never a plain hash
	ExpiresAt   time.Time
	InProgress  bool
	StagedUntil time.Time
	Status      int
	Header      kernel.List[HeaderField]
	HeaderSet   bool
	Body        string
	BodySet     bool
	Code        string
	RequestID   string // the request whose answer is kept
}

// HeaderField is one header of a kept answer.
type HeaderField struct {
	Key    string
	Values kernel.List[string]
}

// HeaderFields is h as the fields of a Record, by key.
func HeaderFields(h http.Header) kernel.List[HeaderField] {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]HeaderField, 0, len(keys))
	for _, k := range keys {
		out = append(out, HeaderField{Key: k, Values: kernel.ListOf(h[k]...)})
	}
	return kernel.ListOf(out...)
}

// KeptHeader is the kept answer's header (nil when none was set).
func (r Record) KeptHeader() http.Header {
	if !r.HeaderSet {
		return nil
	}
	h := http.Header{}
	for f := range r.Header.Values() {
		h[f.Key] = f.Values.Slice()
		if h[f.Key] == nil {
			h[f.Key] = []string{}
		}
	}
	return h
}

// KeptBody is the kept answer's body (nil when none was set).
func (r Record) KeptBody() []byte {
	if !r.BodySet {
		return nil
	}
	return []byte(r.Body)
}

// Holds reports whether r still holds its key at now: its request is
// running, or its answer is inside the window.
func (r Record) Holds(now time.Time) bool {
	return r.InProgress || now.Before(r.ExpiresAt)
}

// Len is the number of records held, expired ones not yet swept included.
func (st *Store) Len(tx *kernel.Tx) int { return st.Records.Len(tx) }

// Lookup returns the record stored under recKey. A record Stage made whose
// time has run out is dropped instead: its request ended without a stored
// result. (Data, not a timer, so that the state stays an image.)
func (st *Store) Lookup(tx *kernel.Tx, recKey string, now time.Time) (Record, bool) {
	rec, ok := st.Records.Get(tx, recKey)
	if ok && !rec.StagedUntil.IsZero() && !now.Before(rec.StagedUntil) {
		st.Records.Delete(tx, recKey)
		return Record{}, false
	}
	return rec, ok
}

// Refusal is why Check refuses a request; the gateway answers it with the
// contract's error.
type Refusal int

// The refusals of Check.
const (
	// None: no refusal.
	None Refusal = iota
	// Full: the key has no record and the store holds its capacity.
	Full
	// Reused: the key holds a record of another endpoint or body
	// (idempotency_key_reused).
	Reused
	// InProgress: the key's first request still runs
	// (idempotency_in_progress).
	InProgress
)

// Check is the gateway's idempotency step for a request to endpoint with
// body digest hash under recKey, with at most capacity records kept. It
// returns the record whose answer is replayed, or the refusal. Neither: the
// request executes (Start).
func (st *Store) Check(tx *kernel.Tx, recKey, endpoint string, hash [sha256.Size]byte, now time.Time, capacity int) (*Record, Refusal) {
	rec, ok := st.Lookup(tx, recKey, now)
	if !ok && st.Records.Len(tx) >= capacity {
		return nil, Full
	}
	if !ok || !rec.Holds(now) {
		return nil, None
	}
	if rec.Endpoint != endpoint || rec.BodyHash != hash {
		return nil, Reused
	}
	if rec.InProgress {
		return nil, InProgress
	}
	return &rec, None
}

// Start records recKey as taken by a request that now executes.
func (st *Store) Start(tx *kernel.Tx, recKey, endpoint string, hash [sha256.Size]byte, now time.Time) Record {
	rec := Record{Endpoint: endpoint, BodyHash: hash, ExpiresAt: now.Add(Window), InProgress: true}
	st.Records.Put(tx, recKey, rec)
	return rec
}

// Answer is what a request that Start recorded answered.
type Answer struct {
	Status int
	Code   string // the error code, "" for a success
	Header http.Header
	Body   []byte
	// Transient marks a refusal not kept under the key although the
	// handler gave it (a full store).
	Transient bool
}

// End ends the request Start recorded as rec with its answer: an answer
// kept under the key (Kept) is replayed for the window; any other removes
// the record, so that the resend executes afresh.
func (st *Store) End(tx *kernel.Tx, recKey string, rec Record, ans Answer, requestID string) {
	if !Kept(ans) {
		st.Records.Delete(tx, recKey)
		return
	}
	rec.InProgress = false
	rec.Status, rec.Code = ans.Status, ans.Code
	if ans.Header != nil {
		rec.Header, rec.HeaderSet = HeaderFields(ans.Header), true
	}
	if ans.Body != nil {
		rec.Body, rec.BodySet = string(ans.Body), true
	}
	rec.RequestID = requestID
	st.Records.Put(tx, recKey, rec)
	// Queued for expiry only once kept, so a record removed above leaves
	// nothing behind in the queue.
	st.Queue.Push(tx, recKey, rec.ExpiresAt)
}

// Stage records recKey as taken by a first request that is still running
// until until (StartInProgress). It reports false, and changes nothing,
// while the key holds a record. Staged records are not queued for expiry:
// they end by Lookup.
func (st *Store) Stage(tx *kernel.Tx, recKey, endpoint string, hash [sha256.Size]byte, now, until time.Time) bool {
	if rec, ok := st.Lookup(tx, recKey, now); ok && rec.Holds(now) {
		return false
	}
	st.Records.Put(tx, recKey, Record{Endpoint: endpoint, BodyHash: hash, ExpiresAt: now.Add(Window), InProgress: true, StagedUntil: until})
	return true
}

// Sweep deletes the kept records whose window has passed at now. A record
// still running after its window (a held request) is looked at again a
// minute later.
func (st *Store) Sweep(tx *kernel.Tx, now time.Time) {
	for {
		it, ok := st.Queue.Pop(tx, now)
		if !ok {
			break
		}
		rec, ok := st.Records.Get(tx, it.Key)
		if !ok || now.Before(rec.ExpiresAt) {
			continue // removed, or replaced by a newer record with its own entry
		}
		if rec.InProgress {
			// Still running after its window (a held request): look again
			// in a minute.
			st.Queue.Push(tx, it.Key, now.Add(time.Minute))
			continue
		}
		st.Records.Delete(tx, it.Key)
	}
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

// NotKept are the handler answers that are not kept under the key, each
// with the rule that sends the client back with the same key.
var NotKept = map[string]string{
	"step_up_required":        "the caller resends the same body with the same key and x-step-up once the hosted screen is done (Step-up; Retry rule 1)",
	"rate_limited":            "the quota frees up after Retry-After; the same request is then served (Limits)",
	"upstream_error":          "retry with the same key (Retry rule 1); a handler answers it only when nothing executed",
	"upstream_timeout":        "retry with the same key (Idempotency rule 4, Retry rule 1); a handler that executed keeps its real outcome instead (error_after)",
	"idempotency_in_progress": "the key belongs to the first request, still running; wait and retry (Idempotency rule 3; Retry rule 1)",
	"idempotency_key_reused":  "the key belongs to the first request and its body (Idempotency rule 3)",
}

// Kept reports whether ans is kept under its idempotency key.
func Kept(ans Answer) bool {
	_, notKept := NotKept[ans.Code]
	return !notKept && !ans.Transient
}
