// Package services answers the kernel's services (kernel.Services), which
// every transition of every line reaches through its Tx, over the state's
// own services: the clock, the seeded ids and the creation sequence of
// listed objects, the ledger, the asset catalogue, the outcome timers, the
// expiry windows, the events and the merchant's configuration. It sits
// below the lines: what it needs of a line (the members, the webhook
// line's events, the merchant's settings) it reaches through the small
// interfaces it declares, and what it needs of the simulator (the public
// error of a short posting, the simulator's address, the rules of the
// input running, the expiry queue of a window) it is handed as func values.
package services

import (
	"errors"
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/catalogue"
	"github.com/mwallet/mwallet-go/simulator/internal/ids"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/ledger"
	"github.com/mwallet/mwallet-go/simulator/internal/outcomes"
	"github.com/mwallet/mwallet-go/simulator/internal/windows"
)

// Clock is the simulator clock, as the services read it.
type Clock interface{ Now() time.Time }

// Members finds a member by its mem_ id (nil when unknown): the members
// line (internal/members).
type Members interface {
	Get(tx *kernel.Tx, id string) *api.Member
}

// Events records an event for delivery for the member of
// externalMemberID and returns its id: the webhook line
// (internal/webhooks, Line.Emit).
type Events interface {
	Emit(tx *kernel.Tx, e kernel.Event, externalMemberID string) string
}

// Merchant is the merchant's configuration as it is now: the merchant
// line (internal/merchant).
type Merchant interface {
	// Model is the custody model.
	Model(tx *kernel.Tx) string
	// Env is the environment.
	Env(tx *kernel.Tx) string
	// Allows reports whether the merchant may use the asset code.
	Allows(tx *kernel.Tx, code string) bool
}

// Services are the kernel's services (kernel.Services) over the state's
// own: given once to the kernel (kernel.Kernel.Provide), before the first
// transaction. Every field is set by then.
type Services struct {
	Clock Clock
	IDs   ids.Generator // object ids and seeded draws
	// Seq is the creation sequence of listed objects (NextSeq).
	Seq   *kernel.Cell[int64]
	Books *ledger.Books
	// Short is the error Post answers for a posting that would take a
	// non-negative account below zero in asset.
	Short     func(account, asset string) error
	Catalogue *catalogue.Catalogue
	Timers    *outcomes.Timers
	Members   Members
	Events    Events
	Merchant  Merchant
	// Creds are the merchant's credentials, fixed at start.
	Creds Credentials
	// Base is the simulator's address (URL), for hosted links.
	Base func() string
	// Rules are the rules of the input running (the recorder's).
	Rules func() int
	// Window is the gateway's expiry queue of a line's window, with the
	// rules since which keys are pushed on it; ok is false for a window
	// with no queue.
	Window func(window string) (q windows.ExpiryQueue, since int, ok bool)
}

// Credentials are the merchant's credentials the services answer.
type Credentials struct {
	MerchantID, WebhookSecret string
}

var _ kernel.Services = (*Services)(nil)

// Now reads the simulator clock.
func (s *Services) Now() time.Time { return s.Clock.Now() }

// NewUUID draws the next seeded uuid.
func (s *Services) NewUUID(tx *kernel.Tx) string { return s.IDs.UUID(tx) }

// NextSeq is the next creation sequence of listed objects.
func (s *Services) NextSeq(tx *kernel.Tx) int64 {
	n := s.Seq.Get(tx) + 1
	s.Seq.Set(tx, n)
	return n
}

// Post posts an entry through the ledger, answering a posting that would
// take a non-negative account below zero with Short's error.
func (s *Services) Post(tx *kernel.Tx, at time.Time, memo string, legs ...kernel.Posting) error {
	err := s.Books.Post(tx, at, memo, legs...)
	var short *ledger.ShortError
	if errors.As(err, &short) {
		return s.Short(short.Account, short.Asset)
	}
	return err
}

// Balance is the balance of a ledger account in an asset.
func (s *Services) Balance(tx *kernel.Tx, account, asset string) money.Amount {
	return s.Books.Balance(tx, account, asset)
}

