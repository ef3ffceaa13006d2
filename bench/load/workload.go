package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"golang.org/x/time/rate"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
)

// opKind is one kind of operation a client performs.
type opKind int

const (
	opDeposit    opKind = iota // POST /v1/deposits
	opQR                       // a QR payment through step-up, completed by the acquirer (control API)
	opRemittance               // POST /v1/remittances
	opTopUp                    // a card top-up, credited by the issuer (control API)
	opRead                     // one business read
	numOps
)

var opNames = [numOps]string{"deposit", "qr", "remittance", "topup", "read"}

func (k opKind) String() string { return opNames[k] }

// parseMix reads "deposit=3,qr=1,..." into weights per kind.
func parseMix(s string) ([numOps]int, error) {
	var w [numOps]int
	total := 0
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, val, ok := strings.Cut(part, "=")
		n, err := strconv.Atoi(val)
		if !ok || err != nil || n < 0 {
			return w, fmt.Errorf("-mix: %q: want name=weight, a weight a whole number >= 0", part)
		}
		k := -1
		for i, o := range opNames {
			if o == name {
				k = i
			}
		}
		if k < 0 {
			return w, fmt.Errorf("-mix: unknown operation %q (want %s)", name, strings.Join(opNames[:], ", "))
		}
		w[k] = n
		total += n
	}
	if total == 0 {
		return w, errors.New("-mix: every weight is zero")
	}
	return w, nil
}

// pick draws a kind with the weights w.
func pick(w *[numOps]int, total int, rng *rand.Rand) opKind {
	n := rng.IntN(total)
	for k := range numOps {
		if n < w[k] {
			return k
		}
		n -= w[k]
	}
	return numOps - 1
}

// member is a member a client writes for, with the USDT available to it
// after the setup (in millionths).
type member struct {
	ext      string
	id       string // mem_<uuid>
	payee    string // a GBP payee
	baseline int64
}

// write is a money-moving call: what was sent and what its answer said.
type write struct {
	kind   opKind
	member *member
	key    string
	ref    string // deposit reference
	thb    string // QR payment amount, THB
	card   string // card of a top-up
	payout string // remittance payout, GBP
	// amount is in USDT millionths: the deposit's amount, the top-up's
	// base amount, or, from the answer, the QR payment's customer total
	// and the remittance's locked amount.
	amount int64
	id     string
}

// opStats counts the outcomes of the clients' operations.
type opStats struct {
	mu       sync.Mutex
	ok       [numOps]int
	unknown  [numOps]int
	stepUps  int
	refusals map[string]int     // "kind code"
	reasons  map[string]*reason // by code and message with its numbers left out
	controls map[string]int     // control calls of the workload that failed, "path-kind status code"
	now      func() time.Time
}

// reason is one refusal message, its numbers aside: how often and when it
// was given, and its first text.
type reason struct {
	Code        string
	Count       int
	First, Last time.Time
	Example     string
}

func newOpStats() *opStats {
	return &opStats{refusals: map[string]int{}, reasons: map[string]*reason{}, controls: map[string]int{}, now: time.Now}
}

// digits matches the numbers a message varies by (seconds to wait, ids).
var digits = regexp.MustCompile(`[0-9]+`)

func (s *opStats) refused(k opKind, err error) {
	code := string(mwallet.CodeOf(err))
	if code == "" {
		code = "error"
	}
	msg := err.Error()
	var ae *mwallet.Error
	if errors.As(err, &ae) {
		msg = ae.Message
		if ae.RetryDelay > 0 {
			msg += fmt.Sprintf(" (Retry-After %s)", ae.RetryDelay)
		}
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refusals[k.String()+" "+code]++
	rk := code + " " + digits.ReplaceAllString(msg, "N")
	r := s.reasons[rk]
	if r == nil {
		r = &reason{Code: code, First: now, Example: msg}
		s.reasons[rk] = r
	}
	r.Count++
	r.Last = now
}

func (s *opStats) controlFailed(what string, err error) {
	key := what + " " + err.Error()
	var ce *controlError
	if errors.As(err, &ce) {
		key = fmt.Sprintf("%s %d %s", what, ce.Status, ce.Code)
	}
	s.mu.Lock()
	s.controls[key]++
	s.mu.Unlock()
}

// refusalsByCode sums refusals by code over the kinds.
func (s *opStats) refusalsByCode() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for k, v := range s.refusals {
		_, code, _ := strings.Cut(k, " ")
		out[code] += v
	}
	return out
}

// workload is the clients and what they share.
type workload struct {
	clients []*client
	weights [numOps]int
	total   int
	peak    bool
	limiter *rate.Limiter
	stats   *opStats
	ctl     *controlClient // the monitor's control client (setup, audit)
}

