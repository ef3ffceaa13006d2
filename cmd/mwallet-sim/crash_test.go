package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/emvqr"
)

// crashRoundsEnv sets the number of kill -9 points of TestCrashLosesNothing
// (default 3; 0 skips the test). .ci/crash runs it with 25.
const crashRoundsEnv = "MWALLET_CRASH_ROUNDS"

// TestCrashLosesNothing builds mwallet-sim, serves it with -data, and kills
// it with SIGKILL at random points while six clients write concurrently:
// deposits, QR payments (through step-up) and remittances, each with an
// idempotency key of its own. After every restart on the same directory:
// every write a client saw answered 2xx is there with the same id and
// amount, a resend of it with the same key is answered as a replay of it,
// the writes whose answer was lost are resent with their keys and
// answered, the books balance (GET /_sim/ledger) and the invariants hold
// (GET /_sim/invariants).
func TestCrashLosesNothing(t *testing.T) {
	rounds := 3
	if v := os.Getenv(crashRoundsEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("%s=%q", crashRoundsEnv, v)
		}
		rounds = n
	}
	if rounds == 0 || testing.Short() {
		t.Skipf("crash test skipped (-short, or %s=0)", crashRoundsEnv)
	}
	bin := buildSim(t)
	dir := filepath.Join(t.TempDir(), "data")
	addr := freeAddr(t)
	base := "http://" + addr
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))

	srv := startSim(t, bin, addr, dir)
	setupMembers(t, base)
	cl := newCrashClients(t, base)
	var answered, lost, replays, restarts int
	for round := 1; round <= rounds; round++ {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for _, w := range cl.workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w.run(stop)
			}()
		}
		// Let writes flow, then kill in the middle of them.
		time.Sleep(time.Duration(150+rng.IntN(450)) * time.Millisecond)
		srv.kill(t)
		time.Sleep(20 * time.Millisecond)
		close(stop)
		wg.Wait()
		restarts++
		srv = startSim(t, bin, addr, dir)
		a, l, r := cl.verify(t, base)
		answered, lost, replays = a, lost+l, replays+r
		if t.Failed() {
			t.Fatalf("round %d: %s", round, srv.output())
		}
	}
	srv.stop(t)
	t.Logf("%d kill -9 restarts; %d writes answered and kept (checked after every restart), %d resends with the same key answered as replays; %d writes whose answer a kill cut off resent and answered",
		restarts, answered, replays, lost)
}

// buildSim builds mwallet-sim into a temporary directory.
func buildSim(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mwallet-sim")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the crash test builds mwallet-sim with the go command: %v", err)
	}
	out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// simProcess is one mwallet-sim process.
type simProcess struct {
	cmd  *exec.Cmd
	out  *strings.Builder
	mu   *sync.Mutex
	done chan struct{}
}

func (p *simProcess) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// startSim starts mwallet-sim on dir and waits until it answers.
func startSim(t *testing.T, bin, addr, dir string) *simProcess {
	t.Helper()
	cmd := exec.Command(bin, "serve", "-addr", addr, "-data", dir)
	p := &simProcess{cmd: cmd, out: &strings.Builder{}, mu: &sync.Mutex{}, done: make(chan struct{})}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			p.mu.Lock()
			p.out.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
		}
	}()
	go func() {
		_ = cmd.Wait()
		_ = pw.Close()
		close(p.done)
	}()
	t.Cleanup(func() { p.kill(t) })
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get("http://" + addr + "/_sim/clock"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		select {
		case <-p.done:
			t.Fatalf("mwallet-sim exited:\n%s", p.output())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("mwallet-sim did not answer within a minute:\n%s", p.output())
	return nil
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *simProcess) kill(t *testing.T) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// stop interrupts the process (a clean stop) and waits for it.
func (p *simProcess) stop(t *testing.T) {
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Errorf("mwallet-sim did not stop on interrupt")
		p.kill(t)
	}
}

// crashMembers are the members written for: each worker spreads its
// writes over all of them, so daily limits last through long runs.
var crashMembers = func() []string {
	var out []string
	for i := 1; i <= 24; i++ {
		out = append(out, "crash-"+strconv.Itoa(i))
	}
	return out
}()

// crashWorkers is the number of concurrent writers.
const crashWorkers = 6

// setupMembers creates the members the clients write for.
func setupMembers(t *testing.T, base string) {
	t.Helper()
	for _, m := range crashMembers {
		body := `{"external_member_id":"` + m + `","kyc_level":2,"balances":{"USDT":"1000000"}}`
		resp, err := http.Post(base+"/_sim/members", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("member %s: %d", m, resp.StatusCode)
		}
	}
}

// write is one money-moving call and what its client saw.
type write struct {
	kind   string // deposit, qr, remittance
	member string
	key    string
	ref    string // deposit reference
	code   string // QR code value
	payee  string
	amount string // deposit amount, QR customer total, remittance payout
	id     string
	done   bool // answered 2xx
	// replayed is the replay flag of the last 2xx answer; resent is set
	// once a resend after a restart was answered as a replay of it.
	replayed, resent bool
}

