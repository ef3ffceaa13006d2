package simulator

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
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

// EnvExchangeLog names the environment variable that turns on the exchange
// log: when it holds a directory, every simulator started by New (and the
// standalone mwallet-sim) appends each HTTP exchange it serves, and each
// webhook delivery it sends, as one JSON line to a file in that directory
// (exchanges-<pid>.ndjson, one file per process). The repository's CI
// validates these files against the OpenAPI documents in openapi/.
//
// The log holds the exchanges verbatim: access tokens, API keys, request
// signatures, PINs and CVVs sent in test bodies, and the simulator's
// credentials as GET /_sim/credentials answers them. It is therefore off by
// default, written only inside the named directory (created with mode 0700,
// files 0600), and meant for throw-away test directories only. Never point
// it at a directory that is shared or kept.
//
// A simulator served by calling its ServeHTTP directly (an in-process
// httptest.ResponseRecorder) is not logged: only New's server, mwallet-sim
// and the handlers wrapped with LogExchanges are.
const EnvExchangeLog = "MWALLET_SIM_EXCHANGE_LOG"

// maxLoggedBody bounds the body bytes kept per request or response; longer
// bodies are cut and marked truncated.
const maxLoggedBody = 1 << 20

// Exchange is one line of the exchange log.
type Exchange struct {
	// Kind is "serve" for a request the simulator answered and "webhook"
	// for a delivery it sent.
	Kind string `json:"kind"`
	// Instance numbers the logging handler within its process; Seq numbers
	// the exchanges of that instance from 1.
	Instance int64         `json:"instance"`
	Seq      int64         `json:"seq"`
	Time     time.Time     `json:"time"`
	Request  LoggedMessage `json:"request"`
	// Response is nil when the connection was dropped without an answer
	// (the drop_before and drop_after faults) or the delivery failed in
	// transport.
	Response *LoggedMessage `json:"response,omitempty"`
	// Dropped marks an exchange that ended without a response.
	Dropped bool `json:"dropped,omitempty"`
	// Fault is the kind of the injected fault the simulator applied to
	// the request (error, error_after, drop_before, drop_after, delay),
	// empty when none: its answer is what the test asked for, not what the
	// contract describes for the route.
	Fault string `json:"fault,omitempty"`
}

// faultMark carries the kind of the fault applied to a logged request from
// the gateway back to the exchange logger (through the request context).
type faultMark struct{ kind string }

type faultMarkKey struct{}

// markFault notes on r's exchange, if it is logged, the fault applied to it.
func markFault(r *http.Request, kind FaultKind) {
	if m, ok := r.Context().Value(faultMarkKey{}).(*faultMark); ok {
		m.kind = string(kind)
	}
}

// LoggedMessage is a request or a response of the exchange log.
type LoggedMessage struct {
	Method string `json:"method,omitempty"` // requests only
	// Target is the request target as sent: the escaped path and query of a
	// served request, the absolute URL of a webhook delivery.
	Target string      `json:"target,omitempty"`
	Status int         `json:"status,omitempty"` // responses only
	Header http.Header `json:"header"`
	// Body is the body as text when it is valid UTF-8; otherwise BodyBase64
	// holds it.
	Body       string `json:"body,omitempty"`
	BodyBase64 []byte `json:"body_base64,omitempty"`
	Truncated  bool   `json:"truncated,omitempty"`
}

// exchangeSink is one log file of this process.
type exchangeSink struct {
	mu sync.Mutex
	w  *bufio.Writer
}

// exchangeSinks holds the process's log files by directory, opened on first
// use and kept open until the process exits (each line is flushed).
var exchangeSinks struct {
	mu        sync.Mutex
	byDir     map[string]*exchangeSink
	instances atomic.Int64
}

// exchangeLogDir returns the directory of the exchange log, or "" when the
// log is off.
func exchangeLogDir() string { return os.Getenv(EnvExchangeLog) }

