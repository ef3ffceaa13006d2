package kernel

import (
	"errors"
	"fmt"
	"time"

	"github.com/mwallet/mwallet-go/money"
)

// Services are what every transition of every line uses: the simulator
// clock, its outcome timers and expiry windows, the seeded ids, the ledger,
// the events, the asset catalogue and the merchant's configuration (its
// custody model, environment, asset allowlist and webhook secret).
// The simulator provides them once (Provide); a transition reaches them
// through its Tx, so that holding the lock and using the state's services
// are one and the same.
type Services interface {
	// Now reads the simulator clock.
	Now() time.Time
	// NewUUID draws the next seeded uuid.
	NewUUID(tx *Tx) string
	// NextSeq is the next creation sequence of listed objects.
	NextSeq(tx *Tx) int64
	// Post posts one journal entry of any number of legs, balanced per
	// asset; an error changes nothing (ErrInsufficientFunds when a leg
	// would take an account that cannot go negative below zero).
	Post(tx *Tx, at time.Time, memo string, legs ...Posting) error
	// Balance is the balance of a ledger account in an asset.
	Balance(tx *Tx, account, asset string) money.Amount
	// MerchantID is the merchant's id, fixed at start.
	MerchantID() string
	// URL is the simulator's own base URL, which hosted links start with.
	URL() string
	// RandIntN draws a seeded integer in [0, n).
	RandIntN(tx *Tx, n int) int
	// Emit records an event for delivery.
	Emit(tx *Tx, e Event)
	// Amount parses v as an amount of a catalogue asset at its ledger
	// scale (the one amount parser).
	Amount(asset, v string) (money.Amount, error)
	// AssetScale is the ledger scale of a catalogue asset.
	AssetScale(code string) (int, bool)
	// Assets are the catalogue's assets, in its order.
	Assets() []Asset
	// Asset is the catalogue's asset of code.
	Asset(code string) (Asset, bool)
	// InFlight puts object id of an outcome collection in flight: the
	// outcome mode that governs it decides when its success path runs (a
	// timer on the simulator clock, or never).
	InFlight(tx *Tx, collection, id string)
	// Settled takes object id out of flight: it reached a final state by
	// another path, and a later timer does nothing.
	Settled(tx *Tx, id string)
	// ExpireAt schedules key of an expiry window to expire at at: the
	// window's owner is told when the clock passes it. A window is named
	// by the line that owns it (for example "stepup/challenges").
	ExpireAt(tx *Tx, window, key string, at time.Time)
	// Custody is the merchant's custody model, PlatformHosted or
	// MerchantHosted.
	Custody(tx *Tx) string
	// Environment is the merchant's environment, sandbox or production.
	Environment(tx *Tx) string
	// AssetAllowed reports whether code is a catalogue asset, enabled, and
	// allowed to the merchant.
	AssetAllowed(tx *Tx, code string) bool
	// WebhookSecret is the merchant's webhook_secret credential, fixed at
	// start.
	WebhookSecret() string
}

// The merchant's custody models (Tx.Custody): who holds the members'
// funds, and so who funds a payment, a card and a remittance.
const (
	PlatformHosted = "platform_hosted"
	MerchantHosted = "merchant_hosted"
)

// Asset is an asset of the catalogue: its code, the scale the ledger
// keeps its amounts at and the scale answers display them at.
type Asset struct {
	Code         string
	LedgerScale  int
	DisplayScale int
}

// Posting is one leg of a journal entry: a signed amount of an asset on
// an account. The ledger's one posting type: every line posts through
// Tx.Post.
//
// Its JSON (the ledger's journal in GET /_sim/ledger and in the data
// directory's snapshot) names the fields account, asset and amount.
type Posting struct {
	Account string       `json:"account"`
	Asset   string       `json:"asset"`
	Amount  money.Amount `json:"amount"`
}

// ErrInsufficientFunds is what Post answers (errors.Is) when a leg would
// take an account that cannot go negative (a member's balance, the
// merchant's prepaid account, a card) below zero.
var ErrInsufficientFunds = errors.New("insufficient funds")

// UpstreamAccount names the settlement account of an upstream line (the
// QR acquirer, the payout partner).
func UpstreamAccount(line string) string { return "upstream:" + line }

// Event is an event a transition emits: for the member of MemberID (none
// when empty), about the object of ObjectID.
type Event struct {
	Type, Object, ObjectID string
	MemberID               string
	Status                 string
	Version                int64
	Extra                  map[string]any
}

// Ledger accounts: the merchant's prepaid account (and its locked part),
// its custody declaration, the platform's fee revenue and the world
// outside; a member's available and locked balances.
const (
	AccountMerchantPrepaid       = "merchant:prepaid"
	AccountMerchantPrepaidLocked = "merchant:prepaid_locked"
	AccountMerchantCustody       = "merchant:custody"
	AccountRevenueFees           = "revenue:fees"
	AccountWorld                 = "world"
)

