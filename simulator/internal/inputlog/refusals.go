package inputlog

import "github.com/mwallet/mwallet-go/simulator/internal/api"

// NotPersisted is the refusal of an input the data directory could not
// take (err): nothing was executed. It is transient: retry in 5 seconds.
func NotPersisted(err error) *api.Error {
	return unavailable("the simulator could not record the request in its data directory; nothing was executed: retry later (" + err.Error() + ")")
}

// NotDurable is the answer of a request that ran but whose log record did
// not reach stable storage (err): it may not survive a restart, and the
// simulator refuses writes until it restarts.
func NotDurable(err error) *api.Error {
	return unavailable("the simulator could not make the request durable in its data directory and refuses writes until it restarts; resend with the same idempotency key once it has (" + err.Error() + ")")
}

func unavailable(msg string) *api.Error {
	ae := api.NewErr("service_unavailable", msg)
	ae.Header = map[string]string{"Retry-After": "5"}
	ae.Transient = true
	return ae
}

// CallError is a Go control call the data directory could not take (Ran
// false: nothing was executed) or could not make durable (Ran true). Over
// HTTP it is service_unavailable, as for every other input (Answer).
type CallError struct {
	// Call is the call's name ("Cards.Ship").
	Call string
	// Ran is set when the call ran but is not durable.
	Ran bool
	// Err is the data directory's error.
	Err error
}

func (e *CallError) Error() string {
	if e.Ran {
		return "simulator: " + e.Call + " ran but is not durable: " + e.Err.Error()
	}
	return "simulator: " + e.Call + " not executed: " + e.Err.Error()
}

func (e *CallError) Unwrap() error { return e.Err }

// Answer is the HTTP refusal of the call.
func (e *CallError) Answer() *api.Error {
	if e.Ran {
		return NotDurable(e.Err)
	}
	return NotPersisted(e.Err)
}
