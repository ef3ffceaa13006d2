// Package walk is a seeded random walk over the simulator's business and
// control APIs: long sequences of valid, invalid and faulted requests on
// every endpoint, in the states the earlier requests reached (members,
// deposits, QR payments with step-up, card applications, activation,
// top-ups and transactions, remittances, KYC, webhook endpoints, flushes,
// redeliveries, clock advances, faults, outcomes), signed properly by
// default and deliberately broken sometimes.
//
// The walk sends every request to one or more simulators (targets) and
// compares their answers byte for byte after normalisation (status, every
// header but Date, body; each simulator's own address and the per-process
// state digest read as placeholders): the differential mode runs a build of a pinned commit and the
// working tree's build side by side. The same seed gives the same sequence
// of requests, byte for byte, as long as the first target answers the same
// (the walk learns ids from its answers); Result.RequestDigest shows it.
// Every exchange with the first target, and every webhook delivery, can be
// validated against the OpenAPI documents (Config.Checker).
package walk

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mwallet/mwallet-go/openapi/validate"
	"github.com/mwallet/mwallet-go/simulator"
)

// Config says what to walk and where.
type Config struct {
	// Seed seeds the walk's choices. The simulators must all start the
	// same way (same -seed, -start, and a manual clock) for their answers
	// to be comparable.
	Seed uint64
	// Steps is the number of steps; a step sends one to a few requests.
	Steps int
	// Targets are the simulators' base URLs. The first one is the
	// reference: ids are learned from its answers and its exchanges are
	// validated.
	Targets []string
	// Checker, when set, validates every exchange with the first target
	// and every webhook delivery received.
	Checker *validate.Checker
	// Log, when set, receives one line per request.
	Log io.Writer
	// CompareDate compares the Date header too: for builds that both stamp
	// it with the simulator clock (by default it is left out, see
	// normalise).
	CompareDate bool
	// KeepDiffs caps the differences kept in Result.Diffs (default 200);
	// Result.DiffCount counts them all.
	KeepDiffs int
	// RefusalProbes also sends the control writes whose refusal changed
	// the state of builds before the fix (card transactions that debit):
	// against such a base the states part at the first one, and every
	// answer after it differs, so they are for a base that refuses them
	// cleanly too.
	RefusalProbes bool
}

// Result is what a walk did and found.
type Result struct {
	Seed     uint64
	Steps    int
	Requests int // requests sent to each target
	// RequestDigest is the SHA-256 of every request sent, in order
	// (method, target, headers, body): the same seed gives the same digest
	// while the reference answers the same.
	RequestDigest string
	// PerOperation counts requests per "METHOD /template", and OK those
	// the reference answered 2xx.
	PerOperation map[string]int
	OK           map[string]int
	// Webhooks counts the webhook deliveries received (all targets).
	Webhooks int
	// Diffs are the first differences between the targets' answers.
	Diffs     []Diff
	DiffCount int
	// Books holds, per target, the ledger and invariants check at the
	// end: empty when both hold.
	Books []string
	// Digests holds each target's state digest at the end (GET /_sim/digest).
	Digests []string
	// Slow lists the requests that took more than 2 seconds to answer.
	Slow []string
	// RefusedWrites counts the control writes the working tree's build
	// refused; Leaks lists those that changed its state digest anyway.
	RefusedWrites int
	Leaks         []string
}

// Diff is one request the targets answered differently.
type Diff struct {
	Step, Request int
	// Op is "METHOD /template" of the request.
	Op string
	// Kind is status, header or body: the first part that differs.
	Kind    string
	Sent    string   // the request as sent
	Answers []string // each target's normalised answer
}

// Key groups differences: operation, kind and the statuses.
func (d Diff) Key() string {
	var st []string
	for _, a := range d.Answers {
		s, _, _ := strings.Cut(a, "\n")
		st = append(st, s)
	}
	return d.Op + " " + d.Kind + " (" + strings.Join(st, " | ") + ")"
}

