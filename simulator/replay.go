package simulator

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
	"io"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"sync"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/exchangelog"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// replayHooks connect a replayed request to the replay: a delay fault
// parks it until the recording says it resumed.
type replayHooks struct {
	want    *recordedInput // the recorded input (its random draws are made again)
	parked  chan struct{}  // the request waits in a delay
	release chan struct{}  // closed to let it take the lock again
	done    chan struct{}  // closed when its handler has returned
	w       *replayWriter
	panic   any
}

func (h *replayHooks) park() {
	h.parked <- struct{}{}
	<-h.release
}

// replayWriter is the ResponseWriter of a replayed request: the answer is
// kept (the dashboard's stepper shows it) and goes nowhere else.
type replayWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *replayWriter) Header() http.Header { return w.header }

func (w *replayWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *replayWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	if w.body.Len() < 64<<10 {
		w.body.Write(p[:min(len(p), 64<<10-w.body.Len())])
	}
	return len(p), nil
}

// Hijack lets a drop fault close "the connection" of a replayed request.
func (w *replayWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	a, b := net.Pipe()
	_ = b.Close()
	w.status = 0
	return a, nil, nil
}

// replayCheck holds the input a replay is running: the input the replayed
// execution logs must be that one. A divergence stops the replay.
type replayCheck struct {
	want *recordedInput
	err  error
}

func (c *replayCheck) check(got *recordedInput) error {
	if c.err != nil {
		return c.err
	}
	w := c.want
	if w == nil {
		c.err = fmt.Errorf("simulator: replay: input %d (%s) was logged while no input was being replayed", got.Seq, describeInput(got))
		return c.err
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
		c.err = fmt.Errorf("simulator: replay diverges at input %d: the recording has %s, the replay logged %d %s", w.Seq, describeInput(w), got.Seq, describeInput(got))
		return c.err
	}
	c.want = nil
	return nil
}

