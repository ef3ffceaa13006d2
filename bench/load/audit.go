package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
)

// auditResult is what the audit found.
type auditResult struct {
	// Resent counts the writes whose outcome was unknown, resent with their
	// keys and answered; Unresolved those still without an answer.
	Resent, Unresolved int
	// Writes counts the answered writes read back; Bad those missing or
	// read back with another id or amount.
	Writes, Bad int
	// Members counts the members whose balance was checked; BadBalances
	// those whose available USDT is not what their answered writes make it.
	Members, BadBalances int
	// Ledger is GET /_sim/ledger's balanced, Invariants GET
	// /_sim/invariants's hold.
	Ledger, Invariants bool
	Problems           []string // the first problems found
	Took               time.Duration
}

// ok reports whether the audit found nothing wrong.
func (a *auditResult) ok() bool {
	return a.Unresolved == 0 && a.Bad == 0 && a.BadBalances == 0 && a.Ledger && a.Invariants
}

type auditLog struct {
	mu  sync.Mutex
	res *auditResult
}

func (l *auditLog) problem(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.res.Problems) < 20 {
		l.res.Problems = append(l.res.Problems, fmt.Sprintf(format, args...))
	}
}

func (l *auditLog) add(f func(r *auditResult)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f(l.res)
}

// audit resends every write whose outcome is unknown until it is
// answered, then checks, client by client in parallel: every answered
// write is there exactly once with its id and amount (read back through
// the SDK, top-ups through the control API, which alone reads them), each
// member's available USDT is its balance after the setup plus its
// deposits minus its QR payments' customer totals, its remittances' locked
// amounts and its top-ups (amount and fee), and, last, that the books
// balance and the invariants hold.
func audit(ctx context.Context, w *workload) *auditResult {
	start := time.Now()
	log := &auditLog{res: &auditResult{}}
	var wg sync.WaitGroup
	for _, c := range w.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.audit(ctx, w, log)
		}()
	}
	wg.Wait()
	var ledger struct {
		Balanced bool   `json:"balanced"`
		Error    string `json:"error"`
	}
	if err := w.ctl.call(ctx, http.MethodGet, "/_sim/ledger", nil, &ledger); err != nil {
		log.problem("GET /_sim/ledger: %v", err)
	} else if !ledger.Balanced {
		log.problem("the books do not balance: %s", ledger.Error)
	}
	var inv struct {
		Hold       bool     `json:"hold"`
		Violations []string `json:"violations"`
	}
	if err := w.ctl.call(ctx, http.MethodGet, "/_sim/invariants", nil, &inv); err != nil {
		log.problem("GET /_sim/invariants: %v", err)
	} else if !inv.Hold {
		log.problem("invariants: %v", inv.Violations)
	}
	log.res.Ledger, log.res.Invariants = ledger.Balanced, inv.Hold
	log.res.Took = time.Since(start)
	return log.res
}

