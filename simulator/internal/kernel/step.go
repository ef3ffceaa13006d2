package kernel

import (
	"errors"
	"fmt"
	"strings"
)

// Steps: every input is all or nothing.
//
// The state of a simulator lives in the kernel's tables (Table, Cell),
// and a write to a table is recorded in an undo log. A step is one
// all-or-nothing piece of an input: a business request's handler, a
// control transition, a timer falling due.
//
//	err := tx.Step("POST /v1/deposits", func() error {
//		... read, check, write tables ...
//		return api.NotFound("member") // a refusal: every write above is undone
//	})
//
// When the function of a step returns an error, or panics, every write it
// made is undone, so the state is what it was when the step began: every
// table, the id generators, the creation sequence, the random sources, the
// ledger, the events and the outcome timers (they are tables too). Hooks
// registered with OnCommit are dropped. An error wrapped with Executed is
// not a refusal: the step executed and answers an error (an upstream
// timeout after the hold), and its writes stand.
//
// What a refusal leaves is said where it is written: the writes made inside
// Tx.Keep survive the refusal of every step around them (a step-up
// challenge issued by a step_up_required answer, the attempt a rate window
// counts). Everything the pipeline records about an input outside its step
// (the request journal, consumed nonces, idempotency records, request ids,
// fault draws) is written before or after the step, in tables of class
// Record, and is not undone.
//
// Steps nest: a step inside a step is undone alone when it is refused, and
// with its parent when the parent is. A table of class State is written
// only inside a step (or in a setup transaction, BeginSetup); in verify
// mode a write outside one panics, so a route that forgets its step fails
// its first test.
//
// Verify mode (SetVerify) is the kernel's proof of the above: each step
// keeps, when it begins, the checksum of every table and the image of the
// state held outside the tables (SetOutside); when it is refused, the
// kernel undoes its writes and compares both before doing the kept writes
// again. A difference is a *VerifyError naming the step: a write the undo
// log did not see.
//
// An input of a recording made before steps existed is replayed as it ran:
// the rule SetUndo gives says, when an outermost step begins, whether a
// refusal undoes its writes; when it does not, a refused step's writes
// stand, as every step's do when it commits.

// Executed marks err as the error answer of a step that executed: its
// writes stand. errors.Is and errors.As see through it.
func Executed(err error) error {
	if err == nil {
		return nil
	}
	return &executedError{err: err}
}

type executedError struct{ err error }

func (e *executedError) Error() string { return e.err.Error() }
func (e *executedError) Unwrap() error { return e.err }

// Refused reports whether err refuses a step: any error not marked
// Executed.
func Refused(err error) bool {
	var ex *executedError
	return err != nil && !errors.As(err, &ex)
}

// VerifyError is a refused step that left the state changed: the kernel's
// verify mode found a write its undo log did not see. It names the step
// and the tables (or the state outside the tables) that differ.
type VerifyError struct {
	Step   string   // the step's name: the input it ran for
	Cause  string   // why the step was refused
	Tables []string // the tables whose rows differ
	// Outside reports that the state held outside the tables differs;
	// OutsideDiff is its first line that differs, before and after.
	Outside     bool
	OutsideDiff string
}

func (e *VerifyError) Error() string {
	var parts []string
	parts = append(parts, e.Tables...)
	if e.Outside {
		parts = append(parts, "the state outside the tables ("+e.OutsideDiff+")")
	}
	return fmt.Sprintf("kernel: the refused step %q (%s) changed %s", e.Step, e.Cause, strings.Join(parts, ", "))
}

// frame is one step in progress.
type frame struct {
	name  string
	mark  int // len(log) when the step began
	hooks int // len(hooks) when the step began
	// check is what verify mode compares after a refusal.
	check *checkpoint
	// keepAll is set when the input runs under rules without undo
	// (SetUndo): a refusal commits.
	keepAll bool
}

// checkpoint is the state when a step began, as verify mode compares it.
type checkpoint struct {
	sums    []sum
	outside []byte
}

// logEntry is one write of the undo log: entry i of table u's own log.
type logEntry struct {
	u    undoer
	i    int
	keep bool
}

// undoer is a table as the undo log sees it.
type undoer interface {
	// undoWrite restores the write of entry i, the last of the table's log,
	// and drops it.
	undoWrite(i int)
	// redo returns the write of entry i, to do again after an undo (a kept
	// write).
	redo(i int) func(tx *Tx)
	// clearLog forgets the table's log: the outermost step committed.
	clearLog()
}

