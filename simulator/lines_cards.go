package simulator

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	cardline "github.com/mwallet/mwallet-go/simulator/internal/cards"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kyc"
)

// The card line (internal/cards): its registration, its control actions and
// its host.

// CollectionCardClosures is the outcome collection of card closures: a card
// in closing converges to closed when its closure succeeds upstream.
const CollectionCardClosures OutcomeCollection = "cards/closures"

// registerCards builds the card line (its secret drawn from the seeded
// source), registers its outcome success paths, its endpoints and its
// control actions.
func (ctl *controlAPI) registerCards() {
	s := ctl.sim
	var key [32]byte
	for i := 0; i < len(key); i += 8 {
		binary.LittleEndian.PutUint64(key[i:], s.st.rng.Uint64())
	}
	scale, _ := s.st.cat.scale(cardline.LedgerAsset)
	s.st.cards = cardline.New(cardsHost{st: &s.st, url: s.URL}, key[:], scale)
	// The issuer's success paths of what is in flight (outcome.go).
	s.wiring.timers.on(CollectionCardApplications, s.st.cards.SucceedApplication)
	s.wiring.timers.on(CollectionCardClosures, s.st.cards.SucceedClosure)
	s.wiring.timers.on(CollectionCardTopups, s.st.cards.SucceedTopUp)
	for _, e := range s.st.cards.Endpoints() {
		s.wiring.gw.register(e)
	}
	ctl.registerCardActions()
}

// registerCardActions registers the card line's control actions. Each has a
// method on CardsControl of the same meaning.
func (ctl *controlAPI) registerCardActions() {
	s := ctl.sim
	cardAction := func(f func(tx *kernel.Tx, id string) (map[string]any, error)) actionFunc {
		return func(tx *kernel.Tx, id string, _ []byte) (any, error) { return f(tx, id) }
	}
	appAction := func(f func(tx *kernel.Tx, id string) (map[string]any, error)) actionFunc {
		return func(tx *kernel.Tx, id string, _ []byte) (any, error) {
			if err := s.st.cards.FindApplication(tx, id); err != nil {
				return nil, unknownID("card application", id, err)
			}
			return f(tx, id)
		}
	}
	topUpAction := func(f func(tx *kernel.Tx, id string) (map[string]any, error)) actionFunc {
		return func(tx *kernel.Tx, id string, _ []byte) (any, error) {
			if err := s.st.cards.FindTopUp(tx, id); err != nil {
				return nil, unknownID("card top-up", id, err)
			}
			return f(tx, id)
		}
	}
	ctl.registerActions([]controlDecl{
		{action: "cards/applications/approve", act: appAction(s.st.cards.ApproveApplication)},
		{action: "cards/applications/reject", act: appAction(s.st.cards.RejectApplication)},
		{action: "cards/ship", act: cardAction(s.st.cards.Ship)},
		{action: "cards/transactions", withBody: true, act: func(tx *kernel.Tx, id string, body []byte) (any, error) {
			var in CardTransaction
			if err := decodeControl(body, &in); err != nil {
				return nil, err
			}
			_, out, err := s.st.cards.AddTransaction(tx, id, cardline.Transaction(in))
			if err != nil {
				return nil, err
			}
			return out, nil
		}},
		{action: "cards/close_complete", act: cardAction(s.st.cards.CompleteClose)},
		{action: "cards/set_status", withBody: true, act: func(tx *kernel.Tx, id string, body []byte) (any, error) {
			var in struct {
				Status string `json:"status"`
			}
			if err := decodeControl(body, &in); err != nil {
				return nil, err
			}
			return s.st.cards.SetStatus(tx, id, in.Status)
		}},
		{action: "cards/upstream_balance", withBody: true, act: func(tx *kernel.Tx, id string, body []byte) (any, error) {
			in := struct {
				Readable *bool `json:"readable"`
			}{}
			if err := decodeControl(body, &in); err != nil {
				return nil, err
			}
			if in.Readable == nil {
				return nil, fmt.Errorf("body must carry readable (true or false)")
			}
			return s.st.cards.SetUpstreamBalanceReadable(tx, id, *in.Readable)
		}},
		{action: "cards/unlock", act: cardAction(s.st.cards.UnlockActivation)},
		{action: "cards/plastic", act: func(tx *kernel.Tx, id string, _ []byte) (any, error) {
			p, err := s.st.cards.Plastic(tx, id)
			if err != nil {
				return nil, err
			}
			return CardPlastic(p), nil
		}},
		{action: "cards/topups/credit", act: topUpAction(s.st.cards.CreditTopUp)},
		{action: "cards/topups/reject", act: topUpAction(s.st.cards.RejectTopUp)},
		{action: "cards/topups/timeout", act: topUpAction(s.st.cards.TimeoutTopUp)},
	})
	ctl.registerTable(cardsRoutes)
}

// cardsHost is the card line's cards.Host.
type cardsHost struct {
	st  *simState
	url func() string // the simulator's address (Simulator.URL), for hosted links
}

func (h cardsHost) URL() string { return h.url() }

func (h cardsHost) MerchantHosted() bool { return h.st.merchant.MerchantHosted() }

func (h cardsHost) Member(id string) *api.Member { return h.st.members.Get(id) }

func (h cardsHost) Restricted(m *api.Member) bool { return memberRestriction(m) != "" }

func (h cardsHost) KYCInReview(m *api.Member) bool { return kycInReview(h.st, m) }

func (h cardsHost) BindingActive(m *api.Member, bindingID string) bool {
	return h.st.kyc.BindingActive(m, bindingID)
}

func (h cardsHost) AllocateBinding(tx *kernel.Tx, m *api.Member, email string) (string, error) {
	b, err := h.st.kyc.Allocate(tx, m, email)
	if err != nil {
		return "", err
	}
	return b.ID, nil
}

func (h cardsHost) CompensateBinding(tx *kernel.Tx, bindingID, applicationID string) error {
	_, err := h.st.kyc.Compensate(tx, bindingID, "auto", applicationID)
	return err
}

func (h cardsHost) QuickKYCFee() (asset, amount string) { return kyc.QuickFeeAsset, kyc.QuickFee }

func (h cardsHost) RequireStepUp(c *api.Request, parts ...string) error {
	return h.st.stepUp.Require(c, actionDigest(parts...))
}

func (h cardsHost) DisplayScale(asset string) int { return h.st.cat.lookup(asset).DisplayScale }

func (h cardsHost) Balance(account, asset string) money.Amount {
	return h.st.ledger.Balance(account, asset)
}

func (h cardsHost) Post(_ *kernel.Tx, at time.Time, memo string, postings ...cardline.Posting) error {
	ps := make([]Posting, 0, len(postings))
	for _, p := range postings {
		ps = append(ps, Posting{Account: p.Account, Asset: p.Asset, Amount: p.Amount})
	}
	return h.st.ledger.Post(at, memo, ps...)
}

func (h cardsHost) InsufficientFunds(err error) bool {
	var insuf *InsufficientFundsError
	return errors.As(err, &insuf)
}

func (h cardsHost) RandIntN(n int) int { return h.st.rng.IntN(n) }

// cardsRoutes declares the stand-in for the hosted page of a secure
// session (control_decl.go); registerCardActions registers it among the
// card actions.
var cardsRoutes = []controlDecl{
	{route: "GET /_sim/cards/secure-sessions/{id}", inTx: func(s *Simulator, tx *kernel.Tx, r *http.Request, body []byte) (int, any, error) {
		return s.st.cards.SecureSessionPage(tx, r, body)
	}},
}
