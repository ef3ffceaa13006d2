package simulator

import (
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/merchant"
)

// MerchantStatus is the merchant's standing with the service.
type MerchantStatus string

// Merchant statuses. A suspended merchant may read but not write; a frozen or
// closed one may do neither (merchant_disabled).
const (
	MerchantActive    MerchantStatus = "active"
	MerchantSuspended MerchantStatus = "suspended"
	MerchantFrozen    MerchantStatus = "frozen"
	MerchantClosed    MerchantStatus = "closed"
)

// Known reports whether st is one of the statuses above.
func (st MerchantStatus) Known() bool {
	switch st {
	case MerchantActive, MerchantSuspended, MerchantFrozen, MerchantClosed:
		return true
	}
	return false
}

// MerchantSettings changes the merchant. Zero fields leave the setting as it
// is.
type MerchantSettings struct {
	// Model switches the custody model.
	Model Model
	// Status sets the merchant status.
	Status MerchantStatus
	// Environment switches the deployment the simulator plays. Tokens and
	// Keys of the other environment then get environment_mismatch.
	Environment Environment
	// FeeRateBps sets the merchant fee rate of merchant-funded QR payments,
	// in basis points.
	FeeRateBps *int64
	// AssetAllowlist replaces the merchant's asset allowlist; a non-nil
	// empty slice removes it (every enabled asset is allowed).
	AssetAllowlist []string
	// Prepaid sets prepaid available balances exactly (asset code to
	// decimal string); the difference is posted against the world account.
	Prepaid map[string]string
}

// KeySettings changes an API Key. Nil or zero fields leave the setting as it
// is.
type KeySettings struct {
	// Scopes replaces the Key's requested scopes; unknown scope keys are
	// dropped silently, as the service does.
	Scopes []string
	// ApproveRestricted approves (true) or withdraws (false) the operator
	// approval of the restricted scopes deposits:write and cards:secure.
	ApproveRestricted *bool
	// Disabled disables or re-enables the Key; tokens of a disabled Key get
	// invalid_token at once.
	Disabled *bool
	// SignatureRequired switches write signing for the Key (POST
	// /v1/deposits is signed regardless).
	SignatureRequired *bool
	// IPAllowlist replaces the allowlist; a non-nil empty slice clears it.
	IPAllowlist []string
	// Environment moves the Key to another environment.
	Environment Environment
	// ValidUntil makes the Key stop working exactly at that instant of the
	// simulator clock (rotation); the zero time removes the limit.
	ValidUntil *time.Time
}

// Bool returns a pointer to v, for the optional fields of KeySettings.
func Bool(v bool) *bool { return &v }

// keyring creates and changes the merchant's API Keys (internal/merchant's
// Keyring) over the state's table of apiKey (keyTableOf); the scopes are
// those of the gateway's scope catalogue.
func (st *simState) keyring() merchant.Keyring {
	return merchant.Keyring{Keys: keyTableOf(st.keys), Merchant: st.merchant, Scopes: st.gw.ScopeCatalog}
}

// keyTableOf is the state's table of Keys as internal/merchant's KeyTable
// (merchant.Table), converted by apiKey.key and apiKeyOf (gateway_auth.go).
func keyTableOf(t *kernel.Table[string, apiKey]) merchant.Table[apiKey] {
	return merchant.Table[apiKey]{T: t, Key: apiKey.key, Row: apiKeyOf}
}

// MemberInfo describes a member for tests.
type MemberInfo struct {
	ID         string `json:"id"`
	ExternalID string `json:"external_member_id"`
	KYCLevel   int    `json:"kyc_level"`
	Status     string `json:"status"`
}