func (d Diff) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "step %d request %d %s: %s differs\n  sent:\n    %s\n", d.Step, d.Request, d.Op, d.Kind, indent(d.Sent))
	at := firstDifference(d.Answers)
	for i, a := range d.Answers {
		if len(a) > 3000 {
			a = window(a, at)
		}
		fmt.Fprintf(&b, "  target %d:\n    %s\n", i, indent(a))
	}
	return b.String()
}

// firstDifference is the byte offset at which the answers first differ
// (the length of the shortest when one is a prefix of the others).
func firstDifference(answers []string) int {
	if len(answers) == 0 {
		return 0
	}
	n := len(answers[0])
	for _, a := range answers[1:] {
		n = min(n, len(a))
	}
	for i := 0; i < n; i++ {
		for _, a := range answers[1:] {
			if a[i] != answers[0][i] {
				return i
			}
		}
	}
	return n
}

// window cuts a long answer to its head and the part around offset at, so
// a difference deep inside a large body is shown.
func window(a string, at int) string {
	if at < 2500 {
		return a[:3000] + fmt.Sprintf("... (%d bytes in all)", len(a))
	}
	from, to := at-300, min(len(a), at+700)
	return a[:1500] + fmt.Sprintf(" ... [%d bytes left out; the answers differ from byte %d] ... ", from-1500, at) + a[from:to] + fmt.Sprintf("... (%d bytes in all)", len(a))
}

func indent(s string) string { return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ") }

// request is one request of the walk, built once and sent to every target.
type request struct {
	op      string // METHOD /template
	method  string
	target  string // escaped path and query
	header  [][2]string
	body    []byte
	hasBody bool
	fault   string // the kind of fault armed for exactly this request
}

func (r *request) set(k, v string) { r.header = append(r.header, [2]string{k, v}) }

func (r *request) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", r.method, r.target)
	for _, h := range r.header {
		fmt.Fprintf(&b, "%s: %s\n", h[0], h[1])
	}
	if r.hasBody {
		b.WriteString("\n")
		b.Write(r.body)
	}
	return b.String()
}

// answer is one target's answer.
type answer struct {
	status  int
	header  http.Header
	body    []byte
	dropped bool
	err     string
	json    map[string]any
}

func (a *answer) str(k string) string {
	v, _ := a.json[k].(string)
	return v
}

func (a *answer) code() string { return a.str("code") }

// stateDigest matches a state digest in an answer (GET /_sim/digest);
// peer matches the client's address in a recorded input (GET
// /_sim/recording/steps/{seq}).
var (
	stateDigest = regexp.MustCompile(`"digest":"sha256:[0-9a-f]{64}"`)
	peer        = regexp.MustCompile(`"remote":"[^"]*"`)
)