// crashClients are the writers and what each saw.
type crashClients struct {
	workers []*crashWorker
	client  *mwclient.Client
}

type crashWorker struct {
	id      int
	c       *mwclient.Client
	base    string
	payees  map[string]string // member -> GBP payee
	rng     *rand.Rand
	mu      sync.Mutex
	writes  []*write
	pending []*write // sent, answer lost: resent with the same key
	n       atomic.Int64
}

func newCrashClients(t *testing.T, base string) *crashClients {
	t.Helper()
	opts := []mwallet.Option{mwallet.WithDefaultMaxAttempts(1), mwallet.WithTokenExchangeLimit(0)}
	c, err := mwclient.New(base, mwallet.Credentials{
		ClientID: simulator.DefaultClientID, APIKey: mwallet.Secret(simulator.DefaultAPIKey), SigningKey: mwallet.Secret(simulator.DefaultSigningKey),
	}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	cl := &crashClients{client: c}
	payees := map[string]string{}
	for _, m := range crashMembers {
		for p, err := range c.Remittances.Payees(context.Background(), m, mwallet.ListParams{}) {
			if err != nil {
				t.Fatal(err)
			}
			if p.Currency == "GBP" {
				payees[m] = p.ID
			}
		}
	}
	for i := range crashWorkers {
		wc, _ := mwclient.New(base, mwallet.Credentials{
			ClientID: simulator.DefaultClientID, APIKey: mwallet.Secret(simulator.DefaultAPIKey), SigningKey: mwallet.Secret(simulator.DefaultSigningKey),
		}, opts...)
		cl.workers = append(cl.workers, &crashWorker{id: i, c: wc, base: base, payees: payees, rng: rand.New(rand.NewPCG(uint64(i), 99))})
	}
	return cl
}

// run writes until stop is closed: first the writes whose answer was
// lost, with their keys, then new ones.
func (w *crashWorker) run(stop chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		w.mu.Lock()
		var wr *write
		if len(w.pending) > 0 {
			wr = w.pending[0]
		} else {
			wr = w.newWrite()
			w.writes = append(w.writes, wr)
			w.pending = append(w.pending, wr)
		}
		w.mu.Unlock()
		err := w.send(context.Background(), wr)
		w.mu.Lock()
		if err == nil || !unknownOutcome(err) {
			// Answered (2xx, or a definite refusal that moved nothing).
			w.pending = w.pending[1:]
		}
		w.mu.Unlock()
		if err != nil && unknownOutcome(err) {
			time.Sleep(5 * time.Millisecond) // the server is down: wait
		}
	}
}

func (w *crashWorker) newWrite() *write {
	n := w.n.Add(1)
	wr := &write{member: crashMembers[w.rng.IntN(len(crashMembers))], key: uuid.NewString()}
	switch w.rng.IntN(3) {
	case 0:
		wr.kind, wr.ref = "deposit", fmt.Sprintf("crash-%d-%d-%s", w.id, n, wr.key[:8])
		wr.amount = money.MustParse(strconv.Itoa(1+w.rng.IntN(500)), 6).String()
	case 1:
		wr.kind, wr.code = "qr", thaiCode(fmt.Sprintf("%d.00", 100+w.rng.IntN(400)), fmt.Sprintf("%d%d", w.id, n))
	default:
		wr.kind, wr.payee, wr.amount = "remittance", w.payees[wr.member], fmt.Sprintf("%d.00", 50+w.rng.IntN(100))
	}
	return wr
}

// send makes the write's call with its key; on 2xx it records the answer.
func (w *crashWorker) send(ctx context.Context, wr *write) error {
	key := mwallet.WithIdempotencyKey(wr.key)
	switch wr.kind {
	case "deposit":
		d, err := w.c.Deposits.Create(ctx, wr.member, deposits.CreateParams{Asset: "USDT", Amount: money.MustParse(wr.amount, 6), Reference: wr.ref}, key)
		if err != nil {
			return err
		}
		w.answered(wr, d.ID, "", d.Response)
	case "qr":
		var opts []mwallet.CallOption
		for range 3 {
			o, err := w.c.QRPay.Pay(ctx, wr.member, qrpay.PayParams{CodeValue: wr.code}, append([]mwallet.CallOption{key}, opts...)...)
			if su, ok := mwallet.AsStepUp(err); ok {
				if err := w.completeStepUp(ctx, su.ChallengeID); err != nil {
					return err
				}
				opts = su.Options()
				continue
			}
			if err != nil {
				return err
			}
			w.answered(wr, o.ID, o.CustomerTotal.String(), o.Response)
			return nil
		}
		return errors.New("step-up kept being asked")
	case "remittance":
		r, err := w.c.Remittances.Create(ctx, wr.member, remittance.CreateParams{PayeeID: wr.payee, PayoutAmount: wr.amount, PayoutCurrency: "GBP",
			SlippageBps: 100, PurposeCode: remittance.PurposeFamilySupport}, key)
		if err != nil {
			return err
		}
		w.answered(wr, r.ID, "", r.Response)
	}
	return nil
}

