package webhooks

import "sync"

// Supersedes reports whether next should be applied over prev, two events
// about the same object (same data.object and data.id), following the
// specification's merge rule:
//
//   - events with a real status_version merge forward: next is applied only
//     when its version is strictly greater; older or equal versions are
//     dropped;
//   - events whose status_version is the constant 0 (see
//     Event.ConstantVersion) are ordered by created_at: next is applied
//     unless it was created strictly before prev, and an equal version is
//     never a reason to skip.
//
// Use it when the last applied event (or its version and created_at) is
// stored next to your own copy of the object; Tracker does the bookkeeping
// in memory.
func Supersedes(next, prev Event) bool {
	if next.ConstantVersion() || prev.ConstantVersion() {
		return !next.CreatedAt.Before(prev.CreatedAt)
	}
	return next.Data.StatusVersion > prev.Data.StatusVersion
}

// ObjectKey names one object: data.object and data.id.
type ObjectKey struct {
	Object ObjectKind
	ID     string
}

// Key returns the ObjectKey of an event.
func (e Event) Key() ObjectKey { return ObjectKey{Object: e.Data.Object, ID: e.Data.ID} }

// Tracker merges events forward per object (data.object, data.id) and drops
// the ones that arrive out of order, by the rule of Supersedes. It keeps the
// last applied event of each object in memory and is safe for concurrent
// use. It does not deduplicate: redeliveries of a constant-0 event pass
// again, so put a Deduper in front (Handler does).
type Tracker struct {
	mu   sync.Mutex
	last map[ObjectKey]Event
}

// NewTracker returns an empty Tracker.
func NewTracker() *Tracker { return &Tracker{last: map[ObjectKey]Event{}} }

// Apply reports whether ev moves its object forward; if so it becomes the
// object's last event. false means ev is older than (or, for a versioned
// event, the same version as) what was applied, and should be dropped.
func (t *Tracker) Apply(ev Event) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := ev.Key()
	if prev, ok := t.last[k]; ok && !Supersedes(ev, prev) {
		return false
	}
	t.last[k] = ev
	return true
}

// Last returns the last applied event of an object.
func (t *Tracker) Last(k ObjectKey) (Event, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ev, ok := t.last[k]
	return ev, ok
}

// Forget drops what is known about an object (for example once it reached
// a final state), keeping the Tracker small.
func (t *Tracker) Forget(k ObjectKey) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.last, k)
}

// Len returns the number of objects tracked.
func (t *Tracker) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.last)
}
