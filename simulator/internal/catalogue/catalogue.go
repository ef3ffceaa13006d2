// Package catalogue is the simulator's asset catalogue, a kernel service
// below the lines: every asset the simulator knows, in catalogue order,
// with its ledger and display scales and its networks, the one parser of
// amount strings, and the GET /v1/assets answer. The lines reach it
// through the transaction (tx.Amount, tx.AssetScale, tx.Assets, tx.Asset).
//
// The catalogue is fixed once the fixture is loaded; the merchant's
// allowlist, which narrows what the merchant may use, is the merchant's and
// is passed in. The only state it touches is the cache of the encoded
// listing, a kernel cell its owner hands it (Cache).
package catalogue

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Catalogue is the asset catalogue.
type Catalogue struct {
	assets []*Asset          // in catalogue order
	byCode map[string]*Asset // by code
	cache  Cache
}

// Cache keeps the encoded GET /v1/assets answer and the allowlist it was
// built for (key); its owner holds it in a kernel cell, so it is state and
// changes only in a transaction.
type Cache interface {
	// Get returns the kept answer; ok is false when none is kept.
	Get(tx *kernel.Tx) (key, body string, ok bool)
	// Set keeps body as the answer for key.
	Set(tx *kernel.Tx, key, body string)
}

// Asset is a catalogue entry.
type Asset struct {
	Code         string
	Name         string
	LedgerScale  int
	DisplayScale int
	Enabled      bool
	Networks     []Network
}

// Network is a catalogue network item of an asset.
type Network struct {
	Network                   string
	NetworkName               string
	DepositEnabled            bool
	DepositUnavailableReason  string
	MinDeposit                string
	ConfirmationsRequired     int
	MemoRequired              bool
	DepositETAMinutes         int
	WithdrawEnabled           bool
	WithdrawUnavailableReason string
	MinWithdraw               string
	MaxWithdraw               string
	WithdrawFeeFixed          string
	WithdrawFeeBps            int
	WithdrawCoolingHours      int
	WithdrawETAMinutes        int
	WithdrawRequireKYCLevel   int
}

// New returns an empty catalogue whose listing is kept in cache.
func New(cache Cache) *Catalogue {
	return &Catalogue{byCode: map[string]*Asset{}, cache: cache}
}

// Add appends a to the catalogue.
func (c *Catalogue) Add(a *Asset) {
	c.assets = append(c.assets, a)
	c.byCode[a.Code] = a
}

// All returns every asset, enabled or not, in catalogue order. The slice is
// the catalogue's own: callers only read it.
func (c *Catalogue) All() []*Asset { return c.assets }

// Codes are the codes of the catalogue's assets, sorted.
func (c *Catalogue) Codes() []string {
	out := make([]string, 0, len(c.assets))
	for _, a := range c.assets {
		out = append(out, a.Code)
	}
	sort.Strings(out)
	return out
}

// Lookup returns the asset of code (exact, upper case), or nil.
func (c *Catalogue) Lookup(code string) *Asset { return c.byCode[code] }

// Scale returns the ledger scale of code; false for an unknown asset.
func (c *Catalogue) Scale(code string) (int, bool) {
	a, ok := c.byCode[code]
	if !ok {
		return 0, false
	}
	return a.LedgerScale, true
}

// Allowed reports whether code is in the catalogue, enabled, and (when the
// merchant has an allowlist, allow) explicitly enabled there.
func (c *Catalogue) Allowed(code string, allow map[string]bool) bool {
	a := c.byCode[code]
	if a == nil || !a.Enabled {
		return false
	}
	if len(allow) > 0 && !allow[code] {
		return false
	}
	return true
}

// Listing returns the encoded GET /v1/assets answer for the allowlist
// allow: every enabled asset, narrowed by allow when it is non-empty. The
// catalogue is fixed after loading, so the answer is kept until the
// allowlist changes.
func (c *Catalogue) Listing(tx *kernel.Tx, allow map[string]bool) (json.RawMessage, error) {
	key := allowlistKey(allow)
	k, body, ok := c.cache.Get(tx)
	if !ok || k != key {
		b, err := json.Marshal(map[string]any{"assets": c.listed(allow)})
		if err != nil {
			return nil, err
		}
		body = string(b)
		c.cache.Set(tx, key, body)
	}
	return json.RawMessage(body), nil
}