// normalise is the text an answer is compared by: the status, every header
// but Date, and the body, with the target's own base URL replaced by
// {base} and a state digest by sha256:{process}. Date follows the wall
// clock in builds before the simulator clock stamped it, and two processes
// never answer in the same second for sure; the base URL differs because
// two simulators cannot share a port, and answers carry links built from it
// (hosted step-up and KYC screens), and recorded inputs show it as the
// Host header; the client's own address (the walk's ephemeral port) shows
// in recorded inputs as {peer}; the state digest covers the
// idempotency records' body digests, keyed by a key that builds before
// 2026-11-27 drew from crypto/rand in each process (gateway.go, bodyKey:
// kept in the recording, so a replay reaches the same digest, but two
// fresh processes of those builds never do; later builds derive it from
// the seed).
func normalise(a *answer, base string, compareDate bool) string {
	if a.dropped {
		return "dropped: " + a.err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n", a.status)
	keys := make([]string, 0, len(a.header))
	for k := range a.header {
		if k != "Date" || compareDate {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(a.header[k], ", "))
	}
	b.WriteString("\n")
	body := bytes.ReplaceAll(a.body, []byte(base), []byte("{base}"))
	if host, ok := strings.CutPrefix(base, "http://"); ok {
		body = bytes.ReplaceAll(body, []byte(`"`+host+`"`), []byte(`"{host}"`))
	}
	body = peer.ReplaceAll(body, []byte(`"remote":"{peer}"`))
	b.Write(stateDigest.ReplaceAll(body, []byte(`"digest":"sha256:{process}"`)))
	return b.String()
}

func diffKind(x, y string) string {
	xs, xr, _ := strings.Cut(x, "\n")
	ys, yr, _ := strings.Cut(y, "\n")
	if xs != ys {
		return "status"
	}
	xh, _, _ := strings.Cut(xr, "\n\n")
	yh, _, _ := strings.Cut(yr, "\n\n")
	if xh != yh {
		return "header"
	}
	return "body"
}

// walker holds one walk.
type walker struct {
	ctx     context.Context
	cfg     Config
	rng     *rand.Rand
	hc, raw *http.Client // raw: no keep-alive, for requests armed with a drop fault
	res     *Result
	sum     hash.Hash
	step    int
	recv    *receiver
	m       model
}

// Run runs one walk. It returns an error when a target cannot be reached
// at all; differences, violations and books are in the Result.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if len(cfg.Targets) == 0 {
		return nil, errors.New("walk: no target")
	}
	if cfg.KeepDiffs == 0 {
		cfg.KeepDiffs = 200
	}
	for i, t := range cfg.Targets {
		cfg.Targets[i] = strings.TrimSuffix(t, "/")
	}
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	w := &walker{
		ctx: ctx, cfg: cfg,
		rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		hc: &http.Client{Timeout: 60 * time.Second, CheckRedirect: noRedirect,
			Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4}},
		raw: &http.Client{Timeout: 60 * time.Second, CheckRedirect: noRedirect,
			Transport: &http.Transport{DisableCompression: true, DisableKeepAlives: true}},
		res: &Result{Seed: cfg.Seed, PerOperation: map[string]int{}, OK: map[string]int{}},
		sum: sha256.New(),
	}
	defer w.hc.CloseIdleConnections()
	recv, err := startReceiver(cfg.Checker)
	if err != nil {
		return nil, err
	}
	defer recv.close()
	w.recv = recv
	if err := w.setup(); err != nil {
		return w.res, err
	}
	for w.step = 1; w.step <= cfg.Steps; w.step++ {
		if err := ctx.Err(); err != nil {
			return w.res, err
		}
		w.res.Steps = w.step
		w.walkStep()
	}
	w.finish()
	w.res.RequestDigest = hex.EncodeToString(w.sum.Sum(nil))
	w.res.Webhooks = recv.count()
	return w.res, nil
}

// send sends r to every target, compares the answers and returns the
// reference's.
func (w *walker) send(r *request) *answer {
	w.res.Requests++
	w.res.PerOperation[r.op]++
	txt := r.text()
	// The receiver's port is the one thing of the walk's own that varies
	// from run to run: the digest reads it as {receiver}.
	stable := strings.ReplaceAll(txt, w.recv.url, "{receiver}")
	fmt.Fprintf(w.sum, "%d\n%s\n", len(stable), stable)
	answers := make([]*answer, len(w.cfg.Targets))
	norm := make([]string, len(w.cfg.Targets))
	var wg sync.WaitGroup
	began := time.Now()
	for i, base := range w.cfg.Targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = w.do(base, r)
			norm[i] = normalise(answers[i], base, w.cfg.CompareDate)
		}()
	}
	wg.Wait()
	if took := time.Since(began); took > 2*time.Second {
		w.res.Slow = append(w.res.Slow, fmt.Sprintf("step %d request %d %s took %s: %.200s", w.step, w.res.Requests, r.op, took.Round(time.Millisecond), txt))
	}
	for i := 1; i < len(norm); i++ {
		if norm[i] != norm[0] {
			w.res.DiffCount++
			if len(w.res.Diffs) < w.cfg.KeepDiffs {
				w.res.Diffs = append(w.res.Diffs, Diff{Step: w.step, Request: w.res.Requests, Op: r.op,
					Kind: diffKind(norm[0], norm[i]), Sent: txt, Answers: norm})
			}
			break
		}
	}
	a := answers[0]
	if a.status >= 200 && a.status < 300 {
		w.res.OK[r.op]++
	}
	if w.cfg.Log != nil {
		fmt.Fprintf(w.cfg.Log, "%6d %6d %-52s %d %s %.80s\n", w.step, w.res.Requests, r.op, a.status, a.code(), a.str("message"))
	}
	if w.cfg.Checker != nil {
		w.recv.mu.Lock()
		w.cfg.Checker.Check(w.ctx, exchange(r, a), fmt.Sprintf("seed %d step %d request %d", w.cfg.Seed, w.step, w.res.Requests))
		w.recv.mu.Unlock()
	}
	return a
}