// MemberAvailable is the account of a member's available balance.
func MemberAvailable(memberID string) string { return "member:" + memberID + ":available" }

// MemberLocked is the account of a member's locked balance (holds).
func MemberLocked(memberID string) string { return "member:" + memberID + ":locked" }

// Provide gives the kernel its services, before the first transaction.
func (k *Kernel) Provide(s Services) { k.svc = s }

// Now reads the simulator clock.
func (tx *Tx) Now() time.Time {
	tx.check()
	if tx.cap != nil {
		return tx.cap.now
	}
	return tx.k.svc.Now()
}

// NewUUID draws the next seeded uuid.
func (tx *Tx) NewUUID() string { tx.check(); return tx.k.svc.NewUUID(tx) }

// NextSeq is the next creation sequence of listed objects.
func (tx *Tx) NextSeq() int64 { tx.check(); return tx.k.svc.NextSeq(tx) }

// Transfer moves amt of asset from one ledger account to another: a
// journal entry of two legs.
func (tx *Tx) Transfer(at time.Time, memo, asset string, amt money.Amount, from, to string) error {
	if amt.IsNegative() {
		return fmt.Errorf("ledger: negative transfer %s", amt)
	}
	return tx.Post(at, memo, Posting{Account: from, Asset: asset, Amount: amt.Neg()}, Posting{Account: to, Asset: asset, Amount: amt})
}

// Post posts one journal entry of any number of legs, balanced per asset;
// an error changes nothing.
func (tx *Tx) Post(at time.Time, memo string, legs ...Posting) error {
	tx.check()
	return tx.k.svc.Post(tx, at, memo, legs...)
}

// Balance is the balance of a ledger account in an asset.
func (tx *Tx) Balance(account, asset string) money.Amount {
	tx.check()
	return tx.k.svc.Balance(tx, account, asset)
}

// MerchantID is the merchant's id, fixed at start.
func (tx *Tx) MerchantID() string { return tx.k.svc.MerchantID() }

// URL is the simulator's own base URL.
func (tx *Tx) URL() string { return tx.k.svc.URL() }

// RandIntN draws a seeded integer in [0, n).
func (tx *Tx) RandIntN(n int) int { tx.check(); return tx.k.svc.RandIntN(tx, n) }

// Emit records an event for delivery.
func (tx *Tx) Emit(e Event) { tx.check(); tx.k.svc.Emit(tx, e) }

// Amount parses v as an amount of a catalogue asset at its ledger scale.
func (tx *Tx) Amount(asset, v string) (money.Amount, error) {
	tx.check()
	return tx.k.svc.Amount(asset, v)
}

// AssetScale is the ledger scale of a catalogue asset.
func (tx *Tx) AssetScale(code string) (int, bool) { tx.check(); return tx.k.svc.AssetScale(code) }

// Assets are the catalogue's assets, in its order.
func (tx *Tx) Assets() []Asset { tx.check(); return tx.k.svc.Assets() }

// Asset is the catalogue's asset of code.
func (tx *Tx) Asset(code string) (Asset, bool) { tx.check(); return tx.k.svc.Asset(code) }

// InFlight puts object id of an outcome collection in flight.
func (tx *Tx) InFlight(collection, id string) { tx.check(); tx.k.svc.InFlight(tx, collection, id) }

// Settled takes object id out of flight.
func (tx *Tx) Settled(id string) { tx.check(); tx.k.svc.Settled(tx, id) }

// ExpireAt schedules key of an expiry window to expire at at.
func (tx *Tx) ExpireAt(window, key string, at time.Time) {
	tx.check()
	tx.k.svc.ExpireAt(tx, window, key, at)
}

// Custody is the merchant's custody model, PlatformHosted or
// MerchantHosted.
func (tx *Tx) Custody() string { tx.check(); return tx.k.svc.Custody(tx) }

// MerchantHosted reports the merchant_hosted custody model: the merchant
// funds payments, cards and remittances from its prepaid account.
func (tx *Tx) MerchantHosted() bool { return tx.Custody() == MerchantHosted }

// Environment is the merchant's environment, sandbox or production.
func (tx *Tx) Environment() string { tx.check(); return tx.k.svc.Environment(tx) }

// AssetAllowed reports whether code is a catalogue asset, enabled, and
// allowed to the merchant.
func (tx *Tx) AssetAllowed(code string) bool { tx.check(); return tx.k.svc.AssetAllowed(tx, code) }

// WebhookSecret is the merchant's webhook_secret credential.
func (tx *Tx) WebhookSecret() string { return tx.k.svc.WebhookSecret() }
