package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
)

// exchangeKind classifies a request the tool sends.
type exchangeKind int

const (
	kindRead    exchangeKind = iota // a business request that is not a signed write (reads, token exchanges)
	kindWrite                       // a signed business write
	kindControl                     // a control API request (/_sim/...)
)

// window is what was measured over one reporting interval.
type window struct {
	From, To time.Time
	// Latency holds the latency of every business request answered (any
	// status), WriteLatency that of the signed writes among them. A
	// request's latency runs from the call of the transport to the end of
	// its answer's body.
	Latency, WriteLatency []time.Duration
	// DateLag holds, for every business answer, the host time at the
	// answer minus its Date header (the simulator clock, whole seconds).
	DateLag []time.Duration
	// Requests counts business answers (any status), Writes the signed
	// writes among them and WritesOK those answered 2xx.
	Requests, Writes, WritesOK int
	// Control counts control API answers.
	Control int
	// Slow counts the business answers slower than the slow threshold.
	Slow int
	// Status5xx counts answers (business and control) with a 5xx status;
	// TransportErrors the requests that got no answer.
	Status5xx, TransportErrors int
	// Longest is the longest stall that ended in the window.
	Longest interval
}

func (w *window) seconds() float64 { return w.To.Sub(w.From).Seconds() }

// recorder measures every request the tool sends, through meteredTransport.
// It counts only while on (the measured run, not the setup).
type recorder struct {
	slow time.Duration
	now  func() time.Time

	mu      sync.Mutex
	on      bool
	track   stallTracker
	win     *window
	windows []*window
}

// keptStalls is the shortest stall the recorder keeps for attribution.
const keptStalls = 50 * time.Millisecond

func newRecorder(slow time.Duration) *recorder {
	return &recorder{slow: slow, now: time.Now}
}

// start begins the measured run.
func (r *recorder) start() {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	r.on = true
	r.track = stallTracker{keep: keptStalls}
	r.win = &window{From: now}
}

// roll closes the current window and opens the next.
func (r *recorder) roll() *window {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rollLocked()
}

func (r *recorder) rollLocked() *window {
	now := r.now()
	w := r.win
	w.To = now
	r.windows = append(r.windows, w)
	r.win = &window{From: now}
	return w
}

// stop ends the measured run; it returns the last window and the stall in
// progress, if any (requests still outstanding).
func (r *recorder) stop() (*window, interval) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.rollLocked()
	r.on = false
	return w, r.track.current(w.To)
}

// current returns the stall in progress now.
func (r *recorder) current() interval {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.on {
		return interval{}
	}
	return r.track.current(r.now())
}

// stalls returns the stalls of at least keptStalls and the longest one.
func (r *recorder) stalls() ([]interval, interval) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]interval(nil), r.track.stalls...), r.track.longest
}

// allWindows returns every closed window.
func (r *recorder) allWindows() []*window {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*window(nil), r.windows...)
}

// exchange is one request in flight.
type exchange struct {
	start   time.Time
	kind    exchangeKind
	counted bool
	once    sync.Once
}

func (r *recorder) begin(kind exchangeKind) *exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	x := &exchange{start: r.now(), kind: kind, counted: r.on}
	if x.counted {
		r.track.begin(x.start)
	}
	return x
}

// end records the answer of x: its status (0: none came) and Date header.
func (r *recorder) end(x *exchange, status int, date string) {
	x.once.Do(func() {
		var served time.Time
		if date != "" {
			served, _ = http.ParseTime(date)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if !x.counted || !r.on {
			return
		}
		at := r.now()
		s := r.track.end(at)
		w := r.win
		if s.Len() > w.Longest.Len() {
			w.Longest = s
		}
		switch {
		case status == 0:
			w.TransportErrors++
			return
		case status >= 500:
			w.Status5xx++
		}
		if x.kind == kindControl {
			w.Control++
			return
		}
		lat := at.Sub(x.start)
		w.Requests++
		w.Latency = append(w.Latency, lat)
		if lat > r.slow {
			w.Slow++
		}
		if x.kind == kindWrite {
			w.Writes++
			w.WriteLatency = append(w.WriteLatency, lat)
			if status/100 == 2 {
				w.WritesOK++
			}
		}
		if !served.IsZero() {
			w.DateLag = append(w.DateLag, at.Sub(served))
		}
	})
}

// meteredTransport records every request through rec. A request ends when
// its answer's body has been read to its end or closed.
type meteredTransport struct {
	next http.RoundTripper
	rec  *recorder
}

func (m *meteredTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	kind := kindRead
	switch {
	case strings.HasPrefix(req.URL.Path, "/_sim/"):
		kind = kindControl
	case req.Method != http.MethodGet && req.Header.Get("X-Signature") != "":
		kind = kindWrite
	}
	x := m.rec.begin(kind)
	resp, err := m.next.RoundTrip(req)
	if err != nil {
		m.rec.end(x, 0, "")
		return nil, err
	}
	status, date := resp.StatusCode, resp.Header.Get("Date")
	resp.Body = &meteredBody{ReadCloser: resp.Body, done: func() { m.rec.end(x, status, date) }}
	return resp, nil
}

// meteredBody calls done once, at the end of the body or when it is closed.
type meteredBody struct {
	io.ReadCloser
	done func()
}

func (b *meteredBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.done()
	}
	return n, err
}

func (b *meteredBody) Close() error {
	err := b.ReadCloser.Close()
	b.done()
	return err
}

// newHTTPClient returns an HTTP client with connections of its own, metered
// by rec.
func newHTTPClient(rec *recorder, conns int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = conns
	return &http.Client{Transport: &meteredTransport{next: t, rec: rec}}
}

// logCounter counts the log records the SDK clients emit at info level and
// above, by level and message: the clock-skew reports among them.
type logCounter struct {
	mu     sync.Mutex
	counts map[logLine]int
}

type logLine struct {
	Level slog.Level
	Msg   string
}

func newLogCounter() *logCounter { return &logCounter{counts: map[logLine]int{}} }

// logger returns a logger whose records the counter counts.
func (c *logCounter) logger() *slog.Logger { return slog.New(countingHandler{c}) }

// snapshot returns the counts so far.
func (c *logCounter) snapshot() map[logLine]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[logLine]int, len(c.counts))
	for k, v := range c.counts {
		out[k] = v
	}
	return out
}

// The clock-skew reports of the SDK (clock.go of the root package).
const (
	skewWarnPrefix = "mwallet: the clock differs from the service's"
	skewInfoPrefix = "mwallet: the clock agrees with the service's"
)

// skewLines counts the SDK's clock-skew reports in counts: warnings (the
// host's clock differs from the service's Date) and the info lines that
// say it agrees again.
func skewLines(counts map[logLine]int) (warn, info int) {
	for k, v := range counts {
		switch {
		case strings.HasPrefix(k.Msg, skewWarnPrefix):
			warn += v
		case strings.HasPrefix(k.Msg, skewInfoPrefix):
			info += v
		}
	}
	return warn, info
}

type countingHandler struct{ c *logCounter }

func (h countingHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h countingHandler) Handle(_ context.Context, r slog.Record) error {
	h.c.mu.Lock()
	h.c.counts[logLine{Level: r.Level, Msg: r.Message}]++
	h.c.mu.Unlock()
	return nil
}

func (h countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h countingHandler) WithGroup(string) slog.Handler      { return h }
