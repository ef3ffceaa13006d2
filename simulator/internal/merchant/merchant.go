// Package merchant is the merchant line of the simulator: the one merchant
// it plays (its id, custody model, status, environment, asset allowlist and
// QR fee rate). It owns that state; the other lines read it only through
// the read-only accessors of Line, and change it only through its
// transitions, which take the *kernel.Tx that proves the state lock is held.
// It also creates and changes the merchant's API keys (Keyring, keys.go)
// in a table the simulator keeps and the gateway reads.
package merchant

import (
	"fmt"
	"sort"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The custody models, statuses and environments the line knows, as the
// contract spells them. The simulator's public types convert to and from
// these strings.
const (
	PlatformHosted = kernel.PlatformHosted
	MerchantHosted = kernel.MerchantHosted

	StatusActive    = "active"
	StatusSuspended = "suspended"
	StatusFrozen    = "frozen"
	StatusClosed    = "closed"

	Sandbox    = "sandbox"
	Production = "production"
)

// MaxFeeRateBps is the highest merchant fee rate, in basis points.
const MaxFeeRateBps = 10000

// settings are the merchant, the one row of the line's cell.
type settings struct {
	ID     string
	Model  string
	Status string
	Env    string // the deployment the simulator plays
	// Allowlist narrows the catalogue when non-empty (sorted codes);
	// AllowlistSet says an operator set it (to empty, too).
	Allowlist    kernel.List[string]
	AllowlistSet bool
	// FeeRateBps is the merchant fee rate for merchant-funded QR payments.
	FeeRateBps int64
}

// state is the line's state: the merchant.
type state struct {
	merchant *kernel.Cell[settings]
}

// Line is the merchant line: its state, and its host. The state is part of
// the state image; the host is not.
type Line struct {
	st   state
	host Host `image:"-"`
}

// New returns the line for the merchant id, with its custody model, status
// and environment, no asset allowlist and no fee, answered by host; its cell
// is made in kernel k.
func New(k *kernel.Kernel, host Host, id, model, status, env string) *Line {
	return &Line{st: state{merchant: kernel.NewCell(k, "merchant.settings", settings{ID: id, Model: model, Status: status, Env: env})}, host: host}
}

func (l *Line) get(tx *kernel.Tx) settings { return l.st.merchant.Get(tx) }

// ID is the merchant's id.
func (l *Line) ID(tx *kernel.Tx) string { return l.get(tx).ID }

// Model is the merchant's custody model.
func (l *Line) Model(tx *kernel.Tx) string { return l.get(tx).Model }

// MerchantHosted reports whether the custody model is merchant_hosted.
func (l *Line) MerchantHosted(tx *kernel.Tx) bool { return l.get(tx).Model == MerchantHosted }

// PlatformHosted reports whether the custody model is platform_hosted.
func (l *Line) PlatformHosted(tx *kernel.Tx) bool { return l.get(tx).Model == PlatformHosted }

// Status is the merchant's status.
func (l *Line) Status(tx *kernel.Tx) string { return l.get(tx).Status }

// Active reports whether the merchant's status is active.
func (l *Line) Active(tx *kernel.Tx) bool { return l.get(tx).Status == StatusActive }

// Env is the environment (deployment) the simulator plays.
func (l *Line) Env(tx *kernel.Tx) string { return l.get(tx).Env }

// FeeRateBps is the merchant fee rate of merchant-funded QR payments, in
// basis points.
func (l *Line) FeeRateBps(tx *kernel.Tx) int64 { return l.get(tx).FeeRateBps }

// AssetAllowlist is a copy of the merchant's asset allowlist (code to true);
// empty when every enabled asset is allowed.
func (l *Line) AssetAllowlist(tx *kernel.Tx) map[string]bool {
	allow := l.get(tx).Allowlist
	out := make(map[string]bool, allow.Len())
	for code := range allow.Values() {
		out[code] = true
	}
	return out
}

// Allows reports whether the allowlist lets code through: it does when the
// allowlist is empty or lists code. Whether the asset exists and is enabled
// is the catalogue's question.
func (l *Line) Allows(tx *kernel.Tx, code string) bool {
	allow := l.get(tx).Allowlist
	return allow.Len() == 0 || allow.Index(func(c string) bool { return c == code }) >= 0
}

// AllowlistCodes are the allowlisted asset codes, sorted.
func (l *Line) AllowlistCodes(tx *kernel.Tx) []string {
	out := l.get(tx).Allowlist.Slice()
	if out == nil {
		out = []string{}
	}
	return out
}

// Change is a change of the merchant's settings. Empty strings and nil
// fields leave the setting as it is; a non-nil empty AssetAllowlist removes
// the allowlist.
type Change struct {
	Model          string
	Status         string
	Env            string
	FeeRateBps     *int64
	AssetAllowlist map[string]bool
}

// Validate checks the values of c that the line knows (the asset codes of
// the allowlist are the catalogue's question). The error names the field.
func (c Change) Validate() error {
	switch c.Model {
	case "", PlatformHosted, MerchantHosted:
	default:
		return fmt.Errorf("model %q: want platform_hosted or merchant_hosted", c.Model)
	}
	if c.Status != "" && !KnownStatus(c.Status) {
		return fmt.Errorf("status %q: want active, suspended, frozen or closed", c.Status)
	}
	switch c.Env {
	case "", Sandbox, Production:
	default:
		return fmt.Errorf("environment %q: want sandbox or production", c.Env)
	}
	if c.FeeRateBps != nil && !ValidFeeRate(*c.FeeRateBps) {
		return fmt.Errorf("fee_rate_bps must be between 0 and %d", MaxFeeRateBps)
	}
	return nil
}

// KnownStatus reports whether st is one of the merchant statuses.
func KnownStatus(st string) bool {
	switch st {
	case StatusActive, StatusSuspended, StatusFrozen, StatusClosed:
		return true
	}
	return false
}

// ValidFeeRate reports whether bps is a fee rate the merchant may have.
func ValidFeeRate(bps int64) bool { return bps >= 0 && bps <= MaxFeeRateBps }

// Apply applies c, which Validate accepted, to the merchant.
func (l *Line) Apply(tx *kernel.Tx, c Change) {
	l.st.merchant.Update(tx, func(m *settings) {
		if c.Model != "" {
			m.Model = c.Model
		}
		if c.Status != "" {
			m.Status = c.Status
		}
		if c.Env != "" {
			m.Env = c.Env
		}
		if c.FeeRateBps != nil {
			m.FeeRateBps = *c.FeeRateBps
		}
		if c.AssetAllowlist != nil {
			codes := make([]string, 0, len(c.AssetAllowlist))
			for code := range c.AssetAllowlist {
				codes = append(codes, code)
			}
			sort.Strings(codes)
			m.Allowlist, m.AllowlistSet = kernel.ListOf(codes...), true
		}
	})
}

// SetFeeRateBps sets the merchant fee rate of merchant-funded QR payments.
func (l *Line) SetFeeRateBps(tx *kernel.Tx, bps int64) {
	l.st.merchant.Update(tx, func(m *settings) { m.FeeRateBps = bps })
}

// Fields are the merchant's settings as the operator API renders them
// (POST/GET /_sim/merchant), without the prepaid balances.
func (l *Line) Fields(tx *kernel.Tx) map[string]any {
	m := l.get(tx)
	return map[string]any{
		"id": m.ID, "model": m.Model, "status": m.Status, "environment": m.Env,
		"fee_rate_bps": m.FeeRateBps, "asset_allowlist": l.AllowlistCodes(tx),
	}
}

// Legacy is the merchant line as the state image of recordings of
// versions 1 and 2 held it.
type Legacy struct{ St legacyState }

type legacyState struct {
	ID             string
	Model          string
	Status         string
	Env            string
	AssetAllowlist map[string]bool
	FeeRateBps     int64
}

// Legacy returns the line as the state image of recordings of versions 1
// and 2 held it: no allowlist map until an operator set one.
func (l *Line) Legacy(tx *kernel.Tx) *Legacy {
	m := l.get(tx)
	st := legacyState{ID: m.ID, Model: m.Model, Status: m.Status, Env: m.Env, FeeRateBps: m.FeeRateBps}
	if m.AllowlistSet {
		st.AssetAllowlist = l.AssetAllowlist(tx)
	}
	return &Legacy{St: st}
}