func (w *crashWorker) answered(wr *write, id, amount string, resp *mwallet.Response) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if wr.done && wr.id != id {
		panic(fmt.Sprintf("%s %s answered %s, then %s", wr.kind, wr.key, wr.id, id))
	}
	wr.done, wr.id, wr.replayed = true, id, resp != nil && resp.Replayed
	if amount != "" {
		wr.amount = amount
	}
}

func (w *crashWorker) completeStepUp(ctx context.Context, id string) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, w.base+"/_sim/step-up/"+id+"/complete", nil)
	req.Header.Set("Content-Type", "application/json") // control writes are JSON
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return &mwallet.TransportError{Err: err}
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &mwallet.TransportError{Err: fmt.Errorf("step-up completion: %d", resp.StatusCode)}
	}
	return nil
}

// unknownOutcome reports an error after which the write may or may not
// have executed: no answer, or an answer that says so.
func unknownOutcome(err error) bool {
	var te *mwallet.TransportError
	if errors.As(err, &te) {
		return true
	}
	// 502 and 504 may have executed; 500 api_error is the contract's
	// answer to a business failure of a payment (a daily limit reached),
	// as definite as a 4xx.
	var ae *mwallet.Error
	if errors.As(err, &ae) {
		return ae.HTTPStatus == http.StatusBadGateway || ae.HTTPStatus == http.StatusGatewayTimeout ||
			ae.Code == mwallet.CodeServiceUnavailable || ae.Code == mwallet.CodeIdempotencyInProgress
	}
	return true
}

// verify checks the restarted simulator against what the clients saw,
// then resends every write whose answer was lost until it is answered. It
// returns the writes answered so far and how many were resent.
func (cl *crashClients) verify(t *testing.T, base string) (answered, resent, replays int) {
	t.Helper()
	ctx := context.Background()
	c := cl.client
	for _, w := range cl.workers {
		w.mu.Lock()
		writes := append([]*write(nil), w.writes...)
		pending := append([]*write(nil), w.pending...)
		w.mu.Unlock()
		for _, wr := range writes {
			if !wr.done {
				continue
			}
			answered++
			var id, amount string
			var err error
			switch wr.kind {
			case "deposit":
				var d *deposits.Deposit
				if d, err = c.Deposits.Get(ctx, wr.ref); err == nil {
					id, amount = d.ID, d.Amount.String()
				}
			case "qr":
				var o *qrpay.Order
				if o, err = c.QRPay.Order(ctx, wr.member, wr.id); err == nil {
					id, amount = o.ID, o.CustomerTotal.String()
				}
			case "remittance":
				var o *remittance.Order
				if o, err = c.Remittances.Get(ctx, wr.member, wr.id); err == nil {
					id, amount = o.ID, o.PayoutAmount
				}
			}
			if err != nil || id != wr.id || amount != wr.amount {
				t.Errorf("answered %s %s (key %s) after the restart: id %q amount %q, %v; want id %q amount %q",
					wr.kind, wr.member, wr.key, id, amount, err, wr.id, wr.amount)
				continue
			}
			// The same key replays it: every write once, after the first
			// restart that follows its answer.
			if wr.resent {
				continue
			}
			before := wr.id
			if err := w.send(ctx, wr); err != nil {
				t.Errorf("resend of answered %s %s: %v", wr.kind, wr.key, err)
			} else if wr.id != before || !wr.replayed {
				t.Errorf("resend of answered %s %s: id %s (first %s), replay %v", wr.kind, wr.key, wr.id, before, wr.replayed)
			}
			wr.resent = true
			replays++
		}
		for _, wr := range pending {
			for attempt := 0; ; attempt++ {
				err := w.send(ctx, wr)
				if err == nil || !unknownOutcome(err) {
					break
				}
				if attempt == 50 {
					t.Errorf("resend of %s %s: %v", wr.kind, wr.key, err)
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			resent++
		}
		w.mu.Lock()
		w.pending = nil
		w.mu.Unlock()
	}
	var ledger struct {
		Balanced bool   `json:"balanced"`
		Error    string `json:"error"`
	}
	getJSON(t, base+"/_sim/ledger", &ledger)
	if !ledger.Balanced {
		t.Errorf("the books do not balance after the restart: %s", ledger.Error)
	}
	var inv struct {
		Hold       bool     `json:"hold"`
		Violations []string `json:"violations"`
	}
	getJSON(t, base+"/_sim/invariants", &inv)
	if !inv.Hold {
		t.Errorf("invariants after the restart: %v", inv.Violations)
	}
	return answered, resent, replays
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
}

// thaiCode is a dynamic PromptPay code for amount THB.
func thaiCode(amount, ref string) string {
	return emvqr.MustBuild(emvqr.Payload{
		PointOfInitiation: "12",
		MerchantAccounts: []emvqr.MerchantAccount{{Tag: "30", GUI: "A000000677010112", Fields: []emvqr.Field{
			{Tag: "01", Value: "010554412345601"}, {Tag: "02", Value: "ORDER" + ref},
		}}},
		MerchantCategoryCode: "5812", Currency: "764", Amount: amount, Country: "TH",
		MerchantName: "BAAN THAI KITCHEN", MerchantCity: "BANGKOK",
	})
}
