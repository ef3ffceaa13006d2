package qrpay

// The order of a QR payment order's statuses, from the specification's
// state table of the QR payment order (States and transitions): pending ->
// processing (funds held, then the upstream notified) -> completed or
// failed (the upstream's result); completed -> refunded (the upstream
// refunds after completion). expired and canceled are listed without their
// transitions; the SDK reads them as final statuses reached before an
// outcome, from pending or processing. completed is final for the payment,
// but refunded may still follow it; failed, expired, canceled and refunded
// end the order.
var follows = map[Status][]Status{
	StatusPending:    {StatusProcessing, StatusCompleted, StatusFailed, StatusExpired, StatusCanceled, StatusRefunded},
	StatusProcessing: {StatusCompleted, StatusFailed, StatusExpired, StatusCanceled, StatusRefunded},
	StatusCompleted:  {StatusRefunded},
}

// Follows reports whether the state table leads from status from to s, in
// one or more steps: processing follows pending, refunded follows completed,
// nothing follows failed, expired, canceled or refunded. An unknown status
// neither follows nor is followed by any other.
func (s Status) Follows(from Status) bool {
	for _, n := range follows[from] {
		if n == s {
			return true
		}
	}
	return false
}

// Snapshot is what is known of an order's status: from a read of the order
// (Version 0: the order resource carries no status_version) or from a
// qrpay.order.* event (Version is its status_version).
type Snapshot struct {
	Status  Status
	Version int64
}

// MergeOutcome says what Merge did.
type MergeOutcome int

const (
	// MergeKept: current stays; update is older or says the same.
	MergeKept MergeOutcome = iota + 1
	// MergeAdvanced: update moves the order forward and replaces current.
	MergeAdvanced
	// MergeUnordered: the two cannot be ordered without status versions on
	// both sides: one of them is a status the SDK does not know, or they
	// are two final statuses the state table does not link (completed and
	// failed). current stays; alert, keep update's status verbatim in your
	// records, and re-read the order.
	MergeUnordered
)

// String returns "kept", "advanced" or "unordered".
func (m MergeOutcome) String() string {
	switch m {
	case MergeKept:
		return "kept"
	case MergeAdvanced:
		return "advanced"
	case MergeUnordered:
		return "unordered"
	}
	return "MergeOutcome(?)"
}

// Merge returns the snapshot of an order to keep when update arrives after
// current, whatever their order of arrival (reads, webhooks, redeliveries):
//
//  1. When both carry a status_version (two events), the higher version
//     wins, the specification's rule for events; an equal or lower one is
//     dropped. Unknown statuses are ordered by their version too.
//  2. Otherwise (a read is involved: the order resource has no version) the
//     state table decides (Follows): update wins only when its status
//     follows current's, so a late "processing" never undoes "completed",
//     and "refunded" follows "completed". The snapshot kept carries the
//     higher of the two versions, so older events are dropped by rule 1.
//  3. A status the SDK does not know has no place in the table, and is
//     never ranked as a default: without versions on both sides the merge
//     answers MergeUnordered and keeps current.
//
// A zero current (nothing known yet) takes update.
func Merge(current, update Snapshot) (Snapshot, MergeOutcome) {
	switch {
	case current.Status == "":
		return update, MergeAdvanced
	case current.Version > 0 && update.Version > 0:
		if update.Version > current.Version {
			return update, MergeAdvanced
		}
		return current, MergeKept
	case update.Status == current.Status:
		current.Version = max(current.Version, update.Version)
		return current, MergeKept
	case !current.Status.Known() || !update.Status.Known():
		return current, MergeUnordered
	case update.Status.Follows(current.Status):
		update.Version = max(current.Version, update.Version)
		return update, MergeAdvanced
	case current.Status.Follows(update.Status):
		current.Version = max(current.Version, update.Version)
		return current, MergeKept
	}
	return current, MergeUnordered
}
