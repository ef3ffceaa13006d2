package simulator

import (
	"math/rand/v2"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/image"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/windows"
)

// The gateway's state as kernel tables. Most of it is what the pipeline
// records about requests outside their handler's step (class Record): the
// request ids and their generator, consumed nonces, idempotency records,
// token exchange and write quota windows, the fault counters, the request
// journal, and the expiry queues of the windows. The write quota itself is
// an operator setting (class State).

// legacyQueue is q as the state image of recordings of versions 1 and 2
// held it.
func legacyQueue(tx *kernel.Tx, q windows.ExpiryQueue) image.ExpiryQueue {
	items, head, used := q.Kept(tx)
	var out image.ExpiryQueue
	if !used {
		return out
	}
	out.Items = make([]image.Expiring, len(items))
	for i, it := range items {
		out.Items[i] = image.Expiring(it)
	}
	out.Head = head
	return out
}

// journal is the request journal: the newest requests, by sequence.
type journal struct {
	rows *kernel.Table[int64, journalRow] // by seq
	meta *kernel.Cell[journalMeta]
	// capacity is how many requests it keeps (the newest).
	capacity int
}

// journalMeta: Seq numbers the requests; ResetAt is the seq of the last
// request before the journal was last emptied.
type journalMeta struct{ Seq, ResetAt int64 }

// journalRow is a RequestRecord as a row.
type journalRow struct {
	Seq            int64
	Time           time.Time
	RequestID      string
	Method         string
	Path           string
	Query          string
	ClientID       string
	Member         string
	IdempotencyKey string
	Status         int
	Code           string
	Replay         bool
	ReplayOf       string
	Fault          string
	Dropped        bool
	Signature      signatureRow
	HasSignature   bool
}

// signatureRow is a SignatureCheck as a row: SkewSeconds with HasSkew.
type signatureRow struct {
	Problem          string
	CanonicalString  string
	Truncated        bool
	BodySHA256       string
	BodyBytes        int
	Timestamp        string
	Clock            time.Time
	ClockUnix        int64
	SkewSeconds      int64
	HasSkew          bool
	ToleranceSeconds int64
}

func journalRowOf(r RequestRecord) journalRow {
	row := journalRow{
		Seq: r.Seq, Time: r.Time, RequestID: r.RequestID, Method: r.Method, Path: r.Path, Query: r.Query,
		ClientID: r.ClientID, Member: r.Member, IdempotencyKey: r.IdempotencyKey, Status: r.Status, Code: r.Code,
		Replay: r.Replay, ReplayOf: r.ReplayOf, Fault: r.Fault, Dropped: r.Dropped,
	}
	if sc := r.Signature; sc != nil {
		row.Signature, row.HasSignature = signatureRow{
			Problem: sc.Problem, CanonicalString: sc.CanonicalString, Truncated: sc.Truncated, BodySHA256: sc.BodySHA256,
			BodyBytes: sc.BodyBytes, Timestamp: sc.Timestamp, Clock: sc.Clock, ClockUnix: sc.ClockUnix, ToleranceSeconds: sc.ToleranceSeconds,
		}, true
		if sc.SkewSeconds != nil {
			row.Signature.SkewSeconds, row.Signature.HasSkew = *sc.SkewSeconds, true
		}
	}
	return row
}

func (row journalRow) record() RequestRecord {
	r := RequestRecord{
		Seq: row.Seq, Time: row.Time, RequestID: row.RequestID, Method: row.Method, Path: row.Path, Query: row.Query,
		ClientID: row.ClientID, Member: row.Member, IdempotencyKey: row.IdempotencyKey, Status: row.Status, Code: row.Code,
		Replay: row.Replay, ReplayOf: row.ReplayOf, Fault: row.Fault, Dropped: row.Dropped,
	}
	if row.HasSignature {
		sr := row.Signature
		r.Signature = &SignatureCheck{
			Problem: sr.Problem, CanonicalString: sr.CanonicalString, Truncated: sr.Truncated, BodySHA256: sr.BodySHA256,
			BodyBytes: sr.BodyBytes, Timestamp: sr.Timestamp, Clock: sr.Clock, ClockUnix: sr.ClockUnix, ToleranceSeconds: sr.ToleranceSeconds,
		}
		if sr.HasSkew {
			skew := sr.SkewSeconds
			r.Signature.SkewSeconds = &skew
		}
	}
	return r
}

func newJournal(k *kernel.Kernel, capacity int) *journal {
	return &journal{
		rows:     kernel.NewTable[int64, journalRow](k, "gateway.journal", kernel.Records(), kernel.Ordered()),
		meta:     kernel.NewCell(k, "gateway.journal.meta", journalMeta{}, kernel.Records()),
		capacity: capacity,
	}
}