// client is one SDK client with its own Key and connections.
type client struct {
	id      int
	c       *mwclient.Client
	ctl     *controlClient // on the client's own connections
	members []*member
	card    string
	cardOf  *member
	rng     *rand.Rand
	run     string // the run's id, in references
	n       int

	mu      sync.Mutex
	writes  []*write
	pending []*write // sent, outcome unknown: resent with their keys before the audit

	// the last objects written, for reads
	lastRef, lastQR, lastRem string
	lastQRm, lastRemM        *member
}

// setupConfig is what setup needs.
type setupConfig struct {
	base, token     string
	clients         int
	members         int
	weights         [numOps]int
	peak            bool
	rate            float64
	runID           string
	rec             *recorder
	logs            *logCounter
	ctl             *controlClient
	setupConcurrent int
}

// setup creates the clients: a Key each (copying the scopes of the
// simulator's own Key), their members (USDT 1,000,000 each, KYC level 2),
// a GBP payee per member, and a card when top-ups are in the mix; then
// reads the balances the audit starts from.
func setup(ctx context.Context, cfg setupConfig) (*workload, error) {
	var creds struct {
		ClientID string `json:"client_id"`
	}
	if err := cfg.ctl.call(ctx, http.MethodGet, "/_sim/credentials", nil, &creds); err != nil {
		return nil, fmt.Errorf("the simulator's credentials: %w", err)
	}
	var own struct {
		Scopes   []string `json:"requested_scopes"`
		Approved bool     `json:"restricted_approved"`
	}
	if err := cfg.ctl.call(ctx, http.MethodGet, "/_sim/keys/"+creds.ClientID, nil, &own); err != nil {
		return nil, fmt.Errorf("the simulator's Key: %w", err)
	}
	w := &workload{weights: cfg.weights, peak: cfg.peak, stats: newOpStats(), ctl: cfg.ctl}
	if cfg.peak {
		w.weights = [numOps]int{opDeposit: 1}
	}
	for _, v := range w.weights {
		w.total += v
	}
	if cfg.rate > 0 {
		w.limiter = rate.NewLimiter(rate.Limit(cfg.rate), max(1, cfg.clients/4))
	}
	w.clients = make([]*client, cfg.clients)
	sem := make(chan struct{}, max(1, cfg.setupConcurrent))
	var wg sync.WaitGroup
	var first onceErr
	for i := range cfg.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			c, err := newClient(ctx, cfg, i, own.Scopes, own.Approved, w.weights[opTopUp] > 0)
			if err != nil {
				first.set(fmt.Errorf("client %d: %w", i, err))
				return
			}
			w.clients[i] = c
		}()
	}
	wg.Wait()
	if err := first.get(); err != nil {
		return nil, err
	}
	return w, nil
}

func newClient(ctx context.Context, cfg setupConfig, i int, scopes []string, approved bool, card bool) (*client, error) {
	hc := newHTTPClient(cfg.rec, 4)
	ctl := &controlClient{base: cfg.base, token: cfg.token, hc: hc}
	var key struct {
		ClientID   string `json:"client_id"`
		APIKey     string `json:"api_key"`
		SigningKey string `json:"signing_key"`
	}
	body := map[string]any{"scopes": scopes, "approve_restricted": approved}
	if err := ctl.call(ctx, http.MethodPost, "/_sim/keys", body, &key); err != nil {
		return nil, fmt.Errorf("a Key: %w", err)
	}
	c, err := mwclient.New(cfg.base, mwallet.Credentials{ClientID: key.ClientID, APIKey: mwallet.Secret(key.APIKey), SigningKey: mwallet.Secret(key.SigningKey)},
		mwallet.WithHTTPClient(hc), mwallet.WithLogger(cfg.logs.logger()))
	if err != nil {
		return nil, err
	}
	cl := &client{id: i, c: c, ctl: ctl, rng: rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano()))), run: cfg.runID}
	for j := range cfg.members {
		m := &member{ext: fmt.Sprintf("load-%s-c%d-m%d", cfg.runID, i, j)}
		seed := map[string]any{"external_member_id": m.ext, "kyc_level": 2, "balances": map[string]string{"USDT": "1000000"}}
		var made struct {
			ID string `json:"id"`
		}
		if err := ctl.call(ctx, http.MethodPost, "/_sim/members", seed, &made); err != nil {
			return nil, fmt.Errorf("member %s: %w", m.ext, err)
		}
		m.id = made.ID
		if !cfg.peak {
			for p, err := range c.Remittances.Payees(ctx, m.ext, mwallet.ListParams{}) {
				if err != nil {
					return nil, fmt.Errorf("payees of %s: %w", m.ext, err)
				}
				if p.Currency == "GBP" && m.payee == "" {
					m.payee = p.ID
				}
			}
			if m.payee == "" {
				return nil, fmt.Errorf("member %s has no GBP payee", m.ext)
			}
		}
		cl.members = append(cl.members, m)
	}
	if card {
		m := cl.members[0]
		app, err := c.Cards.Apply(ctx, m.ext, cards.ApplyParams{ClientKey: cards.NewClientKey(), SourceAsset: "USDT", ProductID: "cpd_virtual_std"})
		if err != nil {
			return nil, fmt.Errorf("card application: %w", err)
		}
		if err := ctl.call(ctx, http.MethodPost, "/_sim/cards/applications/"+app.ID+"/approve", nil, nil); err != nil {
			return nil, fmt.Errorf("card approval: %w", err)
		}
		if app, err = c.Cards.GetApplication(ctx, m.ext, app.ID); err != nil || app.CardID == "" {
			return nil, fmt.Errorf("card application after approval: %+v, %v", app, err)
		}
		cl.card, cl.cardOf = app.CardID, m
	}
	for _, m := range cl.members {
		if m.baseline, err = ctl.usdtAvailable(ctx, m.ext); err != nil {
			return nil, fmt.Errorf("balance of %s: %w", m.ext, err)
		}
	}
	return cl, nil
}