func allowlistKey(allow map[string]bool) string {
	codes := make([]string, 0, len(allow))
	for c, ok := range allow {
		if ok {
			codes = append(codes, c)
		}
	}
	sort.Strings(codes)
	return strings.Join(codes, ",")
}

// listed returns the wire items of the enabled assets allow lets through.
func (c *Catalogue) listed(allow map[string]bool) []assetJSON {
	out := make([]assetJSON, 0, len(c.assets))
	for _, a := range c.assets {
		if !a.Enabled {
			continue
		}
		if len(allow) > 0 && !allow[a.Code] {
			continue
		}
		nets := make([]networkJSON, 0, len(a.Networks))
		for _, n := range a.Networks {
			item := networkJSON{
				Network: n.Network, NetworkName: n.NetworkName,
				DepositEnabled: n.DepositEnabled, DepositUnavailableReason: n.DepositUnavailableReason,
				MinDeposit: n.MinDeposit, ConfirmationsRequired: n.ConfirmationsRequired,
				MemoRequired: n.MemoRequired, DepositETAMinutes: n.DepositETAMinutes,
				WithdrawEnabled: n.WithdrawEnabled, WithdrawUnavailableReason: n.WithdrawUnavailableReason,
			}
			if n.WithdrawEnabled {
				n := n
				item.MinWithdraw = n.MinWithdraw
				item.MaxWithdraw = n.MaxWithdraw
				item.WithdrawFeeMode = "fixed"
				item.WithdrawFeeFixed = n.WithdrawFeeFixed
				item.WithdrawFeeBps = &n.WithdrawFeeBps
				item.WithdrawCoolingHours = &n.WithdrawCoolingHours
				item.WithdrawETAMinutes = &n.WithdrawETAMinutes
				item.WithdrawRequireKYCLevel = &n.WithdrawRequireKYCLevel
			}
			nets = append(nets, item)
		}
		out = append(out, assetJSON{Code: a.Code, Name: a.Name, LedgerScale: a.LedgerScale, DisplayScale: a.DisplayScale, Networks: nets})
	}
	return out
}

// assetJSON and networkJSON are the wire shapes of GET /v1/assets items.
type assetJSON struct {
	Code         string        `json:"code"`
	Name         string        `json:"name"`
	LedgerScale  int           `json:"ledger_scale"`
	DisplayScale int           `json:"display_scale"`
	Networks     []networkJSON `json:"networks"`
}

type networkJSON struct {
	Network                   string `json:"network"`
	NetworkName               string `json:"network_name"`
	DepositEnabled            bool   `json:"deposit_enabled"`
	DepositUnavailableReason  string `json:"deposit_unavailable_reason"`
	MinDeposit                string `json:"min_deposit"`
	ConfirmationsRequired     int    `json:"confirmations_required"`
	MemoRequired              bool   `json:"memo_required"`
	DepositETAMinutes         int    `json:"deposit_eta_minutes"`
	WithdrawEnabled           bool   `json:"withdraw_enabled"`
	WithdrawUnavailableReason string `json:"withdraw_unavailable_reason"`
	// Present only when withdrawal is enabled.
	MinWithdraw             string `json:"min_withdraw,omitempty"`
	MaxWithdraw             string `json:"max_withdraw,omitempty"`
	WithdrawFeeMode         string `json:"withdraw_fee_mode,omitempty"`
	WithdrawFeeFixed        string `json:"withdraw_fee_fixed,omitempty"`
	WithdrawFeeBps          *int   `json:"withdraw_fee_bps,omitempty"`
	WithdrawCoolingHours    *int   `json:"withdraw_cooling_hours,omitempty"`
	WithdrawETAMinutes      *int   `json:"withdraw_eta_minutes,omitempty"`
	WithdrawRequireKYCLevel *int   `json:"withdraw_require_kyc_level,omitempty"`
}
