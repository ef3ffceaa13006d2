package gateway

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"strconv"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/faults"
	"github.com/mwallet/mwallet-go/simulator/internal/idempotency"
	"github.com/mwallet/mwallet-go/simulator/internal/ids"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/windows"
)

// State holds the gateway's windows as kernel tables: the request ids and
// their generator, consumed nonces, idempotency records, the token-exchange
// rate, the expiry queues, the armed faults, the request journal and the
// write quota. Most of it is what the pipeline records about requests
// outside their handler's step (class Record); the write quota itself is an
// operator setting (class State).
type State struct {
	RequestSeq *kernel.Cell[int64]
	// Rng draws the request ids, token values and fault draws; apart from
	// the object ids' generator, so they do not depend on traffic.
	Rng ids.Generator

	Nonces *kernel.Table[string, time.Time] // environment|nonce -> expiry
	NonceQ windows.ExpiryQueue

	Idem idempotency.Store // idempotency records

	TokenQ    windows.ExpiryQueue                           // token values by expiry
	Exchanges *kernel.Table[string, kernel.List[time.Time]] // client id -> recent token exchanges (at most the quota)

	ChallengeQ windows.ExpiryQueue // step-up challenge ids by expiry (the step-up line)
	QRMemoQ    windows.ExpiryQueue // QR quote memo keys by expiry (the QR line's memo)
	// RemitIdemQ: remittance idempotency keys by expiry (the remittances
	// line's records). Not in the state digest's image: each entry is a
	// record of the line's idempotency table and its window's end, which
	// the digest holds.
	RemitIdemQ windows.ExpiryQueue

	Faults  faults.Table // in the order they were injected
	Journal *Journal

	// Quota is the merchant-level write quota per minute and the writes it
	// counted in the last minute.
	Quota windows.Quota

	// ScopeCatalog holds every scope the service knows: the scopes the
	// contract names and every scope an endpoint requires (built with the
	// endpoints, never changed).
	ScopeCatalog map[string]bool

	// Caps bound the nonce, idempotency and step-up challenge stores:
	// configuration a log carries, left out of the digest.
	Caps *kernel.Cell[StoreCaps]

	// BodyKey keys the idempotency body digests, so a stored digest of a
	// low-entropy body (a PIN change) cannot be reversed by trying every PIN.
	BodyKey [32]byte
}

// NewState registers the gateway's tables on k, in their place of the
// kernel's order, with a journal of journalCapacity rows. bodyKey is the key
// a recording carries; nil derives it from seed.
func NewState(k *kernel.Kernel, seed int64, bodyKey *[32]byte, caps StoreCaps, journalCapacity int) *State {
	rec := kernel.Records()
	g := &State{
		RequestSeq:   kernel.NewCell(k, "gateway.request_seq", int64(0), rec),
		Rng:          ids.New(k, "gateway.random", uint64(seed)^0x5bd1e995, uint64(seed)+0x27d4eb2f, rec),
		Nonces:       kernel.NewTable[string, time.Time](k, "gateway.nonces", rec),
		NonceQ:       windows.NewExpiryQueue(k, "gateway.nonce_expiry"),
		Idem:         idempotency.New(k),
		TokenQ:       windows.NewExpiryQueue(k, "gateway.token_expiry"),
		Exchanges:    kernel.NewTable[string, kernel.List[time.Time]](k, "gateway.token_exchanges", rec),
		ChallengeQ:   windows.NewExpiryQueue(k, "gateway.challenge_expiry"),
		QRMemoQ:      windows.NewExpiryQueue(k, "gateway.qr_memo_expiry"),
		RemitIdemQ:   windows.NewExpiryQueue(k, "gateway.remittance_idempotency_expiry"),
		Faults:       faults.New(k),
		Journal:      NewJournal(k, journalCapacity),
		Quota:        windows.NewQuota(k),
		ScopeCatalog: map[string]bool{},
		Caps:         kernel.NewCell(k, "gateway.store_caps", caps, rec),
	}
	// The key is derived from the seed, so that two simulators built with
	// the same options and fed the same inputs hold the same state and
	// digest (a per-process random key made every digest differ). It hides
	// nothing from a reader of a data directory or recording, which holds
	// the bodies themselves; it keeps the digests of low-entropy bodies out
	// of plain sight in a state image. A recording carries the key it was
	// written with (earlier builds drew it at random); a replay passes it in.
	if bodyKey != nil {
		g.BodyKey = *bodyKey
	} else {
		g.BodyKey = sha256.Sum256(binary.BigEndian.AppendUint64([]byte("mwallet-sim idempotency body key\x00"), uint64(seed)))
	}
	return g
}

// BodyDigest is the keyed digest of a request body kept in an idempotency
// record.
func (g *State) BodyDigest(body []byte) [sha256.Size]byte {
	m := hmac.New(sha256.New, g.BodyKey[:])
	m.Write(body)
	var d [sha256.Size]byte
	m.Sum(d[:0])
	return d
}

// NextRequestID draws the request id of a business request.
func (g *State) NextRequestID(tx *kernel.Tx) string {
	n := g.RequestSeq.Get(tx) + 1
	g.RequestSeq.Set(tx, n)
	return "req_" + strconv.FormatInt(n, 10) + "_" + strconv.FormatUint(g.Rng.Uint64(tx)&0xffffffffff, 36)
}
