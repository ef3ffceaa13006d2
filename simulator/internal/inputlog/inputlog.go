// Package inputlog holds the pieces of the simulator's input log that need
// nothing of the simulator: the recorder that numbers each input and keeps
// the log in memory or in a data directory's store (Recorder, generic over
// the configuration the simulator was built with), what is kept of a
// request body as a handler reads it (Body), the request ids of control
// answers (ControlIDs), the refusals of an input the data directory could
// not take or make durable (NotPersisted, NotDurable, CallError), and the
// dashboard's view of a logged input (Summarize, RedactInput, RedactJSON).
// The simulator logs and replays the inputs; this package is handed them.
package inputlog
