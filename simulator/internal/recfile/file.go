package recfile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// File is a recording file's content: its header line, its inputs and its
// end line (the clock and the state digest when it was taken).
type File[C any] struct {
	Header Header[C]
	Inputs []*Input
	End    time.Time
	Digest string
	// Ended is set when the end line was read (Read of a file cut short
	// with partial set leaves it unset).
	Ended bool
}

// Write writes f in the file format (JSON Lines: the header, one line per
// input, the end line) and returns the bytes written.
func Write[C any](w io.Writer, f *File[C]) (int64, error) {
	cw := &countWriter{w: bufio.NewWriterSize(w, 64<<10)}
	enc := json.NewEncoder(cw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f.Header); err != nil {
		return cw.n, err
	}
	for _, in := range f.Inputs {
		if err := enc.Encode(in); err != nil {
			return cw.n, err
		}
	}
	last := Input{Op: OpEnd, Clock: f.End, Digest: f.Digest}
	if n := len(f.Inputs); n > 0 {
		last.Seq = f.Inputs[n-1].Seq
	}
	if err := enc.Encode(&last); err != nil {
		return cw.n, err
	}
	return cw.n, cw.w.(*bufio.Writer).Flush()
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Read reads a recording file: its header (checked), its inputs (numbered
// from 1 without a gap) and its end line, which nothing may follow. With
// partial set, a last line cut short in the middle is dropped; a file
// without its end line reads either way, with Ended unset.
func Read[C any](rd io.Reader, partial bool) (*File[C], error) {
	br := bufio.NewReaderSize(rd, 64<<10)
	line, err := readLine(br)
	if err != nil {
		return nil, fmt.Errorf("simulator: recording: header: %w", err)
	}
	var f File[C]
	if err := json.Unmarshal(line, &f.Header); err != nil {
		return nil, fmt.Errorf("simulator: recording: header: %w", err)
	}
	if err := f.Header.Check(); err != nil {
		return nil, err
	}
	for n := 2; ; n++ {
		line, err := readLine(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("simulator: recording: line %d: %w", n, err)
		}
		if f.Ended {
			return nil, fmt.Errorf("simulator: recording: line %d follows the end line", n)
		}
		in := &Input{}
		if err := json.Unmarshal(line, in); err != nil {
			if _, perr := br.Peek(1); partial && perr == io.EOF {
				break // the last line, cut short
			}
			return nil, fmt.Errorf("simulator: recording: line %d: %w", n, err)
		}
		if in.Op == OpEnd {
			f.End, f.Digest, f.Ended = in.Clock, in.Digest, true
			continue
		}
		if want := int64(len(f.Inputs) + 1); in.Seq != want {
			return nil, fmt.Errorf("simulator: recording: line %d: seq %d, want %d", n, in.Seq, want)
		}
		f.Inputs = append(f.Inputs, in)
	}
	return &f, nil
}

// readLine returns the next non-empty line (without its end), or io.EOF.
func readLine(br *bufio.Reader) ([]byte, error) {
	for {
		line, err := br.ReadBytes('\n')
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			return line, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
