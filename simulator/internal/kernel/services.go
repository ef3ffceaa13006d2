package kernel

import (
	"time"

	"github.com/mwallet/mwallet-go/money"
)

// Services are what every transition of every line uses: the simulator
// clock and its outcome timers, the seeded ids, the ledger, the events and
// the asset catalogue.
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
	// Transfer moves amt of asset between two ledger accounts, one
	// balanced entry; an error changes nothing.
	Transfer(tx *Tx, at time.Time, memo, asset string, amt money.Amount, from, to string) error
	// Emit records an event for delivery.
	Emit(tx *Tx, e Event)
	// Amount parses v as an amount of a catalogue asset at its ledger
	// scale (the one amount parser).
	Amount(asset, v string) (money.Amount, error)
	// AssetScale is the ledger scale of a catalogue asset.
	AssetScale(code string) (int, bool)
	// InFlight puts object id of an outcome collection in flight: the
	// outcome mode that governs it decides when its success path runs (a
	// timer on the simulator clock, or never).
	InFlight(tx *Tx, collection, id string)
	// Settled takes object id out of flight: it reached a final state by
	// another path, and a later timer does nothing.
	Settled(tx *Tx, id string)
}

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

// Transfer moves amt of asset from one ledger account to another.
func (tx *Tx) Transfer(at time.Time, memo, asset string, amt money.Amount, from, to string) error {
	tx.check()
	return tx.k.svc.Transfer(tx, at, memo, asset, amt, from, to)
}

// Emit records an event for delivery.
func (tx *Tx) Emit(e Event) { tx.check(); tx.k.svc.Emit(tx, e) }

// Amount parses v as an amount of a catalogue asset at its ledger scale.
func (tx *Tx) Amount(asset, v string) (money.Amount, error) {
	tx.check()
	return tx.k.svc.Amount(asset, v)
}

// AssetScale is the ledger scale of a catalogue asset.
func (tx *Tx) AssetScale(code string) (int, bool) { tx.check(); return tx.k.svc.AssetScale(code) }

// InFlight puts object id of an outcome collection in flight.
func (tx *Tx) InFlight(collection, id string) { tx.check(); tx.k.svc.InFlight(tx, collection, id) }

// Settled takes object id out of flight.
func (tx *Tx) Settled(id string) { tx.check(); tx.k.svc.Settled(tx, id) }
