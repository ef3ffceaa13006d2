package simulator

import (
	"encoding/binary"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	cardline "github.com/mwallet/mwallet-go/simulator/internal/cards"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The card line (internal/cards): its building and its host.

// CollectionCardClosures is the outcome collection of card closures: a card
// in closing converges to closed when its closure succeeds upstream.
const CollectionCardClosures OutcomeCollection = "cards/closures"

// newCardsLine builds the card line, its secret drawn from the seeded
// source.
func newCardsLine(s *Simulator, tx *kernel.Tx) *cardline.Line {
	var key [32]byte
	for i := 0; i < len(key); i += 8 {
		binary.LittleEndian.PutUint64(key[i:], s.st.rng.Uint64(tx))
	}
	scale, _ := s.st.cat.Scale(cardline.LedgerAsset)
	return cardline.New(&s.k, tx, cardsHost{st: &s.st}, key[:], scale)
}

// cardsHost is the card line's cards.Host.
type cardsHost struct {
	st *simState
}

func (h cardsHost) Member(tx *kernel.Tx, id string) *api.Member { return h.st.members.Get(tx, id) }

func (h cardsHost) KYCInReview(tx *kernel.Tx, m *api.Member) bool { return h.st.kyc.InReview(tx, m) }

func (h cardsHost) BindingActive(tx *kernel.Tx, m *api.Member, bindingID string) bool {
	return h.st.kyc.BindingActive(tx, m, bindingID)
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

func (h cardsHost) RequireStepUp(c *api.Request, action string) error {
	return h.st.stepUp.Require(c, action)
}
