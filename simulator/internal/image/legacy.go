package image

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"time"
)

// The plain records of the projection: parts of the simulator's state as
// the state image of recordings of versions 1 and 2 held them, which the
// simulator fills from the kernel's tables when it takes a digest. Each
// type of this package stands for the simulator's type of the same name
// with its first letter lowered (Timer for timer, IdemRecord for
// idemRecord: LegacyName), but for the stand-ins the simulator lists
// (Clock, OutcomeMode, Rand), named as the type they stand for. Their
// fields are named with their first letter lowered, as they were.

// Clock is the clock as the state image held it: the reading, the pending
// timers in heap order, the sequence.
type Clock struct {
	Now    time.Time
	Timers TimerHeap
	Seq    int64
}

// TimerHeap is the clock's pending timers, in heap order.
type TimerHeap []*Timer

// Timer is a pending timer: when it falls due, its sequence and the
// object it is for.
type Timer struct {
	At  time.Time
	Seq int64
	Id  string
}

// OutcomeState is the outcome state as the state image held it.
type OutcomeState struct {
	ByCollection map[string]OutcomeMode
	ByObject     map[string]OutcomeMode
	Pending      map[string]string
}

// OutcomeMode is an OutcomeMode of the simulator as the state image held
// it: its fields, in their order.
type OutcomeMode struct {
	Kind  string
	After time.Duration
}

// Rand is a rand.Rand as the state image held it: its one field, its
// source.
type Rand struct {
	Src rand.Source
}

// ExpiryQueue is an expiry queue as the state image held it: a slice whose
// popped entries before head are zero until it is compacted.
type ExpiryQueue struct {
	Items []Expiring
	Head  int
}

// Expiring is an entry of an expiry queue: a key and when it expires.
type Expiring struct {
	Key string
	At  time.Time
}

// IdemStore is the gateway's idempotency store as the state image held it.
type IdemStore struct {
	Records map[string]*IdemRecord
	Queue   ExpiryQueue
}

// IdemRecord is an idempotency record as the state image held it.
type IdemRecord struct {
	Endpoint    string
	BodyHash    [32]byte
	ExpiresAt   time.Time
	InProgress  bool
	StagedUntil time.Time
	Status      int
	Header      http.Header
	Body        []byte
	Code        string
	RequestID   string
}

// AssetsCache is the cached GET /v1/assets answer (the encoded catalogue
// for one allowlist) as the state image held it.
type AssetsCache struct {
	Key  string
	Body json.RawMessage
}
