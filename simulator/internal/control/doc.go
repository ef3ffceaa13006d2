// Package control is the engine of the simulator's control plane (the
// /_sim routes and the Go control methods that mirror them): the guard of
// its routes, the declaration of its operations (one row per operation:
// route, object action, Go method, input type, transition, answer), the
// domains of their arguments and the checking of every argument against its
// domain before a transition writes anything (the standard domains among
// them), the decoding of an input from a request's path, query and body,
// the run of one operation (check, transition in a kernel step, timers
// due, answer) over a Host the declaring package fills, and the handler of
// a route (guard, body, the write logged as an input, the answer written)
// over its HTTPHost (both given by Runner, exec.go, over the simulator's
// kernel, input log, recorder and timers), and a recorded call's Go
// method found by its name (method.go). It declares too the ops on the
// gateway that belong to no line (gateway_ops.go: the request journal, a
// request played as in progress, the fault table), over the declaring package's public types,
// and the ops of the simulator as a whole (core_ops.go: the router's
// not_found answer, the credentials, the views of the state, the
// documents, the dashboard's files).
//
// It knows nothing of the simulator's state: an operation runs on a value of
// the type parameter X (the simulator's run of one operation), which the
// declaring package fills. It imports only the kernel, the API's wire
// types and the gateway's answer (the routes' HTTP side, serve.go), so a
// product line may declare its own operations.
package control
