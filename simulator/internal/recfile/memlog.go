package recfile

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"net/http"
	"time"
)

// The in-memory recording keeps each input as a compact binary record in
// large byte chunks: nothing in it is a pointer the garbage collector has
// to scan, and nothing refers to the request it came from, so a long
// recording costs its bytes and little else. The simulator's Recording
// decodes it.

// memChunk is the size of the chunks the in-memory recording fills.
const memChunk = 1 << 20

// MemLog is the in-memory recording. Its zero value is empty and ready to
// use.
type MemLog struct {
	chunks [][]byte
	n      int   // inputs kept
	bytes  int64 // bytes kept
}

// Add appends the record of in, unless that takes the log past limit; it
// reports whether it did.
func (m *MemLog) Add(in *Input, limit int64) bool {
	var cur []byte
	if k := len(m.chunks); k > 0 {
		cur = m.chunks[k-1]
	}
	start := len(cur)
	if cur == nil || cap(cur)-len(cur) < 512+len(in.Body) {
		cur = make([]byte, 0, max(memChunk, 1024+len(in.Body)))
		start = 0
		m.chunks = append(m.chunks, cur)
	}
	// The record, then its length before it: written after, in place.
	cur = append(cur, 0, 0, 0, 0)
	cur = appendInput(cur, in)
	size := len(cur) - start - 4
	if m.bytes+int64(size) > limit {
		m.chunks[len(m.chunks)-1] = cur[:start]
		return false
	}
	binary.LittleEndian.PutUint32(cur[start:], uint32(size))
	m.chunks[len(m.chunks)-1] = cur
	m.n++
	m.bytes += int64(size)
	return true
}

// Inputs decodes the log.
func (m *MemLog) Inputs() ([]*Input, error) { return DecodeChunks(m.chunks, m.n) }

// View returns what DecodeChunks needs, to decode without the recorder's lock:
// the chunks are appended to, never changed within their length.
func (m *MemLog) View() ([][]byte, int) { return append([][]byte(nil), m.chunks...), m.n }

// DecodeChunks decodes the n inputs of chunks (as View returns them).
func DecodeChunks(chunks [][]byte, n int) ([]*Input, error) {
	out := make([]*Input, 0, n)
	for _, c := range chunks {
		for len(c) > 0 {
			size := int(binary.LittleEndian.Uint32(c))
			in, err := readInput(c[4 : 4+size])
			if err != nil {
				return nil, err
			}
			out = append(out, in)
			c = c[4+size:]
		}
	}
	return out, nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendVarint(b, t.Unix())
	return binary.AppendUvarint(b, uint64(t.Nanosecond()))
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendInput(b []byte, in *Input) []byte {
	b = binary.AppendVarint(b, in.Seq)
	b = appendTime(b, in.Clock)
	b = appendString(b, in.Op)
	b = appendString(b, in.Method)
	b = appendString(b, in.Target)
	b = appendString(b, in.Proto)
	b = appendString(b, in.Host)
	b = appendString(b, in.Remote)
	b = appendBool(b, in.TLS)
	b = binary.AppendUvarint(b, uint64(len(in.Header)))
	for k, vs := range in.Header {
		b = appendString(b, k)
		b = binary.AppendUvarint(b, uint64(len(vs)))
		for _, v := range vs {
			b = appendString(b, v)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(in.Body)))
	b = append(b, in.Body...)
	b = appendBool(b, in.BodyErr)
	b = binary.AppendUvarint(b, uint64(len(in.Draws)))
	for _, d := range in.Draws {
		b = appendBool(b, d)
	}
	b = binary.AppendVarint(b, in.Of)
	b = appendString(b, in.Call)
	b = binary.AppendUvarint(b, uint64(len(in.Args)))
	for _, a := range in.Args {
		b = appendString(b, string(a))
	}
	b = appendTime(b, in.To)
	b = appendString(b, in.Delivery)
	b = appendTime(b, in.At)
	b = binary.AppendVarint(b, int64(in.StatusCode))
	b = appendString(b, in.Response)
	b = appendString(b, in.Error)
	b = binary.AppendUvarint(b, uint64(len(in.Deliveries)))
	for _, d := range in.Deliveries {
		b = appendString(b, d)
	}
	b = appendString(b, in.URL)
	b = appendString(b, in.Route)
	b = binary.AppendVarint(b, int64(in.Rules))
	b = appendBool(b, in.Caps != nil)
	if in.Caps != nil {
		b = binary.AppendVarint(b, int64(in.Caps.Nonces))
		b = binary.AppendVarint(b, int64(in.Caps.IdempotencyKeys))
		b = binary.AppendVarint(b, int64(in.Caps.StepUpChallenges))
	}
	return b
}

// ErrBadRecord is the error of a record of the in-memory recording that
// does not decode.
var ErrBadRecord = errors.New("simulator: in-memory recording: bad record")

// recordReader reads what appendInput writes.
type recordReader struct {
	b   []byte
	err error
}

func (r *recordReader) uvarint() uint64 {
	x, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err, r.b = ErrBadRecord, nil
		return 0
	}
	r.b = r.b[n:]
	return x
}