func (c *client) audit(ctx context.Context, w *workload, log *auditLog) {
	c.mu.Lock()
	pending := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, wr := range pending {
		var err error
		for range 20 {
			if err = c.send(ctx, w, wr); err == nil || !errors.Is(err, mwallet.ErrOutcomeUnknown) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		switch {
		case err == nil:
			c.finish(ctx, w, wr)
			c.mu.Lock()
			c.writes = append(c.writes, wr)
			c.mu.Unlock()
			log.add(func(r *auditResult) { r.Resent++ })
		case errors.Is(err, mwallet.ErrOutcomeUnknown):
			log.add(func(r *auditResult) { r.Unresolved++ })
			log.problem("%s %s (key %s): still no answer: %v", wr.kind, wr.member.ext, wr.key, err)
		}
		// Otherwise a definite refusal: it never ran.
	}
	c.mu.Lock()
	writes := c.writes
	c.mu.Unlock()
	spent := map[*member]int64{}
	ids := map[string]*write{}
	for _, wr := range writes {
		if prev := ids[wr.id]; prev != nil && prev.key != wr.key {
			log.add(func(r *auditResult) { r.Bad++ })
			log.problem("%s %s: keys %s and %s were both answered %s", wr.kind, wr.member.ext, prev.key, wr.key, wr.id)
		}
		ids[wr.id] = wr
		got, err := c.readBack(ctx, wr)
		log.add(func(r *auditResult) { r.Writes++ })
		if err != nil {
			log.add(func(r *auditResult) { r.Bad++ })
			log.problem("%s %s %s (key %s): %v", wr.kind, wr.member.ext, wr.id, wr.key, err)
			continue
		}
		switch wr.kind {
		case opDeposit:
			spent[wr.member] -= wr.amount
		default:
			spent[wr.member] += got
		}
	}
	for _, m := range c.members {
		have, err := c.ctl.usdtAvailable(ctx, m.ext)
		log.add(func(r *auditResult) { r.Members++ })
		if err != nil {
			log.add(func(r *auditResult) { r.BadBalances++ })
			log.problem("balance of %s: %v", m.ext, err)
			continue
		}
		if want := m.baseline - spent[m]; have != want {
			log.add(func(r *auditResult) { r.BadBalances++ })
			log.problem("member %s has %s USDT available; its answered writes make it %s", m.ext, formatMicros(have), formatMicros(want))
		}
	}
}

// readBack reads an answered write and checks its id and amount; it
// returns what the write took from the member's available USDT.
func (c *client) readBack(ctx context.Context, wr *write) (int64, error) {
	switch wr.kind {
	case opDeposit:
		d, err := c.c.Deposits.Get(ctx, wr.ref)
		if err != nil {
			return 0, err
		}
		got, err := amountMicros(d.Amount)
		if err != nil {
			return 0, err
		}
		if d.ID != wr.id || got != wr.amount || d.ExternalMemberID != wr.member.ext {
			return 0, fmt.Errorf("read back as %s of %s for %s", d.ID, d.Amount, d.ExternalMemberID)
		}
		return got, nil
	case opQR:
		o, err := c.c.QRPay.Order(ctx, wr.member.ext, wr.id)
		if err != nil {
			return 0, err
		}
		got, err := amountMicros(o.CustomerTotal)
		if err != nil {
			return 0, err
		}
		if o.ID != wr.id || got != wr.amount {
			return 0, fmt.Errorf("read back as %s with customer total %s, answered %s", o.ID, o.CustomerTotal, formatMicros(wr.amount))
		}
		return got, nil
	case opRemittance:
		o, err := c.c.Remittances.Get(ctx, wr.member.ext, wr.id)
		if err != nil {
			return 0, err
		}
		got, err := amountMicros(o.LockedAmount)
		if err != nil {
			return 0, err
		}
		// A replay's answer carries no quote: its amount is then known
		// from the order alone.
		if o.ID != wr.id || o.PayoutAmount != wr.payout || (wr.amount != 0 && got != wr.amount) {
			return 0, fmt.Errorf("read back as %s paying %s with %s locked, answered %s", o.ID, o.PayoutAmount, o.LockedAmount, formatMicros(wr.amount))
		}
		return got, nil
	case opTopUp:
		var t struct {
			Amount string `json:"amount"`
			Fee    string `json:"fee"`
		}
		if err := c.ctl.call(ctx, http.MethodGet, "/_sim/cards/topups/"+wr.id, nil, &t); err != nil {
			return 0, err
		}
		amount, err1 := micros(t.Amount)
		fee, err2 := micros(t.Fee)
		if err := errors.Join(err1, err2); err != nil {
			return 0, err
		}
		if amount != wr.amount {
			return 0, fmt.Errorf("read back with amount %s, sent %s", t.Amount, formatMicros(wr.amount))
		}
		return amount + fee, nil
	}
	return 0, fmt.Errorf("unknown write kind %d", wr.kind)
}