// MerchantID is the merchant's id.
func (s *Services) MerchantID() string { return s.Creds.MerchantID }

// URL is the simulator's own base URL.
func (s *Services) URL() string { return s.Base() }

// RandIntN draws a seeded integer in [0, n).
func (s *Services) RandIntN(tx *kernel.Tx, n int) int { return s.IDs.IntN(tx, n) }

// Emit records e for delivery for the member of e.MemberID (none when
// empty or unknown): Record.
func (s *Services) Emit(tx *kernel.Tx, e kernel.Event) {
	var m *api.Member
	if e.MemberID != "" {
		m = s.Members.Get(tx, e.MemberID)
	}
	Record(tx, s.Events, e, m)
}

// Record records e for delivery through events for member m (none when
// nil) and returns its id. Events of platform-direct members are not
// recorded (the contract sends none): "". A Version of 0 marks the events
// whose version is the constant 0. e.MemberID is not read.
func Record(tx *kernel.Tx, events Events, e kernel.Event, m *api.Member) string {
	ext := ""
	if m != nil {
		if m.PlatformDirect {
			return ""
		}
		ext = m.ExternalID
	}
	return events.Emit(tx, kernel.Event{Type: e.Type, Object: e.Object, ObjectID: e.ObjectID, Status: e.Status, Version: e.Version, Extra: e.Extra}, ext)
}

// Amount parses v as a signed amount of a catalogue asset at its ledger
// scale.
func (s *Services) Amount(asset, v string) (money.Amount, error) {
	return s.Catalogue.Amount(asset, v, catalogue.Signed)
}

// AssetScale is the ledger scale of a catalogue asset.
func (s *Services) AssetScale(code string) (int, bool) { return s.Catalogue.Scale(code) }

// Assets are the catalogue's assets, in its order.
func (s *Services) Assets() []kernel.Asset {
	all := s.Catalogue.All()
	out := make([]kernel.Asset, 0, len(all))
	for _, a := range all {
		out = append(out, kernel.Asset{Code: a.Code, LedgerScale: a.LedgerScale, DisplayScale: a.DisplayScale})
	}
	return out
}

// Asset is the catalogue's asset of code.
func (s *Services) Asset(code string) (kernel.Asset, bool) {
	a := s.Catalogue.Lookup(code)
	if a == nil {
		return kernel.Asset{}, false
	}
	return kernel.Asset{Code: a.Code, LedgerScale: a.LedgerScale, DisplayScale: a.DisplayScale}, true
}

// InFlight puts object id of an outcome collection in flight on the
// timers.
func (s *Services) InFlight(tx *kernel.Tx, collection, id string) {
	s.Timers.InFlight(tx, collection, id)
}

// Settled takes object id out of flight.
func (s *Services) Settled(tx *kernel.Tx, id string) { s.Timers.Settled(tx, id) }

// ExpireAt pushes key on the gateway's expiry queue of window (Window),
// unless the input running has rules older than the queue's; the
// gateway's sweep tells the window's line when the clock passes it.
func (s *Services) ExpireAt(tx *kernel.Tx, window, key string, at time.Time) {
	q, since, ok := s.Window(window)
	if !ok {
		// A line names its window with a constant of its own package;
		// TestLineExpiryWindowsAreTheGatewayQueues maps every one of them
		// to a queue, so this is reached only by a window added without one.
		panic("simulator: no expiry window " + window)
	}
	if s.Rules() < since {
		return
	}
	q.Push(tx, key, at)
}

// Custody is the merchant's custody model.
func (s *Services) Custody(tx *kernel.Tx) string { return s.Merchant.Model(tx) }

// Environment is the merchant's environment.
func (s *Services) Environment(tx *kernel.Tx) string { return s.Merchant.Env(tx) }

// AssetAllowed reports whether code is a catalogue asset, enabled, and
// allowed to the merchant.
func (s *Services) AssetAllowed(tx *kernel.Tx, code string) bool {
	return s.Catalogue.Allowed(code, nil) && s.Merchant.Allows(tx, code)
}

// WebhookSecret is the merchant's webhook_secret credential.
func (s *Services) WebhookSecret() string { return s.Creds.WebhookSecret }
