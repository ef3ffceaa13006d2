package simulator

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/image"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// catalogue is the asset catalogue: every asset the simulator knows, in
// catalogue order, with its ledger and display scales and its networks. It
// is fixed once the fixture is loaded; the merchant's allowlist, which
// narrows what the merchant may use, is the merchant's and is passed in.
//
// The digest's projection (legacyCatalogue, image_legacy.go) writes it as
// the three Simulator fields it replaced, so digests and recordings of
// earlier builds are unchanged; a snapshot holds only its cache, a kernel
// cell.
type catalogue struct {
	assets []*asset                     // in catalogue order
	byCode map[string]*asset            // by code
	cache  *kernel.Cell[assetsCacheRow] // encoded GET /v1/assets answer
}

// assetsCacheRow is the cached GET /v1/assets answer (Set: there is one).
type assetsCacheRow struct {
	Key  string
	Body string
	Set  bool
}

// legacyCatalogue is the catalogue as the state image of recordings of
// versions 1 and 2 held it.
type legacyCatalogue struct {
	Assets []*asset
	ByCode map[string]*asset
	Cache  *image.AssetsCache
}

func (c *catalogue) legacy(tx *kernel.Tx) legacyCatalogue {
	out := legacyCatalogue{Assets: c.assets, ByCode: c.byCode}
	if r := c.cache.Get(tx); r.Set {
		out.Cache = &image.AssetsCache{Key: r.Key, Body: json.RawMessage(r.Body)}
	}
	return out
}

// asset is a catalogue entry.
type asset struct {
	Code         string
	Name         string
	LedgerScale  int
	DisplayScale int
	Enabled      bool
	Networks     []network
}

// network is a catalogue network item.
type network struct {
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

// newCatalogue returns an empty catalogue.
func newCatalogue() catalogue { return catalogue{byCode: map[string]*asset{}} }

// add appends a to the catalogue.
func (c *catalogue) add(a *asset) {
	c.assets = append(c.assets, a)
	c.byCode[a.Code] = a
}

// all returns every asset, enabled or not, in catalogue order. The slice is
// the catalogue's own: callers only read it.
func (c *catalogue) all() []*asset { return c.assets }

// lookup returns the asset of code (exact, upper case), or nil.
// codes are the codes of the catalogue's assets, sorted.
func (c *catalogue) codes() []string {
	out := make([]string, 0, len(c.assets))
	for _, a := range c.assets {
		out = append(out, a.Code)
	}
	sort.Strings(out)
	return out
}

func (c *catalogue) lookup(code string) *asset { return c.byCode[code] }

// scale returns the ledger scale of code; false for an unknown asset.
func (c *catalogue) scale(code string) (int, bool) {
	a, ok := c.byCode[code]
	if !ok {
		return 0, false
	}
	return a.LedgerScale, true
}

// allowed reports whether code is in the catalogue, enabled, and (when the
// merchant has an allowlist, allow) explicitly enabled there.
func (c *catalogue) allowed(code string, allow map[string]bool) bool {
	a := c.byCode[code]
	if a == nil || !a.Enabled {
		return false
	}
	if len(allow) > 0 && !allow[code] {
		return false
	}
	return true
}

// listing returns the encoded GET /v1/assets answer for the allowlist
// allow: every enabled asset, narrowed by allow when it is non-empty. The
// catalogue is fixed after loading, so the answer is kept until the
// allowlist changes.
func (c *catalogue) listing(tx *kernel.Tx, allow map[string]bool) (json.RawMessage, error) {
	key := allowlistKey(allow)
	r := c.cache.Get(tx)
	if !r.Set || r.Key != key {
		b, err := json.Marshal(map[string]any{"assets": c.listed(allow)})
		if err != nil {
			return nil, err
		}
		r = assetsCacheRow{Key: key, Body: string(b), Set: true}
		c.cache.Set(tx, r)
	}
	return json.RawMessage(r.Body), nil
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
func (c *catalogue) listed(allow map[string]bool) []assetJSON {
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
