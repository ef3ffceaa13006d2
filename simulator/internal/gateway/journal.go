package gateway

import (
	"iter"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// JournalCapacity is how many requests the simulator's journal keeps (the
// newest).
const JournalCapacity = 10_000

// Journal is the request journal: the newest business requests, by
// sequence, as kernel table rows (class Record).
type Journal struct {
	rows *kernel.Table[int64, JournalRow] // by seq
	meta *kernel.Cell[journalMeta]
	// capacity is how many requests it keeps (the newest).
	capacity int
}

// journalMeta: Seq numbers the requests; ResetAt is the seq of the last
// request before the journal was last emptied.
type journalMeta struct{ Seq, ResetAt int64 }

// JournalRow is one journaled request (the simulator's RequestRecord) as a
// row: Signature holds its explanation of a refused signature when
// HasSignature.
type JournalRow struct {
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
	Signature      SignatureRow
	HasSignature   bool
}

// SignatureRow is the explanation of a refused signature (the simulator's
// SignatureCheck) as a row: SkewSeconds counts only with HasSkew.
type SignatureRow struct {
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

// NewJournal registers the journal's table and cell on k; it keeps the
// newest capacity requests.
func NewJournal(k *kernel.Kernel, capacity int) *Journal {
	return &Journal{
		rows:     kernel.NewTable[int64, JournalRow](k, "gateway.journal", kernel.Records(), kernel.Ordered()),
		meta:     kernel.NewCell(k, "gateway.journal.meta", journalMeta{}, kernel.Records()),
		capacity: capacity,
	}
}

// Add journals row under the next sequence number (its Seq is set) and
// drops the oldest row beyond the capacity.
func (j *Journal) Add(tx *kernel.Tx, row JournalRow) {
	m := j.meta.Get(tx)
	m.Seq++
	row.Seq = m.Seq
	j.meta.Set(tx, m)
	j.rows.Put(tx, row.Seq, row)
	if old := row.Seq - int64(j.capacity); old > m.ResetAt {
		j.rows.Delete(tx, old)
	}
}

// Rows yields the rows kept, oldest first.
func (j *Journal) Rows(tx *kernel.Tx) iter.Seq[JournalRow] {
	return func(yield func(JournalRow) bool) {
		for _, row := range j.rows.All(tx) {
			if !yield(row) {
				return
			}
		}
	}
}

// Len is the number of rows kept.
func (j *Journal) Len(tx *kernel.Tx) int { return j.rows.Len(tx) }

// Seq is the number of requests journaled since the simulator started.
func (j *Journal) Seq(tx *kernel.Tx) int64 { return j.meta.Get(tx).Seq }

// Reset empties the journal; the sequence goes on.
func (j *Journal) Reset(tx *kernel.Tx) {
	j.rows.Clear(tx)
	j.meta.Update(tx, func(m *journalMeta) { m.ResetAt = m.Seq })
}

// Ring is the journal as a ring buffer of the newest requests, the form
// the state image of recordings of versions 1 and 2 held it in.
type Ring struct {
	Buf      []JournalRow
	Capacity int
	Next     int
	Full     bool
	Seq      int64
}

// Ring returns the journal as a ring buffer.
func (j *Journal) Ring(tx *kernel.Tx) Ring {
	m := j.meta.Get(tx)
	out := Ring{Capacity: j.capacity, Seq: m.Seq}
	count := m.Seq - m.ResetAt
	if count == 0 {
		return out
	}
	kept := min(count, int64(j.capacity))
	out.Buf = make([]JournalRow, kept)
	for seq, row := range j.rows.All(tx) {
		out.Buf[(seq-m.ResetAt-1)%int64(j.capacity)] = row
	}
	out.Full = count >= int64(j.capacity)
	if out.Full {
		out.Next = int(count % int64(j.capacity))
	}
	return out
}

// SetCapacity changes how many requests the journal keeps (the newest),
// from the next Add on.
func (j *Journal) SetCapacity(n int) { j.capacity = n }