// steps is the kernel's step state, guarded by the state lock.
type steps struct {
	log     []logEntry
	frames  []frame
	hooks   []func()
	keep    int
	touched []undoer
	// verify mode: see SetVerify.
	verify     bool
	outside    func() []byte
	violations []string
	// undo is the rule of the input running (SetUndo); nil: always.
	undo func() bool
}

// inStep reports whether a write is inside a step (or a kept write being
// done again).
func (s *steps) inStep() bool { return len(s.frames) > 0 || s.keep > 0 }

// record appends a write to the undo log, when a step is open; it returns
// whether the table must keep the entry.
func (k *Kernel) record(u undoer, i int, first bool) bool {
	s := &k.st
	if len(s.frames) == 0 {
		return false
	}
	if first {
		s.touched = append(s.touched, u)
	}
	s.log = append(s.log, logEntry{u: u, i: i, keep: s.keep > 0})
	return true
}

// SetVerify turns verify mode on or off (before the first transaction).
func (k *Kernel) SetVerify(on bool) { k.st.verify = on }

// SetUndo gives the rule of the input running, asked when an outermost
// step begins: whether a refused step's writes are undone (true) or stand
// (an input replayed from a recording made before steps, which ran so).
// Without a rule they are always undone.
func (k *Kernel) SetUndo(undo func() bool) { k.st.undo = undo }

// Verifying reports whether verify mode is on.
func (k *Kernel) Verifying() bool { return k.st.verify }

// SetOutside gives verify mode the image of the state held outside the
// kernel's tables: a refused step must leave it as it was.
func (k *Kernel) SetOutside(image func() []byte) { k.st.outside = image }

// Violations are the refused steps verify mode found changing the state,
// oldest first (each also panicked where it happened).
func (k *Kernel) Violations(tx *Tx) []string {
	tx.check()
	tx.mustLock("Violations")
	return append([]string(nil), k.st.violations...)
}

// Step runs f as one all-or-nothing step named name (the input it runs
// for, as a verify failure names it). When f returns an error that
// Refused reports, or panics, every write f made is undone (but the kept
// ones, Keep) and its OnCommit hooks are dropped; the error is returned
// (the panic goes on). Steps nest.
func (tx *Tx) Step(name string, f func() error) (err error) {
	tx.check()
	tx.mustLock("Step")
	k := tx.k
	s := &k.st
	fr := frame{name: name, mark: len(s.log), hooks: len(s.hooks)}
	switch {
	case len(s.frames) > 0:
		fr.keepAll = s.frames[len(s.frames)-1].keepAll
	case s.undo != nil:
		fr.keepAll = !s.undo()
	}
	if s.verify && !fr.keepAll {
		fr.check = k.checkpoint()
	}
	s.frames = append(s.frames, fr)
	depth := len(s.frames)
	done := false
	defer func() {
		if done {
			return
		}
		p := recover()
		if len(s.frames) == depth {
			if fr.keepAll {
				k.commit()
			} else {
				// A verify failure below is reported once, where it
				// happened.
				_, failed := p.(*VerifyError)
				k.rollback(tx, fmt.Sprintf("panic: %v", p), !failed)
			}
		}
		panic(p)
	}()
	err = f()
	done = true
	if len(s.frames) != depth {
		panic("kernel: a step ended inside a step it began")
	}
	if Refused(err) && !fr.keepAll {
		k.rollback(tx, err.Error(), true)
		return err
	}
	k.commit()
	return err
}

// Keep runs f; the writes f makes survive the refusal of every step
// around it. Keep is for what the contract says a refusal leaves: a
// step-up challenge issued with step_up_required, an attempt counted by a
// rate window.
func (tx *Tx) Keep(f func()) {
	tx.check()
	tx.mustLock("Keep")
	tx.k.st.keep++
	defer func() { tx.k.st.keep-- }()
	f()
}

// OnCommit runs f when the outermost step around it commits, after its
// writes are final, still in the transaction; a refused step drops it.
// Outside a step f runs at once. It is for effects outside the state (a
// background webhook flush) that must follow only what happened.
func (tx *Tx) OnCommit(f func()) {
	tx.check()
	tx.mustLock("OnCommit")
	s := &tx.k.st
	if len(s.frames) == 0 {
		f()
		return
	}
	s.hooks = append(s.hooks, f)
}