// openExchangeSink returns the log file of dir, creating dir (0700) and the
// file (0600) on first use.
func openExchangeSink(dir string) (*exchangeSink, error) {
	exchangeSinks.mu.Lock()
	defer exchangeSinks.mu.Unlock()
	if sk := exchangeSinks.byDir[dir]; sk != nil {
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
	sk := &exchangeSink{w: bufio.NewWriterSize(f, 1<<16)}
	if exchangeSinks.byDir == nil {
		exchangeSinks.byDir = map[string]*exchangeSink{}
	}
	exchangeSinks.byDir[dir] = sk
	return sk, nil
}

// write appends one line and flushes it, so a test binary that exits without
// closing anything loses nothing.
func (sk *exchangeSink) write(x *Exchange) {
	b, err := json.Marshal(x)
	if err != nil {
		return
	}
	sk.mu.Lock()
	defer sk.mu.Unlock()
	_, _ = sk.w.Write(append(b, '\n'))
	_ = sk.w.Flush()
}

// LogExchanges returns h wrapped so that it appends every exchange it serves
// to the exchange log when EnvExchangeLog is set, and h itself otherwise.
// New applies it to its server; mwallet-sim applies it to its handler.
func LogExchanges(h http.Handler) http.Handler {
	dir := exchangeLogDir()
	if dir == "" {
		return h
	}
	sink, err := openExchangeSink(dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "simulator: %s: %v; exchanges are not logged\n", EnvExchangeLog, err)
		return h
	}
	return &exchangeLogger{next: h, sink: sink, instance: exchangeSinks.instances.Add(1)}
}

type exchangeLogger struct {
	next     http.Handler
	sink     *exchangeSink
	instance int64
	seq      atomic.Int64
}

func (l *exchangeLogger) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	x := &Exchange{Kind: "serve", Instance: l.instance, Seq: l.seq.Add(1), Time: time.Now().UTC()}
	x.Request = LoggedMessage{Method: r.Method, Target: r.RequestURI, Header: r.Header.Clone()}
	if r.Host != "" {
		x.Request.Header.Set("Host", r.Host)
	}
	if r.Body != nil {
		// Keep up to maxLoggedBody+1 bytes and hand the handler the whole
		// body unchanged.
		head, err := io.ReadAll(io.LimitReader(r.Body, maxLoggedBody+1))
		x.Request.setBody(head)
		rest := r.Body
		if err != nil {
			rest = io.NopCloser(&errReader{err})
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
			resp := &LoggedMessage{Status: rw.status, Header: rw.header}
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

func (m *LoggedMessage) setBody(b []byte) {
	if len(b) > maxLoggedBody {
		b, m.Truncated = b[:maxLoggedBody], true
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

type errReader struct{ err error }

func (e *errReader) Read([]byte) (int, error) { return 0, e.err }

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
	if room := maxLoggedBody - w.body.Len(); room > 0 {
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

// deliveryTransport is the transport of the webhook delivery client: the
// simulator's own pool tr, wrapped to log each delivery when
// EnvExchangeLog is set.
func deliveryTransport(tr *http.Transport) http.RoundTripper {
	dir := exchangeLogDir()
	if dir == "" {
		return tr
	}
	sink, err := openExchangeSink(dir)
	if err != nil {
		return tr
	}
	return &deliveryLogger{next: tr, sink: sink, instance: exchangeSinks.instances.Add(1)}
}

type deliveryLogger struct {
	next     http.RoundTripper
	sink     *exchangeSink
	instance int64
	seq      atomic.Int64
}

func (l *deliveryLogger) RoundTrip(r *http.Request) (*http.Response, error) {
	x := &Exchange{Kind: "webhook", Instance: l.instance, Seq: l.seq.Add(1), Time: time.Now().UTC()}
	x.Request = LoggedMessage{Method: r.Method, Target: r.URL.String(), Header: r.Header.Clone()}
	if r.GetBody != nil {
		if rc, err := r.GetBody(); err == nil {
			b, _ := io.ReadAll(io.LimitReader(rc, maxLoggedBody+1))
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
		x.Response = &LoggedMessage{Status: resp.StatusCode, Header: resp.Header.Clone()}
	}
	l.sink.write(x)
	return resp, err
}
