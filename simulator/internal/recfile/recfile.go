// Package recfile is the wire format of the simulator's input log: the
// logged input (Input) and its JSON form, one line of a recording file or
// one record of a data directory's log; the header that opens both
// (Header); and the compact binary form the in-memory recording keeps
// (MemLog). It knows what an input holds, not what it does: the simulator
// logs inputs and replays them.
package recfile

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"
)

// Input kinds of the log (Input.Op).
const (
	OpHTTP       = "http"
	OpResume     = "resume"
	OpCall       = "call"
	OpAdvance    = "advance"
	OpFlushDue   = "flush_due"
	OpAttempt    = "attempt"
	OpFlushAbort = "flush_abort"
	OpBase       = "base_url" // the simulator's address changed
	OpCaps       = "caps"     // the caps of the window stores changed
	OpEnd        = "end"      // the last line of an exported recording: the clock then
)

// Format and Version head every recording and data directory log.
const (
	Format  = "mwallet-sim-recording"
	Version = 2
)

// Caps are the caps of the simulator's window stores (nonces, idempotency
// keys, step-up challenges) as a log carries them.
type Caps struct {
	Nonces           int `json:"nonces"`
	IdempotencyKeys  int `json:"idempotency_keys"`
	StepUpChallenges int `json:"step_up_challenges"`
}

// Input is one input of the log. Only the fields of its op are set.
type Input struct {
	Seq   int64     `json:"seq"`
	Clock time.Time `json:"clock"`
	Op    string    `json:"op"`

	// http: the request as received.
	Method  string      `json:"method,omitempty"`
	Target  string      `json:"target,omitempty"` // the request target (path and query) as sent
	Proto   string      `json:"proto,omitempty"`
	Host    string      `json:"host,omitempty"`
	Remote  string      `json:"remote,omitempty"` // the peer's address (the IP allowlist reads it)
	TLS     bool        `json:"tls,omitempty"`
	Header  http.Header `json:"header,omitempty"`
	Body    []byte      `json:"-"` // the bytes read, at most one more than a handler accepts
	BodyErr bool        `json:"body_error,omitempty"`
	// Draws are the request's random choices: one per fault with one_in
	// that matched it, in order, true when the fault was taken.
	Draws []bool `json:"draws,omitempty"`

	// resume: the seq of the http input that waited.
	Of int64 `json:"of,omitempty"`

	// call: "Cards.Ship" (field and method) or "Action" (a method of
	// *Simulator), with the arguments as JSON.
	Call string            `json:"call,omitempty"`
	Args []json.RawMessage `json:"args,omitempty"`
	// Route is the control route a call entered through ("POST
	// /_sim/faults"), empty for a call of the Go method: the timers due at
	// the end of a call entered over HTTP run in the same input, as every
	// control write over HTTP runs them.
	Route string `json:"route,omitempty"`
	// Rules is the version of the rules an input ran under (inputlog's
	// AllOrNothingRules and ControlRules, startup's SweepRules; none, 0,
	// for the inputs of earlier builds). A replay runs an input under the rules it ran under.
	Rules int `json:"rules,omitempty"`

	// advance: the clock reading reached.
	To time.Time `json:"to,omitzero"`

	// attempt: one delivery attempt and the receiver's answer.
	Delivery   string    `json:"delivery,omitempty"`
	At         time.Time `json:"at,omitzero"`
	StatusCode int       `json:"status_code,omitempty"`
	Response   string    `json:"response,omitempty"` // the beginning of the receiver's answer
	Error      string    `json:"error,omitempty"`

	// flush_abort: the deliveries a cancelled flush did not attempt.
	Deliveries []string `json:"deliveries,omitempty"`

	// base_url: the address the simulator serves at, from this input on.
	URL string `json:"url,omitempty"`

	// caps: the caps of the window stores from this input on.
	Caps *Caps `json:"caps,omitempty"`

	// end (the last line of a recording file): the state digest then.
	Digest string `json:"digest,omitempty"`
}

// inputJSON adds the body, as text when it is UTF-8 and in base64
// otherwise.
type inputJSON struct {
	inputAlias
	BodyText   *string `json:"body,omitempty"`
	BodyBase64 []byte  `json:"body_base64,omitempty"`
}

type inputAlias Input

// MarshalJSON writes the input as one JSON object.
func (in *Input) MarshalJSON() ([]byte, error) {
	j := inputJSON{inputAlias: inputAlias(*in)}
	if len(in.Body) > 0 {
		if utf8.Valid(in.Body) {
			t := string(in.Body)
			j.BodyText = &t
		} else {
			j.BodyBase64 = in.Body
		}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (in *Input) UnmarshalJSON(b []byte) error {
	var j inputJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*in = Input(j.inputAlias)
	switch {
	case j.BodyText != nil:
		in.Body = []byte(*j.BodyText)
	case j.BodyBase64 != nil:
		in.Body = j.BodyBase64
	}
	return nil
}

// Header is the first line of a recording and the first record of a data
// directory's log: the format, its version and the configuration C the
// simulator was built with.
type Header[C any] struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Config  C      `json:"config"`
}

// Check reports whether h heads a recording this build reads: the format,
// and a version from 1 to Version.
func (h Header[C]) Check() error {
	if h.Format != Format {
		return fmt.Errorf("simulator: not a recording (format %q, want %q)", h.Format, Format)
	}
	if h.Version < 1 || h.Version > Version {
		return fmt.Errorf("simulator: recording version %d: this simulator reads versions 1 to %d", h.Version, Version)
	}
	return nil
}
