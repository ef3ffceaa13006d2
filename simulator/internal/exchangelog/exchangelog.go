// Package exchangelog writes the simulator's exchange log: each HTTP
// exchange a simulator serves and each webhook delivery it sends, as one
// JSON line appended to a file of the log's directory (one file per
// process). The line's form is the simulator's public Exchange type: the
// simulator hands this package the function that encodes an Entry as that
// type, so the file's format has one definition.
package exchangelog

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// MaxBody bounds the body bytes kept per request or response; longer
// bodies are cut and marked truncated.
const MaxBody = 1 << 20

// Entry is one exchange as logged; the simulator encodes it as its public
// Exchange type (the fields have the same meaning).
type Entry struct {
	Kind     string // "serve" or "webhook"
	Instance int64  // the logging handler within its process
	Seq      int64  // the exchanges of that instance, from 1
	Time     time.Time
	Request  Message
	Response *Message // nil when the exchange ended without a response
	Dropped  bool
	Fault    string // the kind of the injected fault applied, if any
}

// Message is a request or a response of an Entry.
type Message struct {
	Method     string
	Target     string
	Status     int
	Header     http.Header
	Body       string // the body when it is valid UTF-8
	BodyBase64 []byte // the body otherwise
	Truncated  bool
}

// Encode turns an entry into its line (without the newline).
type Encode func(*Entry) ([]byte, error)

// sink is one log file of this process.
type sink struct {
	mu     sync.Mutex
	w      *bufio.Writer
	encode Encode
}

// sinks holds the process's log files by directory, opened on first use
// and kept open until the process exits (each line is flushed).
var sinks struct {
	mu        sync.Mutex
	byDir     map[string]*sink
	instances atomic.Int64
}

// open returns the log file of dir, creating dir (0700) and the file
// (0600) on first use.
func open(dir string, encode Encode) (*sink, error) {
	sinks.mu.Lock()
	defer sinks.mu.Unlock()
	if sk := sinks.byDir[dir]; sk != nil {
		return sk, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	name := filepath.Join(dir, fmt.Sprintf("exchanges-%d.ndjson", os.Getpid()))
	f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	sk := &sink{w: bufio.NewWriterSize(f, 1<<16), encode: encode}
	if sinks.byDir == nil {
		sinks.byDir = map[string]*sink{}
	}
	sinks.byDir[dir] = sk
	return sk, nil
}

// write appends one line and flushes it, so a test binary that exits
// without closing anything loses nothing.
func (sk *sink) write(x *Entry) {
	b, err := sk.encode(x)
	if err != nil {
		return
	}
	sk.mu.Lock()
	defer sk.mu.Unlock()
	_, _ = sk.w.Write(append(b, '\n'))
	_ = sk.w.Flush()
}

// faultMark carries the kind of the fault applied to a logged request from
// the gateway back to the logger (through the request context).
type faultMark struct{ kind string }

type faultMarkKey struct{}

// MarkFault notes on r's exchange, if it is logged, the kind of the fault
// applied to it.
func MarkFault(r *http.Request, kind string) {
	if m, ok := r.Context().Value(faultMarkKey{}).(*faultMark); ok {
		m.kind = kind
	}
}

// Handler returns h wrapped so that it appends every exchange it serves to
// the log of dir. It returns h itself and the error when the log cannot be
// opened.
func Handler(h http.Handler, dir string, encode Encode) (http.Handler, error) {
	sk, err := open(dir, encode)
	if err != nil {
		return h, err
	}
	return &logger{next: h, sink: sk, instance: sinks.instances.Add(1)}, nil
}

type logger struct {
	next     http.Handler
	sink     *sink
	instance int64
	seq      atomic.Int64
}

func (l *logger) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	x := &Entry{Kind: "serve", Instance: l.instance, Seq: l.seq.Add(1), Time: time.Now().UTC()}
	x.Request = Message{Method: r.Method, Target: r.RequestURI, Header: r.Header.Clone()}
	if r.Host != "" {
		x.Request.Header.Set("Host", r.Host)
	}
	if r.Body != nil {
		// Keep up to MaxBody+1 bytes and hand the handler the whole body
		// unchanged.
		head, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
		x.Request.setBody(head)
		rest := r.Body
		if err != nil {
			rest = io.NopCloser(&ErrReader{Err: err})
		}
		r.Body = readCloser{io.MultiReader(bytes.NewReader(head), rest), r.Body}
	}
	rw := &recordingWriter{ResponseWriter: w, status: http.StatusOK}
	mark := &faultMark{}
	r = r.WithContext(context.WithValue(r.Context(), faultMarkKey{}, mark))
	defer func() {
		x.Fault = mark.kind
		p := recover()
		switch {
		case rw.hijacked || p != nil:
			x.Dropped = true
		default:
			if !rw.wrote {
				rw.header = w.Header().Clone()
			}
			resp := &Message{Status: rw.status, Header: rw.header}
			resp.setBody(rw.body.Bytes())
			resp.Truncated = resp.Truncated || rw.truncated
			x.Response = resp
		}
		l.sink.write(x)
		if p != nil {
			panic(p)
		}
	}()
	l.next.ServeHTTP(rw, r)
}

