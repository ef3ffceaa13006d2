package inputlog

import (
	"io"
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/exchange"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
	"github.com/mwallet/mwallet-go/simulator/internal/replay"
)

// MaxCapture is what is kept of a request body: one byte more than any
// handler accepts (exchange.MaxBodyBytes), so an oversized body is refused
// on replay as it was live.
const MaxCapture = exchange.MaxBodyBytes + 1

// Capture is a request's body as the input log keeps it: it keeps what a
// handler reads (Body), so that the request can be logged with it, and
// carries the replay's hooks of a replayed request. The simulator's
// ServeHTTP puts one on every request (CaptureBody), a replay on each
// request it serves (ReplayBody).
type Capture struct {
	src  io.ReadCloser
	body Body // what was read of src, up to MaxCapture

	replay *replay.Hooks // set on the requests of a replay
}

// CaptureBody puts a Capture on r, unless it has one.
func CaptureBody(r *http.Request) {
	if _, ok := r.Body.(*Capture); !ok {
		src := r.Body
		if src == nil {
			src = http.NoBody
		}
		r.Body = &Capture{src: src}
	}
}

// ReplayBody puts on req a Capture of body with the replay's hooks h.
func ReplayBody(req *http.Request, body io.ReadCloser, h *replay.Hooks) {
	req.Body = &Capture{src: body, replay: h}
}

// Read reads the body through Body.Read.
func (c *Capture) Read(p []byte) (int, error) { return c.body.Read(c.src, p, MaxCapture) }

// Close closes the body.
func (c *Capture) Close() error { return c.src.Close() }

// CaptureOf returns the Capture put on r, if any.
func CaptureOf(r *http.Request) *Capture {
	c, _ := r.Body.(*Capture)
	return c
}

// KeepBody reads ahead what the handler has not read of r's body and
// keeps it in in, with the draws a replayed request made.
func KeepBody(r *http.Request, in *recfile.Input) {
	if c := CaptureOf(r); c != nil {
		c.body.ReadAhead(c.src, MaxCapture)
		in.Body, in.BodyErr = c.body.Bytes(), c.body.Failed()
		if c.replay != nil && c.replay.Want != nil {
			in.Draws = c.replay.Want.Draws
		}
	}
}

// Replayed reports whether r is a request of a replay and, if it is, the
// draws its recorded input made and the hook it parks with in a delay.
func Replayed(r *http.Request) (draws []bool, park func(), ok bool) {
	c := CaptureOf(r)
	if c == nil || c.replay == nil {
		return nil, nil, false
	}
	if c.replay.Want != nil {
		draws = c.replay.Want.Draws
	}
	return draws, c.replay.Park, true
}
