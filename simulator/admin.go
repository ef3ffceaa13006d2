package simulator

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/devtools"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/members"
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

// keyring creates and changes the merchant's API Keys (the control API's
// side; the gateway reads them to authenticate). The Keys are part of the
// state; keyring holds it.
type keyring struct{ st *simState }

// add creates a Key; empty values are drawn from the seeded ids.
func (s *keyring) add(tx *kernel.Tx, clientID, apiKeyValue, signingKey string, ks KeySettings) (*apiKey, error) {
	clientID = strings.TrimSpace(clientID)
	if clientID == "" {
		clientID = "sim_client_" + tx.NewUUID()[:8]
	}
	if s.st.keys.Has(tx, clientID) {
		return nil, newErr("duplicate_resource", fmt.Sprintf("key %q already exists", clientID))
	}
	if apiKeyValue == "" {
		apiKeyValue = "sim_api_key_" + strings.ReplaceAll(tx.NewUUID(), "-", "")
	}
	if signingKey == "" {
		signingKey = "sim_signing_key_" + strings.ReplaceAll(tx.NewUUID(), "-", "")
	}
	k := &apiKey{
		ClientID: clientID, APIKey: apiKeyValue, SigningKey: signingKey,
		SignatureRequired: true, Env: Environment(s.st.merchant.Env(tx)),
	}
	if err := s.apply(k, ks); err != nil {
		return nil, err
	}
	s.st.keys.Put(tx, clientID, *k)
	return k, nil
}

// set changes the Key of clientID.
func (s *keyring) set(tx *kernel.Tx, clientID string, ks KeySettings) error {
	k, ok := s.st.keys.Get(tx, clientID)
	if !ok {
		return errNotFound("key")
	}
	if err := s.apply(&k, ks); err != nil {
		return err
	}
	s.st.keys.Put(tx, clientID, k)
	return nil
}

// apply applies ks to k: scopes outside the scope catalogue are dropped.
func (s *keyring) apply(k *apiKey, ks KeySettings) error {
	switch ks.Environment {
	case "", Sandbox, Production:
	default:
		return errInvalidRequest(fmt.Sprintf("environment %q: want sandbox or production", ks.Environment))
	}
	if ks.Scopes != nil {
		scopes := map[string]bool{}
		for _, sc := range ks.Scopes {
			sc = strings.TrimSpace(sc)
			if s.st.gw.ScopeCatalog[sc] {
				scopes[sc] = true
			}
		}
		k.Scopes = sortedSet(scopes)
	}
	if ks.ApproveRestricted != nil {
		k.Approved = kernel.List[string]{}
		if *ks.ApproveRestricted {
			k.Approved = sortedSet(restrictedScopes)
		}
	}
	if ks.Disabled != nil {
		k.Disabled = *ks.Disabled
	}
	if ks.SignatureRequired != nil {
		k.SignatureRequired = *ks.SignatureRequired
	}
	if ks.IPAllowlist != nil {
		k.IPAllowlist, k.IPAllowlistSet = kernel.ListOf(ks.IPAllowlist...), true
	}
	if ks.Environment != "" {
		k.Env = ks.Environment
	}
	if ks.ValidUntil != nil {
		k.ValidUntil = ks.ValidUntil.UTC()
	}
	return nil
}

// keyJSON renders a Key; the secrets only when withSecrets (on creation).
func keyJSON(k apiKey, withSecrets bool) map[string]any {
	requested := append([]string{}, k.Scopes.Slice()...)
	out := map[string]any{
		"client_id": k.ClientID, "requested_scopes": requested, "scopes": k.effectiveScopes(),
		"restricted_approved": k.Approved.Len() > 0, "disabled": k.Disabled,
		"signature_required": k.SignatureRequired, "ip_allowlist": append([]string{}, k.IPAllowlist.Slice()...),
		"environment": k.Env,
	}
	if !k.ValidUntil.IsZero() {
		out["valid_until"] = k.ValidUntil.Format(time.RFC3339)
	}
	if withSecrets {
		out["api_key"] = k.APIKey
		out["signing_key"] = k.SigningKey
	}
	return out
}

// createMemberControl creates a member for the control API and the Go
// control method: a refusal is an *apiError.
func createMemberControl(tx *kernel.Tx, l *members.Line, seed MemberSeed) (*member, error) {
	m, err := createMember(tx, l, seed)
	if err != nil {
		var ae *apiError
		if errors.As(err, &ae) {
			return nil, ae
		}
		return nil, errInvalidRequest(err.Error())
	}
	return m, nil
}

// MemberInfo describes a member for tests.
type MemberInfo struct {
	ID         string `json:"id"`
	ExternalID string `json:"external_member_id"`
	KYCLevel   int    `json:"kyc_level"`
	Status     string `json:"status"`
}

// memberInfo finds a member by mem_ id, bare uuid or external_member_id.
func (s *view) memberInfo(tx *kernel.Tx, id string) (MemberInfo, bool) {
	m := s.st.members.ByAny(tx, id)
	if m == nil {
		return MemberInfo{}, false
	}
	return MemberInfo{ID: m.ID, ExternalID: m.ExternalID, KYCLevel: m.KYCLevel, Status: m.Status}, true
}

// balance is a member's available and locked balance in asset (member by
// mem_ id, bare uuid or external_member_id; zero for an unknown one); the
// caller holds the state lock.
func (s *view) balance(tx *kernel.Tx, memberID, asset string) (available, locked money.Amount) {
	asset = strings.ToUpper(asset)
	m := s.st.members.ByAny(tx, memberID)
	if m == nil {
		sc, _ := s.st.cat.Scale(asset)
		return money.Zero(sc), money.Zero(sc)
	}
	return s.st.ledger.Balance(tx, MemberAvailable(m.ID), asset), s.st.ledger.Balance(tx, MemberLocked(m.ID), asset)
}

// memberJSON is the control API's document of member m, with its
// balances in every asset of the catalogue (devtools.MemberDocument).
func (s *view) memberJSON(tx *kernel.Tx, m *member) map[string]any {
	merchantID := m.MerchantID
	if merchantID == "" {
		merchantID = s.st.merchant.ID(tx)
	}
	return devtools.MemberDocument(tx, s.st.ledger, m, devtools.AssetCodes(s.st.cat.All()), merchantID)
}