// runClients runs every client until stop ends; each finishes the
// operation it is in.
func (w *workload) runClients(stop context.Context) {
	var wg sync.WaitGroup
	for _, c := range w.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for stop.Err() == nil {
				if w.limiter != nil && w.limiter.Wait(stop) != nil {
					return
				}
				c.do(w, pick(&w.weights, w.total, c.rng))
			}
		}()
	}
	wg.Wait()
}

// do performs one operation of kind k. It runs to its end whatever the
// run's stop: a write the tool gave up on would be an unknown outcome.
func (c *client) do(w *workload, k opKind) {
	ctx := context.Background()
	if k == opRead {
		c.read(ctx, w)
		return
	}
	if k == opTopUp && c.card == "" {
		k = opDeposit
	}
	wr := c.newWrite(k)
	err := c.send(ctx, w, wr)
	switch {
	case err == nil:
		w.stats.mu.Lock()
		w.stats.ok[k]++
		w.stats.mu.Unlock()
		c.mu.Lock()
		c.writes = append(c.writes, wr)
		c.mu.Unlock()
		c.finish(ctx, w, wr)
	case errors.Is(err, mwallet.ErrOutcomeUnknown):
		w.stats.mu.Lock()
		w.stats.unknown[k]++
		w.stats.mu.Unlock()
		c.mu.Lock()
		c.pending = append(c.pending, wr)
		c.mu.Unlock()
	default:
		w.stats.refused(k, err)
	}
}

func (c *client) newWrite(k opKind) *write {
	c.n++
	wr := &write{kind: k, member: c.members[c.rng.IntN(len(c.members))], key: uuid.NewString()}
	switch k {
	case opDeposit:
		// 0.01 to 0.50 USDT: the merchant's daily deposit limit (250,000
		// USDT over all members) lasts a million deposits.
		wr.ref = fmt.Sprintf("load-%s-%d-%d", c.run, c.id, c.n)
		wr.amount = int64(1+c.rng.IntN(50)) * 10_000
	case opQR:
		// A custom-amount PromptPay code: 40.00 to 99.99 THB, 1.16 to
		// 2.90 USD, so 1,000 payments per member within the daily limit
		// of 3,000 USD.
		wr.thb = fmt.Sprintf("%d.%02d", 40+c.rng.IntN(60), c.rng.IntN(100))
	case opRemittance:
		// 8.00 to 11.99 GBP, about 12 to 17 USDT with the fee: 600 orders
		// per member within the daily limit of 10,000 USDT.
		wr.payout = fmt.Sprintf("%d.%02d", 8+c.rng.IntN(4), c.rng.IntN(100))
	case opTopUp:
		wr.member, wr.card, wr.amount = c.cardOf, c.card, 10_000_000 // 10 USDT, the minimum
	}
	return wr
}

