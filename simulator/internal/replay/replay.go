// Package replay runs a recording's inputs again, in order, on a
// simulator it drives through Target: it hands each input to the target,
// runs recorded requests on goroutines of their own so that a request
// parked in a delay fault waits while the inputs after it run, resumes
// them when the recording says so, and checks that the replayed execution
// logs exactly the recorded inputs (Check) and ends in the recorded state.
package replay

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"sync"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// Target is the simulator a Runner drives.
type Target interface {
	// Expect makes in the input the replayed execution must log next (the
	// target's input log calls Check.Check with what it logs). It returns
	// the replay's divergence, if an earlier input diverged.
	Expect(in *recfile.Input) error
	// Logged ends the expectation of in, whose execution returned err (see
	// Check.Done).
	Logged(in *recfile.Input, err error) error
	// CatchUp brings the clock to in's reading under in's rules (an
	// advance that ran nothing was not logged).
	CatchUp(in *recfile.Input)
	// Serve runs a recorded request (its body is body, its hooks h) to its
	// end or until it parks in a delay fault (h.Park).
	Serve(h *Hooks, req *http.Request, body io.ReadCloser)
	// Apply runs an input that is not a request nor the resumption of
	// one.
	Apply(in *recfile.Input) error
	// End ends the replay: the target records live from now on.
	End()
	// Settle completes what the recording left in progress once the
	// parked requests have run (deliveries left in flight).
	Settle()
	// Reach brings the clock to end and returns the state's digest (the
	// legacy one if legacy; none unless digest) and the clock's reading.
	Reach(end time.Time, legacy, digest bool) (string, time.Time, error)
}

// Hooks connect a replayed request to the replay: a delay fault parks it
// until the recording says it resumed.
type Hooks struct {
	// Want is the recorded input (its random draws are made again).
	Want *recfile.Input
	// W keeps the request's answer.
	W *Writer

	parked  chan struct{} // the request waits in a delay
	release chan struct{} // closed to let it take the lock again
	done    chan struct{} // closed when its handler has returned
	panic   any
}

// Park is called by a replayed request that takes a delay fault: it
// returns when the recording resumes the request.
func (h *Hooks) Park() {
	h.parked <- struct{}{}
	<-h.release
}

// Writer is the ResponseWriter of a replayed request: the answer is kept
// (the dashboard's stepper shows it) and goes nowhere else.
type Writer struct {
	header http.Header
	// Status is the answer's status, 0 when the connection was dropped.
	Status int
	// Body holds the first 64 KiB of the answer's body.
	Body bytes.Buffer
}

// Header returns the answer's header.
func (w *Writer) Header() http.Header { return w.header }

// WriteHeader keeps the first status written.
func (w *Writer) WriteHeader(status int) {
	if w.Status == 0 {
		w.Status = status
	}
}

// Write keeps the first 64 KiB of the body.
func (w *Writer) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	if w.Body.Len() < 64<<10 {
		w.Body.Write(p[:min(len(p), 64<<10-w.Body.Len())])
	}
	return len(p), nil
}

// Hijack lets a drop fault close "the connection" of a replayed request.
func (w *Writer) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	a, b := net.Pipe()
	_ = b.Close()
	w.Status = 0
	return a, nil, nil
}

// Check holds the input a replay is running: the input the replayed
// execution logs must be that one. A divergence stops the replay. The
// target guards it with its input log's lock.
type Check struct {
	// Want is the input being replayed, nil between inputs.
	Want *recfile.Input
	// Err is the replay's divergence.
	Err error
}

// Check compares the input the replayed execution logs with the recorded
// one; got takes the recorded rules (and the route of a call).
func (c *Check) Check(got *recfile.Input) error {
	if c.Err != nil {
		return c.Err
	}
	w := c.Want
	if w == nil {
		c.Err = fmt.Errorf("simulator: replay: input %d (%s) was logged while no input was being replayed", got.Seq, Describe(got))
		return c.Err
	}
	same := got.Seq == w.Seq && got.Op == w.Op
	// A replayed input runs under the rules it ran under, and is logged
	// with them again.
	got.Rules = w.Rules
	if same {
		switch w.Op {
		case recfile.OpHTTP:
			same = got.Method == w.Method && got.Target == w.Target
		case recfile.OpResume:
			same = got.Of == w.Of
		case recfile.OpCall:
			same = got.Call == w.Call
			// The Go method a replay runs logs the call again: it keeps
			// the route the recorded call entered through.
			got.Route = w.Route
		case recfile.OpAdvance:
			same = got.To.Equal(w.To)
		case recfile.OpAttempt:
			same = got.Delivery == w.Delivery
		case recfile.OpBase:
			same = got.URL == w.URL
		case recfile.OpCaps:
			same = got.Caps != nil && w.Caps != nil && *got.Caps == *w.Caps
		}
	}
	if !same {
		c.Err = fmt.Errorf("simulator: replay diverges at input %d: the recording has %s, the replay logged %d %s", w.Seq, Describe(w), got.Seq, Describe(got))
		return c.Err
	}
	c.Want = nil
	return nil
}

