package windows

import (
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// QuotaWindow is the window of the merchant-level write quota.
const QuotaWindow = time.Minute

// Quota is the merchant-level write quota: how many business writes a
// minute of the simulator clock the merchant may make (0: no quota), an
// operator setting (class State), and the times of the writes counted in
// the last minute (class Record).
type Quota struct {
	limit  *kernel.Cell[int]
	writes *kernel.Cell[Writes]
}

// Writes is the window of counted write times: Held says it was kept as a
// list once (an empty list, not none, in the image of earlier recordings).
type Writes struct {
	Times kernel.List[time.Time]
	Held  bool
}

// NewQuota registers the quota's cells, gateway.write_quota and
// gateway.write_window, with k.
func NewQuota(k *kernel.Kernel) Quota {
	return Quota{
		limit:  kernel.NewCell(k, "gateway.write_quota", 0),
		writes: kernel.NewCell(k, "gateway.write_window", Writes{}, kernel.Records()),
	}
}

// Limit is the quota per minute in force (0: none).
func (q Quota) Limit(tx *kernel.Tx) int { return q.limit.Get(tx) }

// Take counts a write at now against the quota. With a quota of n per
// minute, the n+1th write within a minute is refused (ok false) and not
// counted; wait is then the seconds, at least 1, until the oldest counted
// write leaves the window. Without a quota every write passes uncounted.
func (q Quota) Take(tx *kernel.Tx, now time.Time) (wait int64, ok bool) {
	limit := q.limit.Get(tx)
	if limit <= 0 {
		return 0, true
	}
	w := q.writes.Get(tx)
	cut := 0
	for cut < w.Times.Len() && !now.Before(w.Times.At(cut).Add(QuotaWindow)) {
		cut++
	}
	if cut > 0 {
		w.Times, w.Held = w.Times.From(cut), true
		q.writes.Set(tx, w)
	}
	if w.Times.Len() >= limit {
		wait = int64((w.Times.At(0).Add(QuotaWindow).Sub(now) + time.Second - 1) / time.Second)
		return max(wait, 1), false
	}
	w.Times, w.Held = w.Times.Append(now), true
	q.writes.Set(tx, w)
	return 0, true
}

// Set sets the quota per minute, 0 or more (0 removes it), keeping at
// most the newest perMinute counted writes.
func (q Quota) Set(tx *kernel.Tx, perMinute int) {
	q.limit.Set(tx, perMinute)
	w := q.writes.Get(tx)
	if perMinute == 0 {
		q.writes.Set(tx, Writes{})
	} else if w.Times.Len() > perMinute {
		q.writes.Set(tx, Writes{Times: w.Times.From(w.Times.Len() - perMinute), Held: true})
	}
}

// Kept is the counted write times as the earlier builds' slice held them
// (an empty slice, not nil, once held).
func (q Quota) Kept(tx *kernel.Tx) []time.Time {
	w := q.writes.Get(tx)
	out := w.Times.Slice()
	if out == nil && w.Held {
		out = []time.Time{}
	}
	return out
}