func (m *Message) setBody(b []byte) {
	if len(b) > MaxBody {
		b, m.Truncated = b[:MaxBody], true
	}
	if utf8.Valid(b) {
		m.Body = string(b)
	} else {
		m.BodyBase64 = append([]byte(nil), b...)
	}
}

type readCloser struct {
	io.Reader
	io.Closer
}

// ErrReader is a reader that fails with Err: the rest of a body whose
// reading failed.
type ErrReader struct{ Err error }

// Read returns the reader's error.
func (e *ErrReader) Read([]byte) (int, error) { return 0, e.Err }

// recordingWriter passes a response through and keeps a copy of it.
type recordingWriter struct {
	http.ResponseWriter
	status    int
	header    http.Header
	body      bytes.Buffer
	wrote     bool
	truncated bool
	hijacked  bool
}

func (w *recordingWriter) WriteHeader(status int) {
	if !w.wrote {
		w.wrote, w.status, w.header = true, status, w.ResponseWriter.Header().Clone()
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if room := MaxBody - w.body.Len(); room > 0 {
		if len(p) > room {
			w.body.Write(p[:room])
			w.truncated = true
		} else {
			w.body.Write(p)
		}
	} else if len(p) > 0 {
		w.truncated = true
	}
	return w.ResponseWriter.Write(p)
}

func (w *recordingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		if !w.wrote {
			w.WriteHeader(http.StatusOK)
		}
		f.Flush()
	}
}

// Hijack lets the drop faults close the connection; the exchange is then
// logged as dropped.
func (w *recordingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, http.ErrNotSupported
	}
	w.hijacked = true
	return hj.Hijack()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Transport returns tr wrapped so that it appends each webhook delivery it
// sends to the log of dir, or tr itself and the error when the log cannot
// be opened.
func Transport(tr http.RoundTripper, dir string, encode Encode) (http.RoundTripper, error) {
	sk, err := open(dir, encode)
	if err != nil {
		return tr, err
	}
	return &deliveryLogger{next: tr, sink: sk, instance: sinks.instances.Add(1)}, nil
}

type deliveryLogger struct {
	next     http.RoundTripper
	sink     *sink
	instance int64
	seq      atomic.Int64
}

// Unwrap returns the transport the deliveries are sent through.
func (l *deliveryLogger) Unwrap() http.RoundTripper { return l.next }

func (l *deliveryLogger) RoundTrip(r *http.Request) (*http.Response, error) {
	x := &Entry{Kind: "webhook", Instance: l.instance, Seq: l.seq.Add(1), Time: time.Now().UTC()}
	x.Request = Message{Method: r.Method, Target: r.URL.String(), Header: r.Header.Clone()}
	if r.GetBody != nil {
		if rc, err := r.GetBody(); err == nil {
			b, _ := io.ReadAll(io.LimitReader(rc, MaxBody+1))
			_ = rc.Close()
			x.Request.setBody(b)
		}
	}
	resp, err := l.next.RoundTrip(r)
	if err != nil {
		x.Dropped = true
	} else {
		// The receiver's body is not the simulator's concern: only the
		// status is kept.
		x.Response = &Message{Status: resp.StatusCode, Header: resp.Header.Clone()}
	}
	l.sink.write(x)
	return resp, err
}
