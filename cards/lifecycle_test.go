package cards_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

var allStatuses = []cards.CardStatus{cards.CardUnactivated, cards.CardActive, cards.CardFrozen, cards.CardPending,
	cards.CardClosing, cards.CardClosed, cards.CardExpired, cards.CardReplaced, cards.CardLost}

// physicalIn returns a physical card of member in status st, reached the way
// an integrator would (operator override only for pending and expired).
func physicalIn(t *testing.T, sim *simulator.Simulator, cl *mwclient.Client, st cards.CardStatus) string {
	t.Helper()
	if st == cards.CardUnactivated {
		if err := sim.Cards.SetLimit("physical", 50); err != nil {
			t.Fatal(err)
		}
		id := issue(t, sim, cl, cards.ApplyParams{ProductID: "cpd_physical_std"})
		if err := sim.Cards.Ship(id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	id := activePhysical(t, sim, cl)
	var err error
	switch st {
	case cards.CardActive:
	case cards.CardFrozen:
		_, err = cl.Cards.Freeze(ctx, member, id)
	case cards.CardPending, cards.CardExpired:
		err = sim.Cards.SetStatus(id, string(st))
	case cards.CardClosing, cards.CardClosed:
		_, err = cl.Cards.Close(ctx, member, id, cards.CloseParams{})
		if err == nil && st == cards.CardClosed {
			err = sim.Cards.CompleteClose(id)
		}
	case cards.CardReplaced:
		_, err = cl.Cards.Replace(ctx, member, id, cards.ReplaceParams{})
	case cards.CardLost:
		_, err = withStepUp(t, sim, func(o ...mwallet.CallOption) (*cards.LostResult, error) {
			return cl.Cards.ReportLost(ctx, member, id, cards.LostKindStolen, o...)
		})
	}
	if err != nil {
		t.Fatalf("reaching %s: %v", st, err)
	}
	if got := getCard(t, cl, id).Status; got != st {
		t.Fatalf("card is %s, want %s", got, st)
	}
	return id
}

// TestCardStateTable walks every row of the specification's card state table
// from every status.
func TestCardStateTable(t *testing.T) {
	t.Parallel()
	type row struct {
		trigger string
		do      func(t *testing.T, sim *simulator.Simulator, cl *mwclient.Client, id string) (cards.CardStatus, error)
		allowed map[cards.CardStatus]cards.CardStatus // from -> next; absent: state_invalid
	}
	same := func(ss ...cards.CardStatus) map[cards.CardStatus]cards.CardStatus {
		m := map[cards.CardStatus]cards.CardStatus{}
		for _, s := range ss {
			m[s] = s
		}
		return m
	}
	rows := []row{
		{trigger: "activate", allowed: map[cards.CardStatus]cards.CardStatus{cards.CardUnactivated: cards.CardActive, cards.CardActive: cards.CardActive},
			do: func(t *testing.T, sim *simulator.Simulator, cl *mwclient.Client, id string) (cards.CardStatus, error) {
				pl, _ := sim.Cards.Plastic(id)
				r, err := cl.Cards.Activate(ctx, member, id, cards.ActivateParams{Expiry: pl.Expiry, PIN: goodPIN})
				if err != nil {
					return "", err
				}
				return r.Status, nil
			}},
		{trigger: "lost", allowed: map[cards.CardStatus]cards.CardStatus{cards.CardUnactivated: cards.CardLost, cards.CardActive: cards.CardLost,
			cards.CardFrozen: cards.CardLost, cards.CardPending: cards.CardLost, cards.CardExpired: cards.CardLost, cards.CardReplaced: cards.CardLost},
			do: func(t *testing.T, sim *simulator.Simulator, cl *mwclient.Client, id string) (cards.CardStatus, error) {
				r, err := cl.Cards.ReportLost(ctx, member, id, "")
				var apiErr *mwallet.Error
				if err != nil && asErr(err, &apiErr) && apiErr.Code == mwallet.CodeStepUpRequired {
					r, err = withStepUp(t, sim, func(o ...mwallet.CallOption) (*cards.LostResult, error) {
						return cl.Cards.ReportLost(ctx, member, id, "", o...)
					})
				}
				if err != nil {
					return "", err
				}
				if r.Kind != cards.LostKindLost {
					t.Errorf("kind = %q, want lost", r.Kind)
				}
				return r.Status, nil
			}},
		{trigger: "close", allowed: map[cards.CardStatus]cards.CardStatus{cards.CardUnactivated: cards.CardClosing, cards.CardActive: cards.CardClosing,
			cards.CardFrozen: cards.CardClosing, cards.CardPending: cards.CardClosing, cards.CardLost: cards.CardClosing,
			cards.CardClosing: cards.CardClosing, cards.CardClosed: cards.CardClosed, cards.CardExpired: cards.CardExpired, cards.CardReplaced: cards.CardReplaced},
			do: func(t *testing.T, sim *simulator.Simulator, cl *mwclient.Client, id string) (cards.CardStatus, error) {
				from := getCard(t, cl, id).Status
				before, _ := sim.Cards.UpstreamCloseRequests(id)
				r, err := cl.Cards.Close(ctx, member, id, cards.CloseParams{Reason: "row"})
				if err != nil {
					return "", err
				}
				if r.Status != cards.CardClosing {
					t.Errorf("close answered %s, want closing", r.Status)
				}
				// Only a card that was not already closing or ended reaches the issuer.
				want := before
				if from != cards.CardClosing && !from.Ended() {
					want++
				}
				if after, _ := sim.Cards.UpstreamCloseRequests(id); after != want {
					t.Errorf("upstream close requests %d -> %d, want %d", before, after, want)
				}
				return getCard(t, cl, id).Status, nil
			}},
		{trigger: "topup", allowed: same(cards.CardActive, cards.CardFrozen, cards.CardPending),
			do: func(t *testing.T, sim *simulator.Simulator, cl *mwclient.Client, id string) (cards.CardStatus, error) {
				tp, err := cl.Cards.TopUp(ctx, member, id, cards.TopUpParams{Amount: usdt("10")})
				if err != nil {
					return "", err
				}
				if tp.Status != cards.TopUpProcessing || !strings.HasPrefix(tp.ID, "ctp_") {
					t.Errorf("top-up = %+v", tp)
				}
				return getCard(t, cl, id).Status, nil
			}},
		{trigger: "freeze", allowed: map[cards.CardStatus]cards.CardStatus{cards.CardActive: cards.CardFrozen, cards.CardFrozen: cards.CardFrozen},
			do: func(t *testing.T, sim *simulator.Simulator, cl *mwclient.Client, id string) (cards.CardStatus, error) {
				r, err := cl.Cards.Freeze(ctx, member, id)
				if err != nil {
					return "", err
				}
				return r.Status, nil
			}},
		{trigger: "unfreeze", allowed: map[cards.CardStatus]cards.CardStatus{cards.CardFrozen: cards.CardActive, cards.CardActive: cards.CardActive},
			do: func(t *testing.T, sim *simulator.Simulator, cl *mwclient.Client, id string) (cards.CardStatus, error) {
				r, err := cl.Cards.Unfreeze(ctx, member, id)
				if err != nil {
					return "", err
				}
				return r.Status, nil
			}},
	}
	for _, r := range rows {
		for _, from := range allStatuses {
			t.Run(r.trigger+"/"+string(from), func(t *testing.T) {
				t.Parallel()
				sim, cl := simtest.New(t)
				id := physicalIn(t, sim, cl, from)
				version := getCard(t, cl, id).StatusVersion
				got, err := r.do(t, sim, cl, id)
				want, ok := r.allowed[from]
				if !ok {
					simtest.WantCode(t, err, mwallet.CodeStateInvalid)
					if st := getCard(t, cl, id); st.Status != from || st.StatusVersion != version {
						t.Fatalf("refused %s moved the card to %s v%d", r.trigger, st.Status, st.StatusVersion)
					}
					checkBooks(t, sim)
					return
				}
				if err != nil {
					t.Fatalf("%s from %s: %v", r.trigger, from, err)
				}
				if got != want {
					t.Fatalf("%s from %s: %s, want %s", r.trigger, from, got, want)
				}
				if v := getCard(t, cl, id).StatusVersion; (got != from) != (v > version) {
					t.Fatalf("status_version %d -> %d for %s -> %s", version, v, from, got)
				}
				checkBooks(t, sim)
			})
		}
	}
}

func TestVirtualCardRefusals(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	id := issueVirtual(t, sim, cl, "")
	_, err := cl.Cards.Activate(ctx, member, id, cards.ActivateParams{Expiry: "01/29", PIN: goodPIN})
	simtest.WantCode(t, err, mwallet.CodeStateInvalid)
	_, err = cl.Cards.ReportLost(ctx, member, id, cards.LostKindLost)
	simtest.WantCode(t, err, mwallet.CodeStateInvalid)
	checkBooks(t, sim)
}

func TestActivationPreconditions(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	id := issue(t, sim, cl, cards.ApplyParams{ProductID: "cpd_physical_std"})
	pl, _ := sim.Cards.Plastic(id)
	// Still in manufacturing: not activatable, not counted.
	for i := 0; i < 4; i++ {
		_, err := cl.Cards.Activate(ctx, member, id, cards.ActivateParams{Expiry: pl.Expiry, PIN: goodPIN})
		simtest.WantCode(t, err, mwallet.CodeStateInvalid)
	}
	if err := sim.Cards.Ship(id); err != nil {
		t.Fatal(err)
	}
	if n := len(simtest.EventsOf(sim, "card.application.awaiting_bind")); n != 1 {
		t.Fatalf("%d awaiting_bind events, want 1", n)
	}
	activate(t, sim, cl, id)
	// Another member cannot see the card.
	_, err := cl.Cards.Get(ctx, "member-2", id)
	simtest.WantCode(t, err, mwallet.CodeMemberNotFound)
	checkBooks(t, sim)
}

func TestActivationLockWindow(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	id := physicalIn(t, sim, cl, cards.CardUnactivated)
	pl, _ := sim.Cards.Plastic(id)
	wrongExpiry := "12/99"
	steps := []struct {
		p    cards.ActivateParams
		code mwallet.Code
	}{
		{cards.ActivateParams{Expiry: wrongExpiry, PIN: goodPIN}, mwallet.CodeCardActivateFailed}, // counted: 1
		{cards.ActivateParams{Expiry: pl.Expiry, PIN: "1357"}, mwallet.CodeCardPinInvalid},        // length: not counted
		{cards.ActivateParams{Expiry: pl.Expiry, PIN: "123456"}, mwallet.CodeCardPinRejected},     // counted: 2
		{cards.ActivateParams{Expiry: pl.Expiry, PIN: "13579024"}, mwallet.CodeCardPinInvalid},    // not counted
		{cards.ActivateParams{Expiry: wrongExpiry, PIN: goodPIN}, mwallet.CodeCardActivateFailed}, // counted: 3, locks
		{cards.ActivateParams{Expiry: pl.Expiry, PIN: goodPIN}, mwallet.CodeStateInvalid},         // locked
	}
	for i, s := range steps {
		_, err := cl.Cards.Activate(ctx, member, id, s.p)
		apiErr := simtest.WantCode(t, err, s.code)
		if i == len(steps)-1 {
			want := sim.Clock.Now().Add(24 * time.Hour)
			if !apiErr.LockedUntil.Equal(want) {
				t.Fatalf("locked_until = %s, want %s", apiErr.LockedUntil, want.Format(time.RFC3339))
			}
		}
	}
	if c := getCard(t, cl, id); c.Status != cards.CardUnactivated || c.LockedUntil.IsZero() {
		t.Fatalf("locked card = %+v", c)
	}
	// Still locked one second before the end of the window.
	sim.Clock.Advance(24*time.Hour - time.Second)
	_, err := cl.Cards.Activate(ctx, member, id, cards.ActivateParams{Expiry: pl.Expiry, PIN: goodPIN})
	simtest.WantCode(t, err, mwallet.CodeStateInvalid)
	sim.Clock.Advance(time.Second)
	activate(t, sim, cl, id)
	// A repeat activation of a card activated with its PIN succeeds, uncounted.
	activate(t, sim, cl, id)
	if n := len(simtest.EventsOf(sim, "card.status.updated")); n < 1 {
		t.Fatal("activation sent no card.status.updated")
	}
	checkBooks(t, sim)
}

func TestActivationOperatorUnlock(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	id := physicalIn(t, sim, cl, cards.CardUnactivated)
	for i := 0; i < 3; i++ {
		_, err := cl.Cards.Activate(ctx, member, id, cards.ActivateParams{Expiry: "12/99", PIN: goodPIN})
		simtest.WantCode(t, err, mwallet.CodeCardActivateFailed)
	}
	if err := sim.Cards.UnlockActivation(id); err != nil {
		t.Fatal(err)
	}
	activate(t, sim, cl, id)
	checkBooks(t, sim)
}

func TestRepeatActivationAfterSeparatePIN(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	id := activePhysical(t, sim, cl)
	if _, err := withStepUp(t, sim, func(o ...mwallet.CallOption) (*cards.PINResult, error) {
		return cl.Cards.SetPIN(ctx, member, id, cards.SetPINParams{NewPIN: "246809", CurrentPIN: goodPIN}, o...)
	}); err != nil {
		t.Fatal(err)
	}
	pl, _ := sim.Cards.Plastic(id)
	_, err := cl.Cards.Activate(ctx, member, id, cards.ActivateParams{Expiry: pl.Expiry, PIN: goodPIN})
	simtest.WantCode(t, err, mwallet.CodeCardPinRejected)
	if c := getCard(t, cl, id); c.Status != cards.CardActive {
		t.Fatalf("card is %s, want still active", c.Status)
	}
	checkBooks(t, sim)
}

func TestLostIsSilentAndNeedsStepUp(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	id := activePhysical(t, sim, cl)
	before := len(simtest.EventsOf(sim, "card.status.updated"))
	res, err := withStepUp(t, sim, func(o ...mwallet.CallOption) (*cards.LostResult, error) {
		return cl.Cards.ReportLost(ctx, member, id, cards.LostKindStolen, o...)
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != cards.CardLost || res.Kind != cards.LostKindStolen {
		t.Fatalf("lost = %+v", res)
	}
	if n := len(simtest.EventsOf(sim, "card.status.updated")); n != before {
		t.Fatalf("lost sent %d card.status.updated events, want none", n-before)
	}
	// Recoverable only through a replacement; the balance moves with it.
	rep, err := cl.Cards.Replace(ctx, member, id, cards.ReplaceParams{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ReplacedCardID != id || rep.Status != cards.CardUnactivated || rep.CardID == id {
		t.Fatalf("replacement = %+v", rep)
	}
	if st := getCard(t, cl, id).Status; st != cards.CardReplaced {
		t.Fatalf("old card %s, want replaced", st)
	}
	checkBooks(t, sim)
}

func TestCloseRules(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	id := issueVirtual(t, sim, cl, "25")
	check := func(want ...cards.CloseBlocker) {
		t.Helper()
		cc, err := cl.Cards.CheckClose(ctx, member, id)
		if err != nil {
			t.Fatal(err)
		}
		if cc.Closable != (len(want) == 0) || len(cc.Reasons) != len(want) {
			t.Fatalf("close-check = %+v, want blockers %v", cc, want)
		}
		for i := range want {
			if cc.Reasons[i] != want[i] {
				t.Fatalf("close-check = %+v, want blockers %v", cc, want)
			}
		}
	}
	closeFails := func() {
		t.Helper()
		_, err := cl.Cards.Close(ctx, member, id, cards.CloseParams{})
		simtest.WantCode(t, err, mwallet.CodeAPIError)
		if st := getCard(t, cl, id).Status; st != cards.CardActive {
			t.Fatalf("failed close moved the card to %s", st)
		}
	}
	check(cards.CloseBlockedBalance)
	closeFails()

	// Spend the balance with an authorization that is not settled yet.
	tx, err := sim.Cards.AddTransaction(id, simulator.CardTransaction{Kind: "auth", Status: "pending", Direction: "debit", Amount: "2500", AuthCode: "A1"})
	if err != nil {
		t.Fatal(err)
	}
	check(cards.CloseBlockedBalance, cards.CloseBlockedUnsettled)
	if _, err := sim.Cards.AddTransaction(id, simulator.CardTransaction{ID: tx, Kind: "auth", Status: "succeed", Direction: "debit", Amount: "2500", BillAmount: "2500", AuthCode: "A1"}); err != nil {
		t.Fatal(err)
	}
	if c := getCard(t, cl, id); !c.Balance.IsZero() {
		t.Fatalf("balance after settlement %s", c.Balance)
	}
	check()

	if err := sim.Cards.SetUpstreamBalanceReadable(id, false); err != nil {
		t.Fatal(err)
	}
	check(cards.CloseBlockedUpstreamBalance)
	closeFails()
	if err := sim.Cards.SetUpstreamBalanceReadable(id, true); err != nil {
		t.Fatal(err)
	}

	reason := strings.Repeat("r", 300) // the service truncates; the SDK sends it as given
	res, err := cl.Cards.Close(ctx, member, id, cards.CloseParams{Reason: reason})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != cards.CardClosing {
		t.Fatalf("close = %+v", res)
	}
	// Repeats on closing and closed cards: 200 closing, no new upstream request.
	for _, step := range []func(){func() {}, func() {
		if err := sim.Cards.CompleteClose(id); err != nil {
			t.Fatal(err)
		}
	}} {
		step()
		if r, err := cl.Cards.Close(ctx, member, id, cards.CloseParams{}); err != nil || r.Status != cards.CardClosing {
			t.Fatalf("repeat close = %+v, %v", r, err)
		}
		if n, _ := sim.Cards.UpstreamCloseRequests(id); n != 1 {
			t.Fatalf("%d upstream close requests, want 1", n)
		}
	}
	c := getCard(t, cl, id)
	if c.Status != cards.CardClosed || !c.Status.Ended() {
		t.Fatalf("card %s, want closed", c.Status)
	}
	var seq []string
	for _, e := range simtest.EventsOf(sim, "card.status.updated") {
		seq = append(seq, e.Status)
	}
	if got := strings.Join(seq, ","); got != "closing,closed" {
		t.Fatalf("card.status.updated statuses %s, want closing,closed", got)
	}
	checkBooks(t, sim)
}

func TestFreezeIsReversible(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	id := issueVirtual(t, sim, cl, "")
	v0 := getCard(t, cl, id).StatusVersion
	for _, step := range []struct {
		do   func() (*cards.StatusResult, error)
		want cards.CardStatus
	}{
		{func() (*cards.StatusResult, error) { return cl.Cards.Freeze(ctx, member, id) }, cards.CardFrozen},
		{func() (*cards.StatusResult, error) { return cl.Cards.Unfreeze(ctx, member, id) }, cards.CardActive},
		{func() (*cards.StatusResult, error) {
			return cl.Cards.Freeze(ctx, member, strings.TrimPrefix(id, "crd_"))
		}, cards.CardFrozen},
	} {
		r, err := step.do()
		if err != nil || r.Status != step.want {
			t.Fatalf("got %+v, %v; want %s", r, err, step.want)
		}
	}
	if v := getCard(t, cl, id).StatusVersion; v != v0+3 {
		t.Fatalf("status_version %d, want %d", v, v0+3)
	}
	evs := simtest.EventsOf(sim, "card.status.updated")
	if len(evs) != 3 || evs[2].StatusVersion != v0+3 || evs[2].ObjectID != strings.TrimPrefix(id, "crd_") {
		t.Fatalf("events = %+v", evs)
	}
	if cards.CardID(evs[2].ObjectID) != id {
		t.Fatalf("CardID(%q) = %q, want %q", evs[2].ObjectID, cards.CardID(evs[2].ObjectID), id)
	}
	checkBooks(t, sim)
}

func TestListAndSecureSession(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	var ids []string
	for i := 0; i < 3; i++ {
		ids = append(ids, issueVirtual(t, sim, cl, ""))
		sim.Clock.Advance(time.Second)
	}
	var got []string
	for c, err := range cl.Cards.List(ctx, member, mwallet.ListParams{Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		if !c.Balance.Equal(money.MustParse("0", 2)) || c.Currency != "USD" {
			t.Fatalf("card %+v", c)
		}
		got = append(got, c.ID)
	}
	if len(got) != 3 || got[0] != ids[2] || got[2] != ids[0] {
		t.Fatalf("list %v, want newest first %v", got, ids)
	}
	ss, err := cl.Cards.SecureSession(ctx, member, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if ss.Token.Reveal() == "" || ss.HostedURL == "" || !ss.ExpiresAt.After(sim.Clock.Now()) {
		t.Fatalf("session %+v", ss)
	}
	if s := ss.Token.String(); strings.Contains(ss.HostedURL, ss.Token.Reveal()) || s != "[redacted]" {
		t.Fatal("the session token leaks")
	}
	resp, err := http.Get(ss.HostedURL)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), `"state":"open"`) {
		t.Fatalf("hosted page: %d %s", resp.StatusCode, page)
	}
	checkBooks(t, sim)
}

// TestActivationRetryIsNotCounted: resending a failed activation with the
// same idempotency key (a network retry) replays the stored failure and does
// not count again.
func TestActivationRetryIsNotCounted(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	id := physicalIn(t, sim, cl, cards.CardUnactivated)
	key := "0f8e2c1a-9b7d-4e3f-a1c2-3d4e5f6a7b8c"
	for i := 0; i < 5; i++ {
		var resp *mwallet.Response
		_, err := cl.Cards.Activate(ctx, member, id, cards.ActivateParams{Expiry: "12/99", PIN: goodPIN},
			mwallet.WithIdempotencyKey(key), mwallet.WithResponse(&resp))
		simtest.WantCode(t, err, mwallet.CodeCardActivateFailed)
		if resp == nil || resp.Replayed != (i > 0) {
			t.Fatalf("attempt %d: replayed = %v", i+1, resp != nil && resp.Replayed)
		}
	}
	// One counted failure so far: two more new attempts are allowed before the lock.
	_, err := cl.Cards.Activate(ctx, member, id, cards.ActivateParams{Expiry: "12/99", PIN: goodPIN})
	simtest.WantCode(t, err, mwallet.CodeCardActivateFailed)
	activate(t, sim, cl, id)
	checkBooks(t, sim)
}
