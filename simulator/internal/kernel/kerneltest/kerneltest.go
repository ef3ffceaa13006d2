// Package kerneltest gives a line's own tests the kernel's services
// without a simulator: a fixed clock, counted ids, a ledger of balances
// that refuses to take a member's or the merchant's balance below zero,
// recorded events, one catalogue asset per scale asked for, recorded expiry
// windows, and a platform_hosted sandbox merchant that allows every
// catalogue asset.
package kerneltest

import (
	"errors"
	"sort"
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
	// Merchant is what MerchantID answers; BaseURL what URL answers.
	Merchant, BaseURL string
	// Catalogue, when set, is what Assets answers, in order.
	Catalogue []kernel.Asset
	// Memos are the memos of the entries Post applied, in order.
	Memos []string
	// Draw is what RandIntN draws (modulo n): 4242 unless set.
	Draw int
	// Ledger, when set, is the ledger Post and Balance use instead of
	// Balances: a line's test with a ledger of its own.
	Ledger Ledger
	// Expiries lists what ExpireAt scheduled, as "window key", in order.
	Expiries []string
	// Model is what Custody answers (kernel.PlatformHosted unless set);
	// Env what Environment answers ("sandbox" unless set); Secret what
	// WebhookSecret answers.
	Model, Env, Secret string
	// Refused are the catalogue assets the merchant does not allow
	// (AssetAllowed answers the others).
	Refused map[string]bool
	n       int
	k       kernel.Kernel
}

// New returns services with USDT at scale 6 and an empty ledger.
func New() *Services {
	s := &Services{Clock: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Scales: map[string]int{"USDT": 6}, Merchant: "mch_1", BaseURL: "http://sim", Draw: 4242, Balances: map[string]map[string]money.Amount{}, Flying: map[string]bool{},
		Model: kernel.PlatformHosted, Env: "sandbox", Secret: "whsec_test", Refused: map[string]bool{}}
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

// ErrInsufficient is what Post answers for an entry that would take a
// member's or the merchant's account below zero: the kernel's
// ErrInsufficientFunds, as the simulator's ledger answers it.
var ErrInsufficient = kernel.ErrInsufficientFunds

// Ledger is a ledger of a line's own test (Services.Ledger).
type Ledger interface {
	Post(tx *kernel.Tx, at time.Time, memo string, legs ...kernel.Posting) error
	Balance(tx *kernel.Tx, account, asset string) money.Amount
}

// Post applies an entry of any number of legs, or none of it: member and
// merchant accounts may not go below zero.
func (s *Services) Post(tx *kernel.Tx, at time.Time, memo string, legs ...kernel.Posting) error {
	if s.Ledger != nil {
		return s.Ledger.Post(tx, at, memo, legs...)
	}
	next := map[[2]string]money.Amount{}
	for _, p := range legs {
		k := [2]string{p.Account, p.Asset}
		have, ok := next[k]
		if !ok {
			have = s.Read(p.Account, p.Asset)
		}
		got, err := have.Add(p.Amount)
		if err != nil {
			return err
		}
		if (strings.HasPrefix(p.Account, "member:") || strings.HasPrefix(p.Account, "merchant:prepaid")) && got.IsNegative() {
			return ErrInsufficient
		}
		next[k] = got
	}
	for k, v := range next {
		s.Set(k[0], k[1], v)
	}
	s.Memos = append(s.Memos, memo)
	return nil
}

// Balance is kernel.Services' Balance: Read (or Ledger's).
func (s *Services) Balance(tx *kernel.Tx, account, asset string) money.Amount {
	if s.Ledger != nil {
		return s.Ledger.Balance(tx, account, asset)
	}
	return s.Read(account, asset)
}

// Read reads an account's balance in asset (zero at the asset's scale
// when it never moved).
func (s *Services) Read(account, asset string) money.Amount {
	if b, ok := s.Balances[account][asset]; ok {
		return b
	}
	return money.Zero(s.Scales[asset])
}

// MerchantID answers Merchant.
func (s *Services) MerchantID() string { return s.Merchant }

// URL answers BaseURL.
func (s *Services) URL() string { return s.BaseURL }

// RandIntN answers Draw modulo n.
func (s *Services) RandIntN(_ *kernel.Tx, n int) int { return s.Draw % n }

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

// Assets are Catalogue when it is set, else an asset per Scales entry
// (sorted by code, displayed at 2 decimals).
func (s *Services) Assets() []kernel.Asset {
	if s.Catalogue != nil {
		return s.Catalogue
	}
	codes := make([]string, 0, len(s.Scales))
	for c := range s.Scales {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	out := make([]kernel.Asset, 0, len(codes))
	for _, c := range codes {
		out = append(out, kernel.Asset{Code: c, LedgerScale: s.Scales[c], DisplayScale: 2})
	}
	return out
}

// Asset is the asset of code among Assets.
func (s *Services) Asset(code string) (kernel.Asset, bool) {
	for _, a := range s.Assets() {
		if a.Code == code {
			return a, true
		}
	}
	return kernel.Asset{}, false
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

// ExpireAt records "window key".
func (s *Services) ExpireAt(_ *kernel.Tx, window, key string, _ time.Time) {
	s.Expiries = append(s.Expiries, window+" "+key)
}

// Custody answers Model.
func (s *Services) Custody(*kernel.Tx) string { return s.Model }

// Environment answers Env.
func (s *Services) Environment(*kernel.Tx) string { return s.Env }

// AssetAllowed answers whether code is among Assets and not Refused.
func (s *Services) AssetAllowed(_ *kernel.Tx, code string) bool {
	_, ok := s.Asset(code)
	return ok && !s.Refused[code]
}

// WebhookSecret answers Secret.
func (s *Services) WebhookSecret() string { return s.Secret }
