package inputlog

import "io"

// Body keeps what a handler reads of a request body, up to a bound, so
// that the request can be logged with it. The simulator's capture wraps
// the request's body and passes each read through Read.
type Body struct {
	buf  []byte
	pos  int  // read position in buf once filled (ReadAhead)
	fill bool // buf holds what was read ahead; Read serves it first
	eof  bool // the source reached its end
	err  bool // the source failed (a read error other than EOF)
}

// Read reads from src into p, keeping what it reads up to max bytes in
// all; after ReadAhead it serves what was read ahead first.
func (b *Body) Read(src io.Reader, p []byte, max int) (int, error) {
	if b.fill && b.pos < len(b.buf) {
		n := copy(p, b.buf[b.pos:])
		b.pos += n
		return n, nil
	}
	if b.eof {
		return 0, io.EOF
	}
	n, err := src.Read(p)
	if n > 0 && !b.fill && len(b.buf) < max {
		b.buf = append(b.buf, p[:min(n, max-len(b.buf))]...)
	}
	switch {
	case err == io.EOF:
		b.eof = true
	case err != nil:
		b.err = true
	}
	return n, err
}

// ReadAhead reads from src what the handler has not read yet (up to max
// bytes in all), so that Bytes holds the whole body; the handler still
// reads it (Read) from the start of what it had not read.
func (b *Body) ReadAhead(src io.Reader, max int) {
	if b.eof || b.err || b.fill || len(b.buf) >= max {
		return
	}
	start := len(b.buf)
	var tmp [4096]byte
	for len(b.buf) < max {
		n, err := src.Read(tmp[:min(len(tmp), max-len(b.buf))])
		b.buf = append(b.buf, tmp[:n]...)
		if err == io.EOF {
			b.eof = true
			break
		}
		if err != nil {
			b.err = true
			break
		}
	}
	b.fill, b.pos = true, start
}

// Bytes returns what was kept of the body.
func (b *Body) Bytes() []byte { return b.buf }

// Failed reports whether reading the source failed (an error other than
// EOF).
func (b *Body) Failed() bool { return b.err }