func (j *journal) add(tx *kernel.Tx, r RequestRecord) {
	m := j.meta.Get(tx)
	m.Seq++
	r.Seq = m.Seq
	j.meta.Set(tx, m)
	j.rows.Put(tx, r.Seq, journalRowOf(r))
	if old := r.Seq - int64(j.capacity); old > m.ResetAt {
		j.rows.Delete(tx, old)
	}
}

// list returns the records oldest first.
func (j *journal) list(tx *kernel.Tx) []RequestRecord {
	out := make([]RequestRecord, 0, j.rows.Len(tx))
	for _, row := range j.rows.All(tx) {
		out = append(out, row.record())
	}
	return out
}

// len is the number of records kept.
func (j *journal) len(tx *kernel.Tx) int { return j.rows.Len(tx) }

// seq is the number of requests journaled since the simulator started.
func (j *journal) seq(tx *kernel.Tx) int64 { return j.meta.Get(tx).Seq }

func (j *journal) reset(tx *kernel.Tx) {
	j.rows.Clear(tx)
	j.meta.Update(tx, func(m *journalMeta) { m.ResetAt = m.Seq })
}

// legacyJournal is the journal as the state image of recordings of
// versions 1 and 2 held it: a ring buffer of the newest requests.
type legacyJournal struct {
	Buf      []RequestRecord
	Capacity int
	Next     int
	Full     bool
	Seq      int64
}

func (j *journal) legacy(tx *kernel.Tx) *legacyJournal {
	m := j.meta.Get(tx)
	out := &legacyJournal{Capacity: j.capacity, Seq: m.Seq}
	count := m.Seq - m.ResetAt
	if count == 0 {
		return out
	}
	kept := min(count, int64(j.capacity))
	out.Buf = make([]RequestRecord, kept)
	for seq, row := range j.rows.All(tx) {
		out.Buf[(seq-m.ResetAt-1)%int64(j.capacity)] = row.record()
	}
	out.Full = count >= int64(j.capacity)
	if out.Full {
		out.Next = int(count % int64(j.capacity))
	}
	return out
}

// legacyFaultRule is an armed fault as the state image of recordings of
// versions 1 and 2 held it.
type legacyFaultRule struct {
	Fault
	Remaining int
	Unlimited bool
}

// legacyGatewayState is the gateway's state as the state image of
// recordings of versions 1 and 2 held it.
type legacyGatewayState struct {
	RequestSeq    int64
	Rng           *image.Rand
	Pcg           *rand.PCG
	Nonces        map[string]time.Time
	NonceQ        image.ExpiryQueue
	Idem          image.IdemStore
	TokenQ        image.ExpiryQueue
	Exchanges     map[string][]time.Time
	ChallengeQ    image.ExpiryQueue
	QrMemoQ       image.ExpiryQueue
	Faults        []*legacyFaultRule
	Journal       *legacyJournal
	WriteQuota    int
	Writes        []time.Time
	ScopeCatalog  map[string]bool
	MaxNonces     int
	MaxIdem       int
	MaxChallenges int
	BodyKey       [32]byte
}

func (g *gatewayState) legacy(tx *kernel.Tx) *legacyGatewayState {
	rng, pcg := legacyRandOf(g.rng, tx)
	out := &legacyGatewayState{
		RequestSeq: g.requestSeq.Get(tx), Rng: rng, Pcg: pcg, Nonces: map[string]time.Time{},
		NonceQ: legacyQueue(tx, g.nonceQ), Idem: legacyIdem(tx, g.idem), TokenQ: legacyQueue(tx, g.tokenQ),
		Exchanges: map[string][]time.Time{}, ChallengeQ: legacyQueue(tx, g.challengeQ), QrMemoQ: legacyQueue(tx, g.qrMemoQ),
		Journal: g.journal.legacy(tx), WriteQuota: g.quota.Limit(tx), Writes: g.quota.Kept(tx),
		// The caps are configuration, out of the digest: the image keeps the
		// values every build of those versions had.
		ScopeCatalog: g.scopeCatalog, MaxNonces: legacyCaps.Nonces, MaxIdem: legacyCaps.IdempotencyKeys, MaxChallenges: legacyCaps.StepUpChallenges,
		BodyKey: g.bodyKey,
	}
	for k, v := range g.nonces.All(tx) {
		out.Nonces[k] = v
	}
	for k, v := range g.exchanges.All(tx) {
		out.Exchanges[k] = v.Slice()
	}
	if g.faults.Held(tx) {
		out.Faults = []*legacyFaultRule{}
	}
	for _, f := range g.faults.All(tx) {
		out.Faults = append(out.Faults, &legacyFaultRule{Fault: faultOf(f), Remaining: f.Remaining, Unlimited: f.Unlimited})
	}
	return out
}