// Done ends the expectation of in, whose execution returned err: it
// returns the replay's divergence if there is one, else err, else an error
// when in was not logged.
func (c *Check) Done(in *recfile.Input, err error) error {
	if c.Err != nil {
		err = c.Err
	} else if err == nil && c.Want != nil {
		c.Err = fmt.Errorf("simulator: replay diverges at input %d: the recording has %s, the replay logged nothing", in.Seq, Describe(in))
		err = c.Err
	}
	c.Want = nil
	return err
}

// Describe is a one-line description of an input for messages.
func Describe(in *recfile.Input) string {
	switch in.Op {
	case recfile.OpHTTP:
		return in.Method + " " + in.Target
	case recfile.OpResume:
		return fmt.Sprintf("resume of input %d", in.Of)
	case recfile.OpCall:
		return "call " + in.Call
	case recfile.OpAdvance:
		return "advance to " + in.To.UTC().Format(time.RFC3339Nano)
	case recfile.OpAttempt:
		return "webhook attempt of " + in.Delivery
	case recfile.OpBase:
		return "served at " + in.URL
	case recfile.OpCaps:
		if in.Caps == nil {
			return "store caps (none given)"
		}
		return fmt.Sprintf("store caps: %d nonces, %d idempotency keys, %d step-up challenges", in.Caps.Nonces, in.Caps.IdempotencyKeys, in.Caps.StepUpChallenges)
	}
	return in.Op
}

// Runner runs recorded inputs on a Target.
type Runner struct {
	t       Target
	waiting map[int64]*Hooks // requests parked in a delay, by the seq of their http input
	// OnStep, when set, is told each input run with the answer of an http
	// input (nil for the others).
	OnStep func(in *recfile.Input, w *Writer)
	// idle are the goroutines that run replayed requests, waiting for the
	// next one. A request runs on a goroutine of its own, since a delay
	// fault parks it while the inputs after it run; goroutines are reused,
	// so their stacks are grown once.
	idle   []chan func()
	idleMu sync.Mutex
}

// New returns a Runner of t.
func New(t Target) *Runner {
	return &Runner{t: t, waiting: map[int64]*Hooks{}}
}

// goRun runs fn on an idle replay goroutine, or on a new one, then gives
// the goroutine back and runs then.
func (p *Runner) goRun(fn, then func()) {
	var jobs chan func()
	p.idleMu.Lock()
	if n := len(p.idle); n > 0 {
		jobs, p.idle = p.idle[n-1], p.idle[:n-1]
	}
	p.idleMu.Unlock()
	if jobs == nil {
		jobs = make(chan func())
		go func() {
			for job := range jobs {
				job()
			}
		}()
	}
	jobs <- func() {
		fn()
		p.release(jobs)
		then()
	}
}

// release returns a goroutine to the idle list once its request is done.
func (p *Runner) release(jobs chan func()) {
	p.idleMu.Lock()
	p.idle = append(p.idle, jobs)
	p.idleMu.Unlock()
}

// stop ends the idle goroutines.
func (p *Runner) stop() {
	p.idleMu.Lock()
	defer p.idleMu.Unlock()
	for _, jobs := range p.idle {
		close(jobs)
	}
	p.idle = nil
}

// Run runs inputs in order. It returns at the first input that fails or
// diverges.
func (p *Runner) Run(inputs []*recfile.Input) error {
	for _, in := range inputs {
		if err := p.Step(in); err != nil {
			return err
		}
	}
	return nil
}