func (r *recordReader) varint() int64 {
	x, n := binary.Varint(r.b)
	if n <= 0 {
		r.err, r.b = ErrBadRecord, nil
		return 0
	}
	r.b = r.b[n:]
	return x
}

func (r *recordReader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.err, r.b = ErrBadRecord, nil
		return nil
	}
	p := r.b[:n:n]
	r.b = r.b[n:]
	return p
}

func (r *recordReader) str() string { return string(r.bytes()) }

func (r *recordReader) bool() bool {
	if len(r.b) == 0 {
		r.err = ErrBadRecord
		return false
	}
	v := r.b[0] == 1
	r.b = r.b[1:]
	return v
}

func (r *recordReader) time() time.Time {
	if !r.bool() {
		return time.Time{}
	}
	sec := r.varint()
	return time.Unix(sec, int64(r.uvarint())).UTC()
}

func readInput(b []byte) (*Input, error) {
	r := &recordReader{b: b}
	in := &Input{Seq: r.varint(), Clock: r.time(), Op: r.str(), Method: r.str(), Target: r.str(),
		Proto: r.str(), Host: r.str(), Remote: r.str(), TLS: r.bool()}
	if n := r.uvarint(); n > 0 && n <= uint64(len(b)) {
		in.Header = make(http.Header, n)
		for range n {
			k := r.str()
			vn := r.uvarint()
			if vn > uint64(len(b)) {
				return nil, ErrBadRecord
			}
			vs := make([]string, 0, vn)
			for range vn {
				vs = append(vs, r.str())
			}
			in.Header[k] = vs
		}
	}
	if body := r.bytes(); len(body) > 0 {
		in.Body = append([]byte(nil), body...)
	}
	in.BodyErr = r.bool()
	if n := r.uvarint(); n > 0 && n <= uint64(len(b)) {
		for range n {
			in.Draws = append(in.Draws, r.bool())
		}
	}
	in.Of = r.varint()
	in.Call = r.str()
	if n := r.uvarint(); n > 0 && n <= uint64(len(b)) {
		for range n {
			in.Args = append(in.Args, json.RawMessage(r.str()))
		}
	}
	in.To = r.time()
	in.Delivery = r.str()
	in.At = r.time()
	in.StatusCode = int(r.varint())
	in.Response = r.str()
	in.Error = r.str()
	if n := r.uvarint(); n > 0 && n <= uint64(len(b)) {
		for range n {
			in.Deliveries = append(in.Deliveries, r.str())
		}
	}
	in.URL = r.str()
	in.Route = r.str()
	in.Rules = int(r.varint())
	if r.bool() {
		in.Caps = &Caps{Nonces: int(r.varint()), IdempotencyKeys: int(r.varint()), StepUpChallenges: int(r.varint())}
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, ErrBadRecord
	}
	return in, nil
}