// describeInput is a one-line description of an input for messages.
func describeInput(in *recordedInput) string {
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

// replayer runs recorded inputs on a simulator.
type replayer struct {
	s       *Simulator
	waiting map[int64]*replayHooks // requests parked in a delay, by the seq of their http input
	// onStep, when set, is told each input run with the answer of an http
	// input (nil for the others).
	onStep func(in *recordedInput, w *replayWriter)
	// idle are the goroutines that run replayed requests, waiting for the
	// next one. A request runs on a goroutine of its own, since a delay
	// fault parks it while the inputs after it run; goroutines are reused,
	// so their stacks are grown once.
	idle   []chan func()
	idleMu sync.Mutex
}

func newReplayer(s *Simulator) *replayer {
	return &replayer{s: s, waiting: map[int64]*replayHooks{}}
}

// goRun runs fn on an idle replay goroutine, or on a new one, then gives
// the goroutine back and runs then.
func (p *replayer) goRun(fn, then func()) {
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
func (p *replayer) release(jobs chan func()) {
	p.idleMu.Lock()
	p.idle = append(p.idle, jobs)
	p.idleMu.Unlock()
}

// stop ends the idle goroutines.
func (p *replayer) stop() {
	p.idleMu.Lock()
	defer p.idleMu.Unlock()
	for _, jobs := range p.idle {
		close(jobs)
	}
	p.idle = nil
}

// run runs inputs in order. It returns at the first input that fails or
// diverges.
func (p *replayer) run(inputs []*recordedInput) error {
	for _, in := range inputs {
		if err := p.step(in); err != nil {
			return err
		}
	}
	return nil
}

func (p *replayer) step(in *recordedInput) error {
	s := p.s
	s.wiring.rec.mu.Lock()
	if s.wiring.rec.replay == nil {
		s.wiring.rec.replay = &replayCheck{}
	}
	chk := s.wiring.rec.replay
	if chk.err != nil {
		s.wiring.rec.mu.Unlock()
		return chk.err
	}
	chk.want = in
	s.wiring.rec.mu.Unlock()

	// An advance that ran nothing was not logged: the input's clock
	// reading brings the clock there, under the input's rules.
	tx := s.k.Begin()
	s.wiring.rec.setRunning(in)
	if now := s.st.clock.Now(); in.Clock.After(now) {
		s.wiring.timers.Advance(tx, in.Clock.Sub(now))
	}
	tx.End()

	var w *replayWriter
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
		w = h.w
		if h.panic != nil {
			err = fmt.Errorf("simulator: replay: input %d: %v", in.Of, h.panic)
		}
	case recfile.OpCall:
		err = p.call(in)
	case recfile.OpAdvance:
		err = s.wiring.inputs.advanceTo(in.To)
	case recfile.OpFlushDue:
		err = s.wiring.delivery.flushDueInput()
	case recfile.OpAttempt:
		err = s.wiring.delivery.attemptInput(in.Delivery, in.At, in.StatusCode, in.Response, in.Error)
	case recfile.OpFlushAbort:
		err = s.wiring.delivery.flushAbortInput(in.Deliveries)
	case recfile.OpBase:
		// The recorded simulator's address: answers built from it (links)
		// are the same in the replay.
		s.wiring.replayBase = in.URL
		var tx *kernel.Tx
		if tx, _, err = s.wiring.inputs.lockInput(&recordedInput{Op: recfile.OpBase, URL: in.URL}); err == nil {
			tx.End()
		}
	case recfile.OpCaps:
		if in.Caps == nil {
			err = fmt.Errorf("simulator: replay: input %d: caps without their values", in.Seq)
			break
		}
		err = s.wiring.inputs.setCaps(storeCaps(*in.Caps))
	default:
		err = fmt.Errorf("simulator: replay: input %d: unknown op %q", in.Seq, in.Op)
	}

	s.wiring.rec.mu.Lock()
	if chk.err != nil {
		err = chk.err
	} else if err == nil && chk.want != nil {
		chk.err = fmt.Errorf("simulator: replay diverges at input %d: the recording has %s, the replay logged nothing", in.Seq, describeInput(in))
		err = chk.err
	}
	chk.want = nil
	s.wiring.rec.mu.Unlock()
	if err == nil && p.onStep != nil {
		p.onStep(in, w)
	}
	return err
}

// http runs a recorded request through ServeHTTP. It returns when the
// handler has returned or when the request waits in a delay.
func (p *replayer) http(in *recordedInput) (*replayWriter, error) {
	req, err := requestOf(in)
	if err != nil {
		return nil, err
	}
	h := &replayHooks{want: in, parked: make(chan struct{}, 1), release: make(chan struct{}), done: make(chan struct{}), w: &replayWriter{header: http.Header{}}}
	var body io.Reader = bytes.NewReader(in.Body)
	if in.BodyErr {
		body = io.MultiReader(body, &exchangelog.ErrReader{Err: errors.New("the recorded request body failed here")})
	}
	req.Body = &captureBody{src: io.NopCloser(body), replay: h}
	p.goRun(func() {
		defer func() {
			if v := recover(); v != nil && v != http.ErrAbortHandler {
				h.panic = v
			}
		}()
		p.s.ServeHTTP(h.w, req)
	}, func() { close(h.done) })
	select {
	case <-h.done:
		if h.panic != nil {
			return h.w, fmt.Errorf("simulator: replay: input %d: %v", in.Seq, h.panic)
		}
	case <-h.parked:
		p.waiting[in.Seq] = h
	}
	return h.w, nil
}

// requestOf rebuilds the request of an http input.
func requestOf(in *recordedInput) (*http.Request, error) {
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

// call runs a recorded Go control call through the method it names.
func (p *replayer) call(in *recordedInput) error {
	fn, err := p.s.wiring.ctl.controlMethod(in.Call)
	if err != nil {
		return err
	}
	t := fn.Type()
	if t.NumIn() != len(in.Args) {
		return fmt.Errorf("simulator: replay: input %d: %s takes %d arguments, the recording has %d", in.Seq, in.Call, t.NumIn(), len(in.Args))
	}
	args := make([]reflect.Value, len(in.Args))
	for i, a := range in.Args {
		v := reflect.New(t.In(i))
		if err := json.Unmarshal(a, v.Interface()); err != nil {
			return fmt.Errorf("simulator: replay: input %d: %s argument %d: %w", in.Seq, in.Call, i, err)
		}
		if fx, ok := v.Interface().(replayArg); ok && in.Route == "" {
			fx.replayArg()
		}
		args[i] = v.Elem()
	}
	var out []reflect.Value
	if t.IsVariadic() {
		out = fn.CallSlice(args)
	} else {
		out = fn.Call(args)
	}
	if in.Route != "" && !failed(out) {
		// Entered over HTTP: the timers due then ran in the same input.
		p.s.wiring.ctl.runDue()
	}
	return nil
}

// failed reports whether the results of a Go control method end with a
// non-nil error.
func failed(out []reflect.Value) bool {
	if len(out) == 0 {
		return false
	}
	last := out[len(out)-1]
	return last.Kind() == reflect.Interface && last.Type().Implements(reflect.TypeFor[error]()) && !last.IsNil()
}

// replayArg is an argument of a Go control call that needs more than its
// JSON to be replayed.
type replayArg interface{ replayArg() }

// replayArg gives a delay fault that was held by a channel (Hold, which a
// recording cannot keep) a closed one: in a replay the recording says when
// a delayed request resumes, and a request taking the fault after the
// replay is not held.
func (f *Fault) replayArg() {
	if f.Kind == FaultDelay && f.DelayMS == 0 && f.Hold == nil {
		c := make(chan struct{})
		close(c)
		f.Hold = c
	}
}

// controlMethod finds a Go control method by its recorded name through
// its declaration (control_decl.go): "Field.Method" for the control types,
// "Action" for *Simulator. A name no declaration gives is refused.
func (ctl *controlAPI) controlMethod(name string) (reflect.Value, error) {
	return declaredMethod(ctl.sim, name)
}

// finishReplay ends a replay: the simulator records live from now on, then
// completes what the recording left in progress (requests waiting in a
// delay run their handler; deliveries a flush left in flight go back to
// pending). Both are logged as inputs.
func (p *replayer) finish() {
	s := p.s
	s.wiring.rec.mu.Lock()
	s.wiring.rec.replay = nil
	s.wiring.rec.mu.Unlock()
	s.wiring.replayBase = ""
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
	p.waiting = map[int64]*replayHooks{}
	p.stop()
	tx := s.k.BeginInput()
	ids := s.st.webhooks.InFlight(tx)
	tx.End()
	if len(ids) > 0 {
		_ = s.wiring.delivery.flushAbortInput(ids)
	}
	tx = s.k.Begin()
	s.st.webhooks.Kick(tx)
	tx.End()
}

// replayRecording runs a recording on the replayer's simulator (just
// built from its configuration) and brings the clock to where the
// recording ended.
func (p *replayer) replayRecording(r *Recording) error {
	s := p.s
	err := p.run(r.inputs)
	if err != nil {
		p.abandon()
		return err
	}
	tx := s.k.Begin()
	if now := s.st.clock.Now(); r.end.After(now) {
		s.wiring.timers.Advance(tx, r.end.Sub(now))
	}
	var got string
	if r.digest != "" {
		var err error
		if r.header.Version < 2 {
			got, err = s.wiring.image.legacyDigest(tx)
		} else {
			got, err = s.wiring.image.digest(tx)
		}
		if err != nil {
			tx.End()
			p.abandon()
			return err
		}
	}
	now := s.st.clock.Now()
	tx.End()
	if got != r.digest {
		p.abandon()
		return fmt.Errorf("simulator: the replay logged the recorded inputs but reached another state (digest %s, the recording's %s): the recording comes from a simulator that behaves differently", got, r.digest)
	}
	if !r.end.IsZero() && !now.Equal(r.end) {
		p.abandon()
		return fmt.Errorf("simulator: the replay reached the recorded state but its clock reads %s, the recording's end %s", now.UTC().Format(time.RFC3339Nano), r.end.UTC().Format(time.RFC3339Nano))
	}
	p.finish()
	s.wiring.rec.mu.Lock()
	st := s.wiring.rec.store
	s.wiring.rec.mu.Unlock()
	if st != nil {
		// Replayed into a data directory: one sync for all of it.
		return st.Durable(st.Written())
	}
	return nil
}

// abandon lets the requests parked by a failed replay finish, so no
// goroutine is left waiting.
func (p *replayer) abandon() {
	p.s.wiring.rec.mu.Lock()
	p.s.wiring.rec.replay = nil
	p.s.wiring.rec.mu.Unlock()
	for _, h := range p.waiting {
		close(h.release)
		<-h.done
	}
	p.waiting = nil
	p.stop()
	p.s.wiring.replayBase = ""
}
