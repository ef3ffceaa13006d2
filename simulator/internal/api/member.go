package api

import "time"

// Member is a member of the merchant. Every line reads it; the members
// line alone changes it.
type Member struct {
	ID              string // mem_<uuid>
	ExternalID      string
	KYCLevel        int
	Status          string   // active, suspended, blocklisted, frozen
	PaymentPriority []string // asset codes in the member's payment order
	HasKYCProfile   bool
	PlatformDirect  bool   // served by the platform with no merchant between: no events
	FundsProtected  bool   // funds-protection mode: card top-ups and QR payments refused
	MerchantID      string // owning merchant when not this one: a foreign member
	CreatedAt       time.Time
}