func (w *walker) do(base string, r *request) *answer {
	var body io.Reader
	if r.hasBody {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(w.ctx, r.method, base+r.target, body)
	if err != nil {
		return &answer{dropped: true, err: err.Error(), json: map[string]any{}}
	}
	for _, h := range r.header {
		req.Header.Add(h[0], h[1])
	}
	hc := w.hc
	if strings.HasPrefix(r.fault, "drop") {
		hc = w.raw
	}
	resp, err := hc.Do(req)
	if err != nil {
		// The error text names the address: keep only its class.
		msg := "transport error"
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "EOF") {
			msg = "connection closed without an answer"
		}
		return &answer{dropped: true, err: msg, json: map[string]any{}}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return &answer{dropped: true, err: "answer cut: " + err.Error(), json: map[string]any{}}
	}
	a := &answer{status: resp.StatusCode, header: resp.Header, body: b}
	if json.Unmarshal(b, &a.json) != nil || a.json == nil {
		a.json = map[string]any{}
	}
	return a
}

// exchange is the exchange as the simulator's exchange log would hold it.
func exchange(r *request, a *answer) *simulator.Exchange {
	h := http.Header{}
	for _, kv := range r.header {
		h.Add(kv[0], kv[1])
	}
	x := &simulator.Exchange{Kind: "serve", Request: simulator.LoggedMessage{Method: r.method, Target: r.target, Header: h, Body: string(r.body)}, Fault: r.fault}
	if a.dropped {
		x.Dropped = true
		return x
	}
	x.Response = &simulator.LoggedMessage{Status: a.status, Header: a.header, Body: string(a.body)}
	return x
}

// receiver is the webhook receiver of every target: /hook/ok answers 204,
// /hook/fail 500. Each delivery is validated when a checker is set.
type receiver struct {
	srv   *http.Server
	url   string
	check *validate.Checker
	mu    sync.Mutex
	n     int
	seen  map[[32]byte]bool
	ctx   context.Context
}

func startReceiver(c *validate.Checker) (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &receiver{url: "http://" + ln.Addr().String(), check: c, ctx: context.Background(), seen: map[[32]byte]bool{}}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	status := http.StatusNoContent
	if req.URL.Path != "/hook/ok" {
		status = http.StatusInternalServerError
	}
	r.mu.Lock()
	r.n++
	// Every target sends the same bodies, and a retry or a redelivery the
	// same bytes again: each distinct delivery is validated once.
	sum := sha256.Sum256([]byte(req.Header.Get("z-event-type") + "\n" + string(body)))
	if r.check != nil && !r.seen[sum] {
		r.seen[sum] = true
		x := &simulator.Exchange{Kind: "webhook",
			Request:  simulator.LoggedMessage{Method: req.Method, Target: r.url + req.URL.RequestURI(), Header: req.Header.Clone(), Body: string(body)},
			Response: &simulator.LoggedMessage{Status: status, Header: http.Header{}}}
		r.check.Check(r.ctx, x, "webhook "+req.Header.Get("z-event-id"))
	}
	r.mu.Unlock()
	w.WriteHeader(status)
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

func (r *receiver) close() { _ = r.srv.Close() }
