package simulator

// What the input log keeps of a request body (record.go); the keeping is
// internal/inputlog's Body.

import (
	"io"
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/inputlog"
)

// captureBody keeps what a handler reads of a request body, so that the
// request can be logged with it. ServeHTTP puts one on every request.
type captureBody struct {
	src  io.ReadCloser
	body inputlog.Body // what was read of src, up to maxCapture

	replay *replayHooks // set on the requests of a replay
	in     *recordedInput
}

// maxCapture is what is kept of a body: one byte more than any handler
// accepts, so an oversized body is refused on replay as it was live.
const maxCapture = maxBodyBytes + 1

func (c *captureBody) Read(p []byte) (int, error) { return c.body.Read(c.src, p, maxCapture) }

func (c *captureBody) Close() error { return c.src.Close() }

// captureOf returns the capture ServeHTTP put on r, if any.
func captureOf(r *http.Request) *captureBody {
	c, _ := r.Body.(*captureBody)
	return c
}
