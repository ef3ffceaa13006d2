// Package kerneltest gives a line's own tests the kernel's services
// without a simulator: a fixed clock, counted ids, a ledger of balances
// that refuses to take a member's or the merchant's balance below zero,
// recorded events, and one catalogue asset per scale asked for.
package kerneltest

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Services are kernel.Services for tests.
type Services struct {
	// Clock is what Now answers.
	Clock time.Time
	// Scales are the catalogue: asset code to ledger scale.
	Scales map[string]int
	// Balances are the ledger's accounts: account, then asset.
	Balances map[string]map[string]money.Amount
	// Events are the events emitted, in order.
	Events []kernel.Event
	// InFlightLog lists the objects put in flight, as "collection id", in
	// order; Flying holds the ids in flight now (Settled takes one out).
	InFlightLog []string
	Flying      map[string]bool
	// SettledLog lists the ids settled, in order.
	SettledLog []string
	n          int
	k          kernel.Kernel
}

// New returns services with USDT at scale 6 and an empty ledger.
func New() *Services {
	s := &Services{Clock: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Scales: map[string]int{"USDT": 6}, Balances: map[string]map[string]money.Amount{}, Flying: map[string]bool{}}
	s.k.Provide(s)
	return s
}

// Kernel is the kernel holding these services: a line's tables are made
// in it.
func (s *Services) Kernel() *kernel.Kernel { return &s.k }

// Begin begins a setup transaction of the kernel holding these services: a
// line's own tests call its transitions directly, without steps.
func (s *Services) Begin() *kernel.Tx { return s.k.BeginSetup() }

// Now answers Clock.
func (s *Services) Now() time.Time { return s.Clock }

// NewUUID answers u1, u2, ...
func (s *Services) NewUUID(*kernel.Tx) string { s.n++; return "u" + strconv.Itoa(s.n) }

// NextSeq counts with NewUUID.
func (s *Services) NextSeq(*kernel.Tx) int64 { s.n++; return int64(s.n) }

// ErrInsufficient is a transfer that would take a member's or the
// merchant's account below zero.
var ErrInsufficient = errors.New("kerneltest: insufficient balance")

// Transfer moves amt of asset; member and merchant accounts may not go
// below zero.
func (s *Services) Transfer(_ *kernel.Tx, _ time.Time, _, asset string, amt money.Amount, from, to string) error {
	have := s.Balance(from, asset)
	if (strings.HasPrefix(from, "member:") || strings.HasPrefix(from, "merchant:prepaid")) && have.Cmp(amt) < 0 {
		return ErrInsufficient
	}
	left, err := have.Sub(amt)
	if err != nil {
		return err
	}
	got, err := s.Balance(to, asset).Add(amt)
	if err != nil {
		return err
	}
	s.Set(from, asset, left)
	s.Set(to, asset, got)
	return nil
}

// Balance reads an account's balance in asset (zero at the asset's scale
// when it never moved).
func (s *Services) Balance(account, asset string) money.Amount {
	if b, ok := s.Balances[account][asset]; ok {
		return b
	}
	return money.Zero(s.Scales[asset])
}

// Set sets an account's balance in asset (a test's starting point).
func (s *Services) Set(account, asset string, amt money.Amount) {
	if s.Balances[account] == nil {
		s.Balances[account] = map[string]money.Amount{}
	}
	s.Balances[account][asset] = amt
}

// Emit records e.
func (s *Services) Emit(_ *kernel.Tx, e kernel.Event) { s.Events = append(s.Events, e) }

// Amount parses v at the scale of asset.
func (s *Services) Amount(asset, v string) (money.Amount, error) {
	sc, ok := s.Scales[asset]
	if !ok {
		return money.Amount{}, errors.New("kerneltest: unknown asset " + asset)
	}
	return money.Parse(v, sc)
}

// AssetScale is the scale of asset.
func (s *Services) AssetScale(code string) (int, bool) { sc, ok := s.Scales[code]; return sc, ok }

// InFlight records id of collection as in flight.
func (s *Services) InFlight(_ *kernel.Tx, collection, id string) {
	s.InFlightLog = append(s.InFlightLog, collection+" "+id)
	s.Flying[id] = true
}

// Settled records id as settled.
func (s *Services) Settled(_ *kernel.Tx, id string) {
	delete(s.Flying, id)
	s.SettledLog = append(s.SettledLog, id)
}
