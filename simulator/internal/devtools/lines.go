package devtools

import (
	cardline "github.com/mwallet/mwallet-go/simulator/internal/cards"
	"github.com/mwallet/mwallet-go/simulator/internal/deposits"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/members"
	"github.com/mwallet/mwallet-go/simulator/internal/qrpay"
	"github.com/mwallet/mwallet-go/simulator/internal/remittances"
	hookline "github.com/mwallet/mwallet-go/simulator/internal/webhooks"
)

// Lines is the Source of the simulator's wired lines, read through their
// read-only views. A line left nil is not wired and lists nothing; the
// webhook and members lines are always wired.
type Lines struct {
	QR      *qrpay.Line
	Card    *cardline.Line
	Remit   *remittances.Line
	Deposit *deposits.Line
	Hooks   *hookline.Line
	Members *members.Line
}

// QROrders lists the QR line's orders.
func (l Lines) QROrders(tx *kernel.Tx) []qrpay.Order {
	if l.QR == nil {
		return nil
	}
	return l.QR.Orders(tx)
}

// CardApplications lists the card line's applications.
func (l Lines) CardApplications(tx *kernel.Tx) []cardline.Snapshot {
	if l.Card == nil {
		return nil
	}
	return l.Card.ApplicationSnapshots(tx)
}

// Cards lists the card line's cards.
func (l Lines) Cards(tx *kernel.Tx) []cardline.Snapshot {
	if l.Card == nil {
		return nil
	}
	return l.Card.CardSnapshots(tx)
}

// CardTopUps lists the card line's top-ups.
func (l Lines) CardTopUps(tx *kernel.Tx) []cardline.Snapshot {
	if l.Card == nil {
		return nil
	}
	return l.Card.TopUpSnapshots(tx)
}

// Remittances lists the remittance line's orders.
func (l Lines) Remittances(tx *kernel.Tx) []remittances.Order {
	if l.Remit == nil {
		return nil
	}
	return l.Remit.Orders(tx)
}

// Deposits lists the deposit line's deposits.
func (l Lines) Deposits(tx *kernel.Tx) []deposits.Deposit {
	if l.Deposit == nil {
		return nil
	}
	return l.Deposit.Deposits(tx)
}

// Events lists the webhook line's recorded events, oldest first.
func (l Lines) Events(tx *kernel.Tx) []hookline.Event { return l.Hooks.Events(tx) }

// ExternalID is the external_member_id of a member id, "" for none.
func (l Lines) ExternalID(tx *kernel.Tx, memberID string) string {
	if m := l.Members.Get(tx, memberID); m != nil {
		return m.ExternalID
	}
	return ""
}
