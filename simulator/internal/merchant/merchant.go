// Package merchant is the merchant line of the simulator: the one merchant
// it plays (its id, custody model, status, environment, asset allowlist and
// QR fee rate). It owns that state; the other lines read it only through
// the read-only accessors of Line, and change it only through its
// transitions, which take the *kernel.Tx that proves the state lock is held.
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
	PlatformHosted = "platform_hosted"
	MerchantHosted = "merchant_hosted"

	StatusActive    = "active"
	StatusSuspended = "suspended"
	StatusFrozen    = "frozen"
	StatusClosed    = "closed"

	Sandbox    = "sandbox"
	Production = "production"
)

// MaxFeeRateBps is the highest merchant fee rate, in basis points.
const MaxFeeRateBps = 10000

// state is the merchant. Its fields are part of the state image, in this
// order.
type state struct {
	ID     string
	Model  string
	Status string
	Env    string // the deployment the simulator plays
	// AssetAllowlist narrows the catalogue when non-empty.
	AssetAllowlist map[string]bool
	// FeeRateBps is the merchant fee rate for merchant-funded QR payments.
	FeeRateBps int64
}

// Line is the merchant line: its state, and its host. The state is part of
// the state image; the host is not.
type Line struct {
	st   state
	host Host `image:"-"`
}

// New returns the line for the merchant id, with its custody model, status
// and environment, no asset allowlist and no fee, answered by host.
func New(host Host, id, model, status, env string) *Line {
	return &Line{st: state{ID: id, Model: model, Status: status, Env: env}, host: host}
}

// ID is the merchant's id.
func (l *Line) ID() string { return l.st.ID }

// Model is the merchant's custody model.
func (l *Line) Model() string { return l.st.Model }

// MerchantHosted reports whether the custody model is merchant_hosted.
func (l *Line) MerchantHosted() bool { return l.st.Model == MerchantHosted }

// PlatformHosted reports whether the custody model is platform_hosted.
func (l *Line) PlatformHosted() bool { return l.st.Model == PlatformHosted }

// Status is the merchant's status.
func (l *Line) Status() string { return l.st.Status }

// Active reports whether the merchant's status is active.
func (l *Line) Active() bool { return l.st.Status == StatusActive }

// Env is the environment (deployment) the simulator plays.
func (l *Line) Env() string { return l.st.Env }

// FeeRateBps is the merchant fee rate of merchant-funded QR payments, in
// basis points.
func (l *Line) FeeRateBps() int64 { return l.st.FeeRateBps }

// AssetAllowlist is a copy of the merchant's asset allowlist (code to true);
// empty when every enabled asset is allowed.
func (l *Line) AssetAllowlist() map[string]bool {
	out := make(map[string]bool, len(l.st.AssetAllowlist))
	for k, v := range l.st.AssetAllowlist {
		out[k] = v
	}
	return out
}

// Allows reports whether the allowlist lets code through: it does when the
// allowlist is empty or lists code. Whether the asset exists and is enabled
// is the catalogue's question.
func (l *Line) Allows(code string) bool {
	return len(l.st.AssetAllowlist) == 0 || l.st.AssetAllowlist[code]
}

// AllowlistCodes are the allowlisted asset codes, sorted.
func (l *Line) AllowlistCodes() []string {
	allow := make([]string, 0, len(l.st.AssetAllowlist))
	for a := range l.st.AssetAllowlist {
		allow = append(allow, a)
	}
	sort.Strings(allow)
	return allow
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
func (l *Line) Apply(_ *kernel.Tx, c Change) {
	if c.Model != "" {
		l.st.Model = c.Model
	}
	if c.Status != "" {
		l.st.Status = c.Status
	}
	if c.Env != "" {
		l.st.Env = c.Env
	}
	if c.FeeRateBps != nil {
		l.st.FeeRateBps = *c.FeeRateBps
	}
	if c.AssetAllowlist != nil {
		l.st.AssetAllowlist = c.AssetAllowlist
	}
}

// SetFeeRateBps sets the merchant fee rate of merchant-funded QR payments.
func (l *Line) SetFeeRateBps(_ *kernel.Tx, bps int64) { l.st.FeeRateBps = bps }

// Fields are the merchant's settings as the operator API renders them
// (POST/GET /_sim/merchant), without the prepaid balances.
func (l *Line) Fields() map[string]any {
	return map[string]any{
		"id": l.st.ID, "model": l.st.Model, "status": l.st.Status, "environment": l.st.Env,
		"fee_rate_bps": l.st.FeeRateBps, "asset_allowlist": l.AllowlistCodes(),
	}
}
