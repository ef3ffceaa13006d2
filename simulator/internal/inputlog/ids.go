package inputlog

import (
	"strconv"
	"sync/atomic"
)

// ControlIDs numbers the request ids of control answers. They come from a
// counter of their own, not from the gateway's seeded generator, so that
// control reads change nothing a replay reproduces; the seed only mixes
// them.
type ControlIDs struct {
	seq atomic.Uint64
	mix uint64
}

// NewControlIDs returns the control ids of a simulator built with seed.
func NewControlIDs(seed int64) *ControlIDs {
	return &ControlIDs{mix: uint64(seed)*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019}
}

// Next returns the next request id of a control answer.
func (c *ControlIDs) Next() string {
	n := c.seq.Add(1)
	x := n ^ c.mix
	x ^= x >> 31
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 29
	return "req_c" + strconv.FormatUint(n, 10) + "_" + strconv.FormatUint(x&0xffffffffff, 36)
}
