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