// send makes the write's call with its key and records what the answer
// says; a QR payment is asked for step-up first, which the end user
// completes (the control API), and is then sent again with the challenge.
func (c *client) send(ctx context.Context, w *workload, wr *write) error {
	key := mwallet.WithIdempotencyKey(wr.key)
	switch wr.kind {
	case opDeposit:
		d, err := c.c.Deposits.Create(ctx, wr.member.ext, deposits.CreateParams{Asset: "USDT", Amount: mustMicros(wr.amount), Reference: wr.ref}, key)
		if err != nil {
			return err
		}
		wr.id = d.ID
	case opQR:
		opts := []mwallet.CallOption{key}
		for range 3 {
			o, err := c.c.QRPay.Pay(ctx, wr.member.ext, qrpay.PayParams{CodeValue: sampleqr.PromptPayCustom, Currency: "THB", Amount: wr.thb}, opts...)
			if su, ok := mwallet.AsStepUp(err); ok {
				w.stats.mu.Lock()
				w.stats.stepUps++
				w.stats.mu.Unlock()
				if err := c.ctl.call(ctx, http.MethodPost, "/_sim/step-up/"+su.ChallengeID+"/complete", nil, nil); err != nil {
					w.stats.controlFailed("step-up complete", err)
					return &mwallet.TransportError{Err: err} // the payment was not made: try again later
				}
				opts = append([]mwallet.CallOption{key}, su.Options()...)
				continue
			}
			if err != nil {
				return err
			}
			total, err := amountMicros(o.CustomerTotal)
			if err != nil {
				return err
			}
			wr.id, wr.amount = o.ID, total
			return nil
		}
		return errors.New("step-up asked for three times")
	case opRemittance:
		r, err := c.c.Remittances.Create(ctx, wr.member.ext, remittance.CreateParams{PayeeID: wr.member.payee, PayoutAmount: wr.payout, PayoutCurrency: "GBP",
			SlippageBps: 100, PurposeCode: remittance.PurposeFamilySupport}, key)
		if err != nil {
			return err
		}
		wr.id = r.ID
		if r.Quote != nil {
			if wr.amount, err = amountMicros(r.Quote.LockedAmount); err != nil {
				return err
			}
		}
	case opTopUp:
		t, err := c.c.Cards.TopUp(ctx, wr.member.ext, wr.card, cards.TopUpParams{Amount: mustMicros(wr.amount), SourceAsset: "USDT"}, key)
		if err != nil {
			return err
		}
		wr.id = t.ID
	}
	return nil
}

// finish plays the other party of an answered write: the acquirer
// completes a QR payment, the issuer credits a top-up.
func (c *client) finish(ctx context.Context, w *workload, wr *write) {
	var path string
	switch wr.kind {
	case opQR:
		path = "/_sim/qrpay/orders/" + wr.id + "/complete"
		c.mu.Lock()
		c.lastQR, c.lastQRm = wr.id, wr.member
		c.mu.Unlock()
	case opTopUp:
		path = "/_sim/cards/topups/" + wr.id + "/credit"
	case opDeposit:
		c.mu.Lock()
		c.lastRef = wr.ref
		c.mu.Unlock()
	case opRemittance:
		c.mu.Lock()
		c.lastRem, c.lastRemM = wr.id, wr.member
		c.mu.Unlock()
	}
	if path == "" {
		return
	}
	if err := c.ctl.call(ctx, http.MethodPost, path, nil, nil); err != nil {
		w.stats.controlFailed(wr.kind.String()+" outcome", err)
	}
}

// read makes one business read, in turn: the member, the last deposit,
// QR payment and remittance, the first page of remittances, the assets.
func (c *client) read(ctx context.Context, w *workload) {
	c.mu.Lock()
	ref, qr, qrm, rem, remm := c.lastRef, c.lastQR, c.lastQRm, c.lastRem, c.lastRemM
	c.mu.Unlock()
	m := c.members[c.rng.IntN(len(c.members))]
	var err error
	switch c.rng.IntN(6) {
	case 0:
		_, err = c.c.Members.Get(ctx, m.id)
	case 1:
		if ref != "" {
			_, err = c.c.Deposits.Get(ctx, ref)
			break
		}
		_, err = c.c.Assets(ctx)
	case 2:
		if qr != "" {
			_, err = c.c.QRPay.Order(ctx, qrm.ext, qr)
			break
		}
		_, err = c.c.Assets(ctx)
	case 3:
		if rem != "" {
			_, err = c.c.Remittances.Get(ctx, remm.ext, rem)
			break
		}
		_, err = c.c.Assets(ctx)
	case 4:
		next, stop := iter.Pull2(c.c.Remittances.ListPages(ctx, m.ext, mwallet.ListParams{Limit: 20}))
		_, err, _ = next() // the first page only
		stop()
	default:
		_, err = c.c.Assets(ctx)
	}
	if err != nil {
		w.stats.refused(opRead, err)
		return
	}
	w.stats.mu.Lock()
	w.stats.ok[opRead]++
	w.stats.mu.Unlock()
}

// mustMicros is v millionths of USDT as an amount at USDT's ledger scale.
func mustMicros(v int64) money.Amount {
	a, err := money.FromMinor(v, 6)
	if err != nil {
		panic(err)
	}
	return a
}

// amountMicros is a at six decimals, in millionths.
func amountMicros(a money.Amount) (int64, error) {
	return micros(a.String())
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
