package simulator

// What the input log keeps of a request body (record.go).

import (
	"io"
	"net/http"
)

// captureBody keeps what a handler reads of a request body, so that the
// request can be logged with it. ServeHTTP puts one on every request.
type captureBody struct {
	src  io.ReadCloser
	buf  []byte
	pos  int  // read position in buf once filled (fill)
	fill bool // buf holds what was read ahead; Read serves it first
	eof  bool // src reached its end
	err  bool // src failed (a read error other than EOF)

	replay *replayHooks // set on the requests of a replay
	in     *recordedInput
}

// maxCapture is what is kept of a body: one byte more than any handler
// accepts, so an oversized body is refused on replay as it was live.
const maxCapture = maxBodyBytes + 1

func (c *captureBody) Read(p []byte) (int, error) {
	if c.fill && c.pos < len(c.buf) {
		n := copy(p, c.buf[c.pos:])
		c.pos += n
		return n, nil
	}
	if c.eof {
		return 0, io.EOF
	}
	n, err := c.src.Read(p)
	if n > 0 && !c.fill && len(c.buf) < maxCapture {
		c.buf = append(c.buf, p[:min(n, maxCapture-len(c.buf))]...)
	}
	switch {
	case err == io.EOF:
		c.eof = true
	case err != nil:
		c.err = true
	}
	return n, err
}

func (c *captureBody) Close() error { return c.src.Close() }

// readAhead reads what the handler has not read yet (up to maxCapture in
// all), so that the log holds the whole body; the handler still reads it
// from the start of what it had not read.
func (c *captureBody) readAhead() {
	if c.eof || c.err || c.fill || len(c.buf) >= maxCapture {
		return
	}
	start := len(c.buf)
	var tmp [4096]byte
	for len(c.buf) < maxCapture {
		n, err := c.src.Read(tmp[:min(len(tmp), maxCapture-len(c.buf))])
		c.buf = append(c.buf, tmp[:n]...)
		if err == io.EOF {
			c.eof = true
			break
		}
		if err != nil {
			c.err = true
			break
		}
	}
	c.fill, c.pos = true, start
}

// captureOf returns the capture ServeHTTP put on r, if any.
func captureOf(r *http.Request) *captureBody {
	c, _ := r.Body.(*captureBody)
	return c
}
