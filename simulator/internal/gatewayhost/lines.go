package gatewayhost

import (
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Lines are the lines the exchange reads or tells (internal/merchant,
// internal/members, internal/stepup, internal/qrpay,
// internal/remittances answer them).
type Lines struct {
	Merchant interface {
		ID(tx *kernel.Tx) string
		Env(tx *kernel.Tx) string
		Status(tx *kernel.Tx) string
	}
	Members interface {
		Get(tx *kernel.Tx, id string) *api.Member
		ByExternal(tx *kernel.Tx, external string) *api.Member
	}
	StepUp interface {
		Issue(tx *kernel.Tx, memberID, action string, now time.Time) error
		Sweep(tx *kernel.Tx, id string, now time.Time)
	}
	QR interface {
		ExpireMemo(tx *kernel.Tx, key string, now time.Time)
	}
	Remit interface {
		ExpireIdempotencyKey(tx *kernel.Tx, key string, now time.Time)
	}
}

// APIKey is the API key of clientID, if there is one.
func (h *Host) APIKey(tx *kernel.Tx, clientID string) (gateway.Key, bool) {
	return h.Keys.Get(tx, clientID)
}

// AccessToken is the access token of value, if one was issued and has not
// been swept.
func (h *Host) AccessToken(tx *kernel.Tx, value string) (gateway.Token, bool) {
	return h.Tokens.Get(tx, value)
}

// PutAccessToken keeps an issued access token.
func (h *Host) PutAccessToken(tx *kernel.Tx, t gateway.Token) { h.Tokens.Put(tx, t) }

// Merchant is the merchant's environment and status.
func (h *Host) Merchant(tx *kernel.Tx) (env, status string) {
	return h.Lines.Merchant.Env(tx), h.Lines.Merchant.Status(tx)
}

// MerchantID is the merchant's id, the scope of idempotency keys.
func (h *Host) MerchantID(tx *kernel.Tx) string { return h.Lines.Merchant.ID(tx) }

// Member is the member of id, nil when there is none.
func (h *Host) Member(tx *kernel.Tx, id string) *api.Member { return h.Lines.Members.Get(tx, id) }

// MemberByExternal is the member of an external_member_id, nil when there
// is none.
func (h *Host) MemberByExternal(tx *kernel.Tx, external string) *api.Member {
	return h.Lines.Members.ByExternal(tx, external)
}

// IssueStepUp issues a step-up challenge for memberID and action.
func (h *Host) IssueStepUp(tx *kernel.Tx, memberID, action string, now time.Time) error {
	return h.Lines.StepUp.Issue(tx, memberID, action, now)
}

// Token deletes an expired access token (the sweep's hook, internal/gateway's
// Expired, as the three below).
func (h *Host) Token(tx *kernel.Tx, value string) { h.Tokens.Delete(tx, value) }

// Challenge tells the step-up line its challenge id expired.
func (h *Host) Challenge(tx *kernel.Tx, id string, now time.Time) { h.Lines.StepUp.Sweep(tx, id, now) }

// QRMemo tells the QR line its memo entry key expired.
func (h *Host) QRMemo(tx *kernel.Tx, key string, now time.Time) { h.Lines.QR.ExpireMemo(tx, key, now) }

// RemittanceKey tells the remittances line its idempotency record key
// expired.
func (h *Host) RemittanceKey(tx *kernel.Tx, key string, now time.Time) {
	h.Lines.Remit.ExpireIdempotencyKey(tx, key, now)
}
