// Package kernel owns what every product line of the simulator shares and
// none may take for itself: the state lock and the order of inputs.
//
// A transition never locks. It takes a *Tx, and holding one is the proof
// that the state lock is held: only this package makes a Tx, and only
// while its lock is held. Code that needs the lock asks the kernel for a
// transaction:
//
//	tx := k.Begin()      // a read, or a change that is not an input
//	defer tx.End()
//
//	tx := k.BeginInput() // an input: its place in the input order is taken
//	... log the input ...
//	tx.Ordered()         // the next input may now take its place
//	... run it ...
//	tx.End()
//
// The order of inputs is a lock taken before the state lock and released
// once the input is logged, so that the log's order is the order in which
// inputs took the state: a recording replays to the same state.
//
// A transaction also gives what every line uses (services.go): the clock
// (tx.Now) and its outcome timers (tx.InFlight, tx.Settled), seeded ids (tx.NewUUID, tx.NextSeq), the ledger (tx.Transfer,
// and the account names), events (tx.Emit) and the asset catalogue
// (tx.Amount, tx.AssetScale). A line declares in its own Host only what it
// needs of other lines.
package kernel

import "sync"

// Kernel is the lock and the input order of one simulator. The zero value
// is ready to use; it must not be copied after first use.
type Kernel struct {
	inputs sync.Mutex // the order of inputs; taken before mu
	mu     sync.Mutex // the state lock
	svc    Services   // the clock, ids, ledger, events and catalogue (services.go)
	// tables are the registered tables and cells (table.go), names their
	// names; st is the undo log and the steps in progress (step.go),
	// guarded by mu.
	tables []Handle
	names  map[string]bool
	st     steps
	// capMu is held from BeginCapture until the capture is released
	// (capture.go) and its overlays folded (fold.go): one capture at a
	// time.
	capMu sync.Mutex
	// foldBatch is the number of rows a release folds per hold of the
	// state lock (0: defaultFoldBatch); foldPause, when set, runs between
	// two batches, without the lock. Both are for the tests.
	foldBatch int
	foldPause func()
}

// Tx is a transaction: the state lock is held from Begin or BeginInput
// until End or Suspend. A transition takes a *Tx as its first argument.
type Tx struct {
	k       *Kernel
	ordered bool // the input order is still held
	done    bool // ended or suspended
	setup   bool // builds state outside any input (BeginSetup)
	// cap, when set, is the capture this transaction reads (Capture.Read):
	// it holds the capture's lock, not the state lock, and writes nothing.
	cap *Capture
	// slot: begun with BeginCapture, no capture taken yet (End frees the
	// place); release: End releases the capture (Capture.ReadOnce).
	slot, release bool
}

// Begin takes the state lock.
func (k *Kernel) Begin() *Tx {
	k.mu.Lock()
	return &Tx{k: k}
}

// BeginSetup takes the state lock for a transaction that builds state
// outside any input: the fixture New makes, a state read back (ReadState). Its
// writes need no step.
func (k *Kernel) BeginSetup() *Tx {
	k.mu.Lock()
	return &Tx{k: k, setup: true}
}

// BeginInput takes the input order, then the state lock. Ordered releases
// the input order once the input is logged.
func (k *Kernel) BeginInput() *Tx {
	k.inputs.Lock()
	k.mu.Lock()
	return &Tx{k: k, ordered: true}
}

// BeginOrdered takes the input order and nothing else: for the stores of
// the input log, which must see inputs in order without holding the state.
// The returned func releases it.
func (k *Kernel) BeginOrdered() (release func()) {
	k.inputs.Lock()
	return k.inputs.Unlock
}

// Ordered releases the input order of a transaction begun with
// BeginInput; the state lock stays held. It is a no-op when the input
// order is not held.
func (tx *Tx) Ordered() {
	tx.check()
	if tx.ordered {
		tx.ordered = false
		tx.k.inputs.Unlock()
	}
}

// End releases the state lock (and the input order, if still held). The
// Tx must not be used after.
func (tx *Tx) End() {
	tx.check()
	if tx.cap != nil {
		tx.done = true
		tx.cap.mu.Unlock()
		if tx.release {
			tx.cap.Release()
		}
		return
	}
	if len(tx.k.st.frames) > 0 {
		panic("kernel: End inside a step")
	}
	tx.done = true
	if tx.ordered {
		tx.ordered = false
		tx.k.inputs.Unlock()
	}
	tx.k.mu.Unlock()
	if tx.slot {
		tx.slot = false
		tx.k.capMu.Unlock()
	}
}

// Release ends the transaction if it is still live, and does nothing
// otherwise: deferred by an entry point, so that a panic that unwinds it
// does not leave the state lock held.
func (tx *Tx) Release() {
	if tx == nil || tx.k == nil || tx.done {
		return
	}
	tx.End()
}

// Suspend releases the state lock while the caller waits (a delay fault
// holds a request without holding the state); Resume takes it back, as a
// new input in the input order.
func (tx *Tx) Suspend() {
	tx.check()
	tx.mustLock("Suspend")
	if tx.ordered {
		panic("kernel: Suspend while the input order is held")
	}
	if len(tx.k.st.frames) > 0 {
		panic("kernel: Suspend inside a step")
	}
	tx.done = true
	tx.k.mu.Unlock()
}

// Resume takes the input order and the state lock again for a suspended
// transaction.
func (tx *Tx) Resume() {
	if tx == nil || tx.k == nil || !tx.done {
		panic("kernel: Resume of a transaction that is not suspended")
	}
	tx.k.inputs.Lock()
	tx.k.mu.Lock()
	tx.done, tx.ordered = false, true
}

// check panics when the Tx is not a live transaction of a kernel: a zero
// Tx, or one used after End.
func (tx *Tx) check() {
	if tx == nil || tx.k == nil {
		panic("kernel: a Tx not made by Begin or BeginInput")
	}
	if tx.done {
		panic("kernel: a Tx used after End or Suspend")
	}
}

// mustLock panics when tx reads a capture: what op does needs the state
// lock.
func (tx *Tx) mustLock(op string) {
	if tx.cap != nil {
		panic("kernel: " + op + " in a transaction that reads a capture")
	}
}

// Live panics unless tx is a live transaction; transitions that want the
// proof checked at run time (tests, the invariants) call it.
func (tx *Tx) Live() { tx.check() }
