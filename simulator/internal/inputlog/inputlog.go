// Package inputlog holds the simulator's input log: where each input
// enters the log in its place of the kernel's input order, the log read
// back and the data directory closed (Log, over the Host the simulator
// fills with its clock, request bodies, fault draws and state image), and
// the pieces that need nothing of the simulator: the recorder that numbers each input and keeps
// the log in memory or in a data directory's store (Recorder, generic over
// the configuration the simulator was built with), what is kept of a
// request body as a handler reads it (Body), the request ids of control
// answers (ControlIDs), the refusals of an input the data directory could
// not take or make durable (NotPersisted, NotDurable, CallError), and the
// dashboard's view of a logged input (Summarize, RedactInput, RedactJSON).
// A replay's target is the log too (Log.Target: internal/replay's Target,
// driving the simulator through the Driver it fills).
package inputlog

// The input log. Everything that can change a simulator's state is one
// input, logged in the order it ran, before it runs (write-ahead), so that
// running the same inputs in the same order on a simulator built with the
// same configuration reaches the same state: same ids (the generators are
// seeded), same clock (every input carries the clock reading it ran at),
// same random choices (fault draws come from the seeded generators, in the
// same order), same webhook outcomes (attempts are logged with the
// receiver's answer and never repeated by a replay).
//
// The inputs, by where they enter (each point every input of its kind passes
// through, so routes and methods added later are logged without more work):
//
//   - http: a business request (every /v1 path, known or not), logged by the
//     exchange when it takes the state lock (internal/exchange's
//     Pipeline.Begin); a control request that is not a GET or HEAD and
//     no call, logged by the control runner. Control reads change
//     nothing and are not logged (their request ids come from a generator
//     of their own, the recorder's ControlID).
//   - resume: a request that waited in a delay fault (with the state lock
//     released, so other inputs ran meanwhile) taking the lock again; the
//     log keeps the interleaving.
//   - call: a method of the Go control API, or a control route logged as
//     the call of its Go method (the control runner: Log.GoCall,
//     Log.RouteCall).
//   - advance: a clock advance that runs timers (the simulator's
//     Clock.Advance, the standalone server's wall clock: Log.Advance). An advance that runs nothing is not
//     logged: the next input's clock reading carries it.
//   - flush_due, attempt, flush_abort: a webhook flush, in the pieces that
//     take the state lock: picking the due deliveries, the receiver's answer
//     to one attempt, giving up on the rest when the flush is cancelled.
//
// Ordering: every input that changes state begins with the kernel's
// BeginInput (the input order, then the state lock) and is logged before
// the order is released (Tx.Ordered); reads begin with Begin (the state
// lock only). The log order is therefore the order in which inputs took
// the state lock, even for a Go call (which holds the input order for its
// whole run, the kernel's BeginOrdered, so that nothing that changes state runs between
// its log record and its execution).
