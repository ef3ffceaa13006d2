package simulator

import (
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/deposits"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/outcomes"
)

// The product lines that have their own package under internal/, and the
// hosts through which each reaches the rest of the simulator: a line
// declares what it needs of other lines (its Host interface) and the
// simulator answers it here, so that no line touches another's state. What
// every line uses (the clock, ids, the ledger, events, the catalogue) the
// kernel gives through the transaction: kernelServices.

// kernelServices are the kernel's services (kernel.Services), given to every
// transaction.
// They read and write the state, and put objects in flight on the clock's
// timers.
type kernelServices struct {
	st     *simState
	timers *outcomes.Timers
	url    func() string // the simulator's address (Simulator.URL), for hosted links
	// rules are the rules of the input running (recorder.RunningRules).
	rules func() int
}

func (k kernelServices) Now() time.Time { return k.st.clock.Now() }

func (k kernelServices) NewUUID(tx *kernel.Tx) string { return k.st.rng.UUID(tx) }

func (k kernelServices) NextSeq(tx *kernel.Tx) int64 {
	n := k.st.listSeq.Get(tx) + 1
	k.st.listSeq.Set(tx, n)
	return n
}

func (k kernelServices) Post(tx *kernel.Tx, at time.Time, memo string, legs ...kernel.Posting) error {
	return post(k.st.ledger, tx, at, memo, legs...)
}

func (k kernelServices) Balance(tx *kernel.Tx, account, asset string) money.Amount {
	return k.st.ledger.Balance(tx, account, asset)
}

func (k kernelServices) MerchantID() string { return k.st.creds.MerchantID }

func (k kernelServices) URL() string { return k.url() }

func (k kernelServices) RandIntN(tx *kernel.Tx, n int) int { return k.st.rng.IntN(tx, n) }

// Emit emits e for the member of e.MemberID (none when empty or unknown).
func (k kernelServices) Emit(tx *kernel.Tx, e kernel.Event) {
	var m *member
	if e.MemberID != "" {
		m = k.st.members.Get(tx, e.MemberID)
	}
	recordEvent(tx, k.st, e.Type, e.Object, e.ObjectID, m, e.Status, e.Version, e.Extra)
}

func (k kernelServices) Amount(asset, v string) (money.Amount, error) {
	return k.st.cat.Amount(asset, v, decimalSigned)
}

func (k kernelServices) AssetScale(code string) (int, bool) { return k.st.cat.Scale(code) }

func (k kernelServices) Assets() []kernel.Asset {
	all := k.st.cat.All()
	out := make([]kernel.Asset, 0, len(all))
	for _, a := range all {
		out = append(out, kernel.Asset{Code: a.Code, LedgerScale: a.LedgerScale, DisplayScale: a.DisplayScale})
	}
	return out
}

func (k kernelServices) Asset(code string) (kernel.Asset, bool) {
	a := k.st.cat.Lookup(code)
	if a == nil {
		return kernel.Asset{}, false
	}
	return kernel.Asset{Code: a.Code, LedgerScale: a.LedgerScale, DisplayScale: a.DisplayScale}, true
}

func (k kernelServices) InFlight(tx *kernel.Tx, collection, id string) {
	k.timers.InFlight(tx, collection, id)
}

func (k kernelServices) Settled(tx *kernel.Tx, id string) { k.timers.Settled(tx, id) }

// ExpireAt pushes key on the gateway's expiry queue of window; the sweep
// tells the window's line when the clock passes it (gateway_expiry.go).
func (k kernelServices) ExpireAt(tx *kernel.Tx, window, key string, at time.Time) {
	q, since, ok := expiryWindow(k.st.gw, window)
	if !ok {
		// A line names its window with a constant of its own package;
		// TestLineExpiryWindowsAreTheGatewayQueues maps every one of them
		// to a queue, so this is reached only by a window added without one.
		panic("simulator: no expiry window " + window)
	}
	if k.rules() < since {
		return
	}
	q.Push(tx, key, at)
}

// The merchant's configuration is the merchant line's state
// (internal/merchant) and the credentials fixed at start.

func (k kernelServices) Custody(tx *kernel.Tx) string { return k.st.merchant.Model(tx) }

func (k kernelServices) Environment(tx *kernel.Tx) string { return k.st.merchant.Env(tx) }

func (k kernelServices) AssetAllowed(tx *kernel.Tx, code string) bool {
	return k.st.cat.Allowed(code, nil) && k.st.merchant.Allows(tx, code)
}

func (k kernelServices) WebhookSecret() string { return k.st.creds.WebhookSecret }

// registerDeposits builds the deposits line and registers its endpoints.
func (ctl *controlAPI) registerDeposits() {
	s := ctl.sim
	s.st.deposits = deposits.New(&s.k)
	for _, e := range s.st.deposits.Endpoints() {
		s.wiring.gw.register(e)
	}
}
