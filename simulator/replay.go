package simulator

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"
)

// Recording is the input log of a simulator: its configuration, then every
// input that changed its state, in the order the inputs ran (see
// Simulator.Recording). A simulator started from it (WithRecording, or
// mwallet-sim serve -replay FILE) reaches the same state: the same ids,
// balances, objects, events, deliveries and clock.
//
// Its file format is JSON Lines, version 1: a header line
// {"format":"mwallet-sim-recording","version":1,"config":{...}}, one line
// per input ({"seq","clock","op",...}), and a last line {"op":"end",
// "clock","digest"} with the clock and the state digest when the recording
// was taken. The simulator's
// README describes every field. A recording holds every request as it was
// received, credentials, tokens, signatures and bodies included: it is as
// sensitive as the test data sent to the simulator.
type Recording struct {
	header recordingHeader
	inputs []*recordedInput
	end    time.Time // the clock when the recording was taken
	digest string    // the state digest then ("" when not known)
}

// Len returns the number of inputs in the recording.
func (r *Recording) Len() int { return len(r.inputs) }

// WriteTo writes the recording in its file format.
func (r *Recording) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: bufio.NewWriterSize(w, 64<<10)}
	enc := json.NewEncoder(cw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r.header); err != nil {
		return cw.n, err
	}
	for _, in := range r.inputs {
		if err := enc.Encode(in); err != nil {
			return cw.n, err
		}
	}
	last := recordedInput{Op: opEnd, Clock: r.end, Digest: r.digest}
	if n := len(r.inputs); n > 0 {
		last.Seq = r.inputs[n-1].Seq
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

// WriteFile writes the recording to a file (mode 0600: it holds the
// simulator's credentials and everything sent to it).
func (r *Recording) WriteFile(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := r.WriteTo(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// ReadRecording reads a recording in its file format.
func ReadRecording(rd io.Reader) (*Recording, error) {
	br := bufio.NewReaderSize(rd, 64<<10)
	line, err := readLine(br)
	if err != nil {
		return nil, fmt.Errorf("simulator: recording: header: %w", err)
	}
	var rec Recording
	if err := json.Unmarshal(line, &rec.header); err != nil {
		return nil, fmt.Errorf("simulator: recording: header: %w", err)
	}
	if err := rec.header.check(); err != nil {
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
		in := &recordedInput{}
		if err := json.Unmarshal(line, in); err != nil {
			return nil, fmt.Errorf("simulator: recording: line %d: %w", n, err)
		}
		if in.Op == opEnd {
			rec.end, rec.digest = in.Clock, in.Digest
			continue
		}
		if want := int64(len(rec.inputs) + 1); in.Seq != want {
			return nil, fmt.Errorf("simulator: recording: line %d: seq %d, want %d", n, in.Seq, want)
		}
		rec.inputs = append(rec.inputs, in)
	}
	return &rec, nil
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

// ReadRecordingFile reads a recording file (as Recording.WriteFile, GET
// /_sim/recording or a failed simtest test writes it).
func ReadRecordingFile(path string) (*Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadRecording(f)
}

func (h recordingHeader) check() error {
	if h.Format != recordingFormat {
		return fmt.Errorf("simulator: not a recording (format %q, want %q)", h.Format, recordingFormat)
	}
	if h.Version < 1 || h.Version > recordingVersion {
		return fmt.Errorf("simulator: recording version %d: this simulator reads version %d", h.Version, recordingVersion)
	}
	return nil
}

// Recording returns the simulator's input log since it started (with a
// data directory: since the directory was created, across restarts).
// Started from it (WithRecording), a simulator reaches the same state.
// Without a data directory the log is kept in memory, up to
// WithRecordingLimit (128 MiB of requests by default); past that Recording
// returns an error. Control API: GET /_sim/recording.
func (s *Simulator) Recording() (*Recording, error) { return s.recording(true) }

// recordingPoint is where the log stands at one instant, with the state
// then.
type recordingPoint struct {
	hdr     recordingHeader
	end     time.Time
	digest  string // "" when not asked for
	chunks  [][]byte
	n       int
	dropped int64
	st      *store
	limit   int64 // the store's log size then
	seq     int64
}

// point takes the recording's point: with digest, the state is hashed at
// that same instant (no input runs meanwhile).
func (s *Simulator) point(digest bool) (recordingPoint, error) {
	var p recordingPoint
	s.inputs.Lock()
	s.mu.Lock()
	defer s.inputs.Unlock()
	defer s.mu.Unlock()
	p.end = s.clock.Now()
	if digest {
		img, err := s.encodeImage()
		if err != nil {
			return p, err
		}
		p.digest = digestOf(img)
	}
	r := s.rec
	r.mu.Lock()
	p.hdr = recordingHeader{Format: recordingFormat, Version: recordingVersion, Config: r.cfg}
	p.st, p.dropped, p.seq = r.store, r.dropped, r.seq
	p.chunks, p.n = r.mem.view()
	r.mu.Unlock()
	if p.st != nil {
		p.st.mu.Lock()
		p.limit = p.st.written
		p.st.mu.Unlock()
	}
	return p, nil
}

func (s *Simulator) recording(digest bool) (*Recording, error) {
	p, err := s.point(digest)
	if err != nil {
		return nil, err
	}
	var inputs []*recordedInput
	switch {
	case p.st != nil:
		inputs, err = p.st.readInputs(p.limit)
	case p.dropped > 0:
		err = errRecordingLimit
	default:
		inputs, err = decodeChunks(p.chunks, p.n)
	}
	if err != nil {
		return nil, err
	}
	return &Recording{header: p.hdr, inputs: inputs, end: p.end, digest: p.digest}, nil
}

// WithRecording starts the simulator from a recording: it is built with the
// recording's configuration (model, environment, credentials, start, seed,
// members; the options that set these are ignored) and every input of the
// recording is run again in order, without network calls (webhook attempts
// get the receiver answers recorded). New returns an error when the replay
// does not log the same inputs as the recording, or ends in a state whose
// digest is not the recording's (the recording comes from a simulator that
// behaves differently). The simulator then records on from there.
//
// What was in progress when the recording was taken is then completed: a
// request waiting in a delay fault runs its handler (its answer goes
// nowhere), and a webhook flush that had not recorded every attempt gives
// the rest back to the next flush.
func WithRecording(r *Recording) Option { return func(o *options) { o.recording = r } }

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
	if same {
		switch w.Op {
		case opHTTP:
			same = got.Method == w.Method && got.Target == w.Target
		case opResume:
			same = got.Of == w.Of
		case opCall:
			same = got.Call == w.Call
		case opAdvance:
			same = got.To.Equal(w.To)
		case opAttempt:
			same = got.Delivery == w.Delivery
		case opBase:
			same = got.URL == w.URL
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
	case opHTTP:
		return in.Method + " " + in.Target
	case opResume:
		return fmt.Sprintf("resume of input %d", in.Of)
	case opCall:
		return "call " + in.Call
	case opAdvance:
		return "advance to " + in.To.UTC().Format(time.RFC3339Nano)
	case opAttempt:
		return "webhook attempt of " + in.Delivery
	case opBase:
		return "served at " + in.URL
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
	s.rec.mu.Lock()
	if s.rec.replay == nil {
		s.rec.replay = &replayCheck{}
	}
	chk := s.rec.replay
	if chk.err != nil {
		s.rec.mu.Unlock()
		return chk.err
	}
	chk.want = in
	s.rec.mu.Unlock()

	// An advance that ran nothing was not logged: the input's clock
	// reading brings the clock there.
	s.mu.Lock()
	if now := s.clock.Now(); in.Clock.After(now) {
		s.advanceLocked(in.Clock.Sub(now))
	}
	s.mu.Unlock()

	var w *replayWriter
	var err error
	switch in.Op {
	case opHTTP:
		w, err = p.http(in)
	case opResume:
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
	case opCall:
		err = p.call(in)
	case opAdvance:
		err = s.advanceTo(in.To)
	case opFlushDue:
		err = s.flushDueInput()
	case opAttempt:
		err = s.attemptInput(in.Delivery, in.At, in.StatusCode, in.Response, in.Error)
	case opFlushAbort:
		err = s.flushAbortInput(in.Deliveries)
	case opBase:
		// The recorded simulator's address: answers built from it (links)
		// are the same in the replay.
		s.replayBase = in.URL
		_, err = s.lockInput(&recordedInput{Op: opBase, URL: in.URL})
		if err == nil {
			s.mu.Unlock()
		}
	default:
		err = fmt.Errorf("simulator: replay: input %d: unknown op %q", in.Seq, in.Op)
	}

	s.rec.mu.Lock()
	if chk.err != nil {
		err = chk.err
	} else if err == nil && chk.want != nil {
		chk.err = fmt.Errorf("simulator: replay diverges at input %d: the recording has %s, the replay logged nothing", in.Seq, describeInput(in))
		err = chk.err
	}
	chk.want = nil
	s.rec.mu.Unlock()
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
		body = io.MultiReader(body, &errReader{errors.New("the recorded request body failed here")})
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
	fn, err := p.s.controlMethod(in.Call)
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
		if fx, ok := v.Interface().(replayArg); ok {
			fx.replayArg()
		}
		args[i] = v.Elem()
	}
	if t.IsVariadic() {
		fn.CallSlice(args)
	} else {
		fn.Call(args)
	}
	return nil
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

// controlMethod finds a method of the Go control API by its recorded name:
// "Field.Method" for the control types, "Method" for *Simulator.
func (s *Simulator) controlMethod(name string) (reflect.Value, error) {
	field, method, ok := strings.Cut(name, ".")
	v := reflect.ValueOf(s)
	if ok {
		f := v.Elem().FieldByName(field)
		if !f.IsValid() || field == "" || field[0] < 'A' || field[0] > 'Z' {
			return reflect.Value{}, fmt.Errorf("simulator: replay: no control field %q", field)
		}
		v = f
	} else {
		method = field
	}
	m := v.MethodByName(method)
	if !m.IsValid() {
		return reflect.Value{}, fmt.Errorf("simulator: replay: no control method %q", name)
	}
	return m, nil
}

// finishReplay ends a replay: the simulator records live from now on, then
// completes what the recording left in progress (requests waiting in a
// delay run their handler; deliveries a flush left in flight go back to
// pending). Both are logged as inputs.
func (p *replayer) finish() {
	s := p.s
	s.rec.mu.Lock()
	s.rec.replay = nil
	s.rec.mu.Unlock()
	s.replayBase = ""
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
	s.inputs.Lock()
	s.mu.Lock()
	var ids []string
	for _, d := range s.webhookStateLocked().created {
		if d.inFlight {
			ids = append(ids, d.ID)
		}
	}
	s.mu.Unlock()
	s.inputs.Unlock()
	if len(ids) > 0 {
		_ = s.flushAbortInput(ids)
	}
	s.mu.Lock()
	s.kickAutoDeliveryLocked()
	s.mu.Unlock()
}

// replayRecording runs a recording on s (just built from its
// configuration) and brings the clock to where the recording ended.
func (s *Simulator) replayRecording(r *Recording) error {
	p := newReplayer(s)
	err := p.run(r.inputs)
	if err != nil {
		p.abandon()
		return err
	}
	s.mu.Lock()
	if now := s.clock.Now(); r.end.After(now) {
		s.advanceLocked(r.end.Sub(now))
	}
	var got string
	if r.digest != "" {
		img, err := s.encodeImage()
		if err != nil {
			s.mu.Unlock()
			p.abandon()
			return err
		}
		got = digestOf(img)
	}
	s.mu.Unlock()
	if got != r.digest {
		p.abandon()
		return fmt.Errorf("simulator: the replay logged the recorded inputs but reached another state (digest %s, the recording's %s): the recording comes from a simulator that behaves differently", got, r.digest)
	}
	p.finish()
	s.rec.mu.Lock()
	st := s.rec.store
	s.rec.mu.Unlock()
	if st != nil {
		// Replayed into a data directory: one sync for all of it.
		st.mu.Lock()
		end := st.written
		st.mu.Unlock()
		return st.durable(end)
	}
	return nil
}

// abandon lets the requests parked by a failed replay finish, so no
// goroutine is left waiting.
func (p *replayer) abandon() {
	p.s.rec.mu.Lock()
	p.s.rec.replay = nil
	p.s.rec.mu.Unlock()
	for _, h := range p.waiting {
		close(h.release)
		<-h.done
	}
	p.waiting = nil
	p.stop()
	p.s.replayBase = ""
}
