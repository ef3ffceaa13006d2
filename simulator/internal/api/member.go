package api

import (
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Member is a member of the merchant, a row of the members line's table.
// Every line reads it (a copy); the members line alone changes it.
type Member struct {
	ID              string // mem_<uuid>
	ExternalID      string
	KYCLevel        int
	Status          string              // active, suspended, blocklisted, frozen
	PaymentPriority kernel.List[string] // asset codes in the member's payment order
	HasKYCProfile   bool
	PlatformDirect  bool   // served by the platform with no merchant between: no events
	FundsProtected  bool   // funds-protection mode: card top-ups and QR payments refused
	MerchantID      string // owning merchant when not this one: a foreign member
	CreatedAt       time.Time
	// Seq numbers the members in the order they were created.
	Seq int64
}

// LegacyMember is a member as the state image of recordings of versions 1
// and 2 held it (the members line's Legacy).
type LegacyMember struct {
	ID              string
	ExternalID      string
	KYCLevel        int
	Status          string
	PaymentPriority []string
	HasKYCProfile   bool
	PlatformDirect  bool
	FundsProtected  bool
	MerchantID      string
	CreatedAt       time.Time
}

// Legacy is m as the state image of recordings of versions 1 and 2 held it.
func (m Member) Legacy() *LegacyMember {
	return &LegacyMember{
		ID: m.ID, ExternalID: m.ExternalID, KYCLevel: m.KYCLevel, Status: m.Status,
		PaymentPriority: m.PaymentPriority.Slice(), HasKYCProfile: m.HasKYCProfile,
		PlatformDirect: m.PlatformDirect, FundsProtected: m.FundsProtected, MerchantID: m.MerchantID,
		CreatedAt: m.CreatedAt,
	}
}
