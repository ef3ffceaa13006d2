// Package legacyimage projects the kernel's own tables (the expiry queues,
// the idempotency store, the clock's timers and the outcome modes, the
// seeded generators) into the state image of recordings of versions 1 and
// 2 (internal/image's types), as those builds held them, so that their
// digests are unchanged. The parts of that image that name the simulator
// package's own types stay there (image_legacy.go); the lines project
// their own state (each line's Legacy).
package legacyimage

import (
	"math/rand/v2"

	"github.com/mwallet/mwallet-go/simulator/internal/idempotency"
	"github.com/mwallet/mwallet-go/simulator/internal/ids"
	"github.com/mwallet/mwallet-go/simulator/internal/image"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/outcomes"
	"github.com/mwallet/mwallet-go/simulator/internal/windows"
)

// Queue is q as the image held it: empty until the queue was first used.
func Queue(tx *kernel.Tx, q windows.ExpiryQueue) image.ExpiryQueue {
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

// Idem is the idempotency store st as the image held it: its records by
// key and its expiry queue.
func Idem(tx *kernel.Tx, st idempotency.Store) image.IdemStore {
	out := image.IdemStore{Records: map[string]*image.IdemRecord{}, Queue: Queue(tx, st.Queue)}
	for k, r := range st.Records.All(tx) {
		out.Records[k] = &image.IdemRecord{
			Endpoint: r.Endpoint, BodyHash: r.BodyHash, ExpiresAt: r.ExpiresAt, InProgress: r.InProgress,
			StagedUntil: r.StagedUntil, Status: r.Status, Header: r.KeptHeader(), Body: r.KeptBody(), Code: r.Code, RequestID: r.RequestID,
		}
	}
	return out
}

// Timers are the clock (its reading, its timers, their sequence) and the
// outcome modes of t as the image held them.
func Timers(t *outcomes.Timers, tx *kernel.Tx) (*image.Clock, *image.OutcomeState) {
	v := t.View(tx)
	c := &image.Clock{Now: tx.Now(), Seq: v.TimerSeq}
	if c.Seq > 0 {
		c.Timers = image.TimerHeap{} // a heap that held a timer stays allocated
	}
	for _, tm := range v.Timers {
		c.Timers = append(c.Timers, &image.Timer{At: tm.At, Seq: tm.Seq, Id: tm.ID})
	}
	os := &image.OutcomeState{ByCollection: map[string]image.OutcomeMode{}, ByObject: map[string]image.OutcomeMode{}, Pending: v.Pending}
	for k, m := range v.ByCollection {
		os.ByCollection[k] = mode(m)
	}
	for k, m := range v.ByObject {
		os.ByObject[k] = mode(m)
	}
	return c, os
}

// mode is an outcome mode as the image held it.
func mode(m outcomes.Mode) image.OutcomeMode {
	return image.OutcomeMode{Kind: m.Kind, After: m.After}
}

// Rand is the generator g as the image held it (a *rand.Rand), with its
// source (the two shared one PCG).
func Rand(g ids.Generator, tx *kernel.Tx) (*image.Rand, *rand.PCG) {
	p := g.Copy(tx)
	return &image.Rand{Src: p}, p
}