// InStep reports whether tx is inside a step.
func (tx *Tx) InStep() bool { tx.check(); return tx.cap == nil && len(tx.k.st.frames) > 0 }

// commit ends the innermost step, committed: its writes stay in the log of
// the step around it, or are final when it was the outermost.
func (k *Kernel) commit() {
	s := &k.st
	s.frames = s.frames[:len(s.frames)-1]
	if len(s.frames) > 0 {
		return
	}
	for _, u := range s.touched {
		u.clearLog()
	}
	clear(s.touched)
	s.touched = s.touched[:0]
	clear(s.log)
	if cap(s.log) > 1<<16 {
		s.log = nil
	} else {
		s.log = s.log[:0]
	}
	hooks := s.hooks
	s.hooks = nil
	for _, h := range hooks {
		h()
	}
}

// rollback ends the innermost step, refused: its writes are undone, newest
// first; in verify mode the state is compared with the step's checkpoint;
// then the kept writes are done again, oldest first (in the step around,
// if any, where they are kept again).
func (k *Kernel) rollback(tx *Tx, cause string, verify bool) {
	s := &k.st
	fr := s.frames[len(s.frames)-1]
	var redo []func(tx *Tx)
	for i := len(s.log) - 1; i >= fr.mark; i-- {
		e := s.log[i]
		if e.keep {
			redo = append(redo, e.u.redo(e.i))
		}
		e.u.undoWrite(e.i)
		s.log[i] = logEntry{}
	}
	s.log = s.log[:fr.mark]
	clear(s.hooks[fr.hooks:])
	s.hooks = s.hooks[:fr.hooks]
	s.frames = s.frames[:len(s.frames)-1]
	if len(s.frames) == 0 {
		for _, u := range s.touched {
			u.clearLog()
		}
		clear(s.touched)
		s.touched = s.touched[:0]
	}
	if fr.check != nil && verify {
		if verr := k.compare(fr, cause); verr != nil {
			s.violations = append(s.violations, verr.Error())
			panic(verr)
		}
	}
	s.keep++
	defer func() { s.keep-- }()
	for i := len(redo) - 1; i >= 0; i-- {
		redo[i](tx)
	}
}

// checkpoint is the state now, as verify mode compares it.
func (k *Kernel) checkpoint() *checkpoint {
	c := &checkpoint{sums: make([]sum, len(k.tables))}
	for i, t := range k.tables {
		c.sums[i] = t.checksum()
	}
	if k.st.outside != nil {
		c.outside = k.st.outside()
	}
	return c
}

// compare compares the state after the undo of a refused step with its
// checkpoint.
func (k *Kernel) compare(fr frame, cause string) *VerifyError {
	now := k.checkpoint()
	var ve VerifyError
	for i, t := range k.tables {
		if i < len(fr.check.sums) && now.sums[i] != fr.check.sums[i] {
			ve.Tables = append(ve.Tables, t.Name())
		}
	}
	if ve.Outside = string(now.outside) != string(fr.check.outside); ve.Outside {
		ve.OutsideDiff = firstDiff(string(fr.check.outside), string(now.outside))
	}
	if len(ve.Tables) == 0 && !ve.Outside {
		return nil
	}
	ve.Step, ve.Cause = fr.name, cause
	return &ve
}

// wrote checks a write of table m: a State table is written inside a step
// or in a setup transaction (verify mode panics otherwise).
func (tx *Tx) wrote(m *meta) {
	tx.check()
	if tx.cap != nil {
		panic("kernel: table " + m.name + " written in a transaction that reads a capture")
	}
	if m.k != tx.k {
		panic("kernel: table " + m.name + " written in a transaction of another kernel")
	}
	s := &tx.k.st
	if s.verify && m.class == State && !tx.setup && !s.inStep() {
		panic("kernel: table " + m.name + " written outside a step: wrap the transition in tx.Step")
	}
}

// firstDiff shows the first line that differs between two images.
func firstDiff(before, after string) string {
	b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
	for i := 0; i < len(b) || i < len(a); i++ {
		var x, y string
		if i < len(b) {
			x = b[i]
		}
		if i < len(a) {
			y = a[i]
		}
		if x != y {
			return fmt.Sprintf("was %q, is %q", x, y)
		}
	}
	return ""
}