// Step runs one input.
func (p *Runner) Step(in *recfile.Input) error {
	if err := p.t.Expect(in); err != nil {
		return err
	}
	p.t.CatchUp(in)

	var w *Writer
	var err error
	switch in.Op {
	case recfile.OpHTTP:
		w, err = p.http(in)
	case recfile.OpResume:
		h := p.waiting[in.Of]
		if h == nil {
			err = fmt.Errorf("simulator: replay: input %d resumes input %d, which is not waiting in a delay", in.Seq, in.Of)
			break
		}
		delete(p.waiting, in.Of)
		close(h.release)
		<-h.done
		w = h.W
		if h.panic != nil {
			err = fmt.Errorf("simulator: replay: input %d: %v", in.Of, h.panic)
		}
	default:
		err = p.t.Apply(in)
	}

	err = p.t.Logged(in, err)
	if err == nil && p.OnStep != nil {
		p.OnStep(in, w)
	}
	return err
}

// http runs a recorded request. It returns when the handler has returned
// or when the request waits in a delay.
func (p *Runner) http(in *recfile.Input) (*Writer, error) {
	req, err := Request(in)
	if err != nil {
		return nil, err
	}
	h := &Hooks{Want: in, parked: make(chan struct{}, 1), release: make(chan struct{}), done: make(chan struct{}), W: &Writer{header: http.Header{}}}
	var body io.Reader = bytes.NewReader(in.Body)
	if in.BodyErr {
		body = io.MultiReader(body, errReader{errors.New("the recorded request body failed here")})
	}
	p.goRun(func() {
		defer func() {
			if v := recover(); v != nil && v != http.ErrAbortHandler {
				h.panic = v
			}
		}()
		p.t.Serve(h, req, io.NopCloser(body))
	}, func() { close(h.done) })
	select {
	case <-h.done:
		if h.panic != nil {
			return h.W, fmt.Errorf("simulator: replay: input %d: %v", in.Seq, h.panic)
		}
	case <-h.parked:
		p.waiting[in.Seq] = h
	}
	return h.W, nil
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// Request rebuilds the request of an http input (without its body).
func Request(in *recfile.Input) (*http.Request, error) {
	u, err := url.ParseRequestURI(in.Target)
	if err != nil {
		u = &url.URL{Path: in.Target}
	}
	h := in.Header
	if h == nil {
		h = http.Header{}
	}
	req := &http.Request{
		Method: in.Method, URL: u, Proto: in.Proto, Header: h, Host: in.Host,
		RemoteAddr: in.Remote, RequestURI: in.Target,
	}
	req.ProtoMajor, req.ProtoMinor, _ = http.ParseHTTPVersion(in.Proto)
	if in.TLS {
		req.TLS = &tls.ConnectionState{}
	}
	return req, nil
}

// Finish ends a replay: the target records live from now on, then
// completes what the recording left in progress (requests waiting in a
// delay run their handler, in the order of their inputs; then
// Target.Settle). Both are logged as inputs.
func (p *Runner) Finish() {
	p.t.End()
	seqs := make([]int64, 0, len(p.waiting))
	for seq := range p.waiting {
		seqs = append(seqs, seq)
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	for _, seq := range seqs {
		h := p.waiting[seq]
		close(h.release)
		<-h.done
	}
	p.waiting = map[int64]*Hooks{}
	p.stop()
	p.t.Settle()
}

// Recording runs a recording's inputs on the runner's target (just built
// from its configuration), brings the clock to where the recording ended
// (end), checks the state's digest against digest (the legacy digest if
// legacy; none when digest is empty) and finishes the replay.
func (p *Runner) Recording(inputs []*recfile.Input, end time.Time, digest string, legacy bool) error {
	if err := p.Run(inputs); err != nil {
		p.Abandon()
		return err
	}
	got, now, err := p.t.Reach(end, legacy, digest != "")
	if err != nil {
		p.Abandon()
		return err
	}
	if got != digest {
		p.Abandon()
		return fmt.Errorf("simulator: the replay logged the recorded inputs but reached another state (digest %s, the recording's %s): the recording comes from a simulator that behaves differently", got, digest)
	}
	if !end.IsZero() && !now.Equal(end) {
		p.Abandon()
		return fmt.Errorf("simulator: the replay reached the recorded state but its clock reads %s, the recording's end %s", now.UTC().Format(time.RFC3339Nano), end.UTC().Format(time.RFC3339Nano))
	}
	p.Finish()
	return nil
}

// Abandon lets the requests parked by a failed replay finish, so no
// goroutine is left waiting.
func (p *Runner) Abandon() {
	p.t.End()
	for _, h := range p.waiting {
		close(h.release)
		<-h.done
	}
	p.waiting = nil
	p.stop()
}
