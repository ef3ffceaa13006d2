package mwallet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/mwallet/mwallet-go/money"
)

// Asset is one entry of the asset catalogue (GET /v1/assets). LedgerScale is
// the number of decimals of every amount in this asset and never changes once
// the asset is listed; DisplayScale only truncates what is shown.
type Asset struct {
	// Code is the asset code, for example "USDT".
	Code string `json:"code"`
	// Name is the display name.
	Name string `json:"name"`
	// LedgerScale is the number of decimals of every amount in this asset.
	LedgerScale int `json:"ledger_scale"`
	// DisplayScale is the number of decimals to show (truncation only).
	DisplayScale int `json:"display_scale"`
	// Networks lists the networks of the asset, available or not; it may be
	// empty.
	Networks []Network `json:"networks"`
}

// FeeMode is the withdraw_fee_mode of a network. It is an open enumeration:
// unknown values are kept verbatim.
type FeeMode string

// Known withdraw fee modes.
const (
	// FeeModeFixed is a fixed fee (withdraw_fee_fixed).
	FeeModeFixed FeeMode = "fixed"
)

// Known reports whether m is a documented fee mode.
func (m FeeMode) Known() bool { return m == FeeModeFixed }

// Network is one network of an asset. The withdrawal details (MinWithdraw to
// WithdrawRequireKYCLevel) are present only when WithdrawEnabled is true;
// they are nil (or "") otherwise.
type Network struct {
	// Network is the machine code, case-sensitive; the only value accepted
	// as a network parameter elsewhere.
	Network string `json:"network"`
	// NetworkName is the display name; never send it as a parameter.
	NetworkName string `json:"network_name"`
	// DepositEnabled tells whether deposits are open on this network.
	DepositEnabled bool `json:"deposit_enabled"`
	// DepositUnavailableReason is empty when deposits are available.
	DepositUnavailableReason string `json:"deposit_unavailable_reason"`
	// MinDeposit is the smallest deposit, at the asset's ledger scale.
	MinDeposit money.Amount `json:"min_deposit"`
	// ConfirmationsRequired is the number of confirmations before credit.
	ConfirmationsRequired int `json:"confirmations_required"`
	// MemoRequired tells whether deposits need a memo.
	MemoRequired bool `json:"memo_required"`
	// DepositETA is the expected deposit time (deposit_eta_minutes on the
	// wire, and in JSON: Network marshals as the service sends it).
	DepositETA time.Duration `json:"-"`
	// WithdrawEnabled tells whether withdrawals are open on this network.
	WithdrawEnabled bool `json:"withdraw_enabled"`
	// WithdrawUnavailableReason explains a closed withdrawal (for example a
	// value meaning not open).
	WithdrawUnavailableReason string `json:"withdraw_unavailable_reason"`

	// MinWithdraw and MaxWithdraw bound one withdrawal.
	MinWithdraw *money.Amount `json:"min_withdraw,omitempty"`
	MaxWithdraw *money.Amount `json:"max_withdraw,omitempty"`
	// WithdrawFeeMode is the fee mode (seen value: fixed).
	WithdrawFeeMode FeeMode `json:"withdraw_fee_mode,omitempty"`
	// WithdrawFeeFixed is the fixed fee.
	WithdrawFeeFixed *money.Amount `json:"withdraw_fee_fixed,omitempty"`
	// WithdrawFeeBps is the proportional fee in basis points.
	WithdrawFeeBps *int `json:"withdraw_fee_bps,omitempty"`
	// WithdrawCooling is the cooling period after which funds can leave
	// (withdraw_cooling_hours on the wire).
	WithdrawCooling *time.Duration `json:"-"`
	// WithdrawETA is the expected withdrawal time (withdraw_eta_minutes on
	// the wire).
	WithdrawETA *time.Duration `json:"-"`
	// WithdrawRequireKYCLevel is the KYC level a member needs to withdraw.
	WithdrawRequireKYCLevel *int `json:"withdraw_require_kyc_level,omitempty"`
}

// ParseAmount parses s, a plain decimal string, at the asset's ledger scale.
// It never rounds: more non-zero decimals than the scale give a *ParamError
// wrapping money.ErrPrecision whose reason says so, for example
// `"1.0000001" has more decimals than the ledger scale (6) of USDT`.
func (a Asset) ParseAmount(s string) (money.Amount, error) {
	v, err := money.Parse(s, a.LedgerScale)
	if err != nil {
		return money.Amount{}, &ParamError{Param: "amount", Reason: a.parseReason(s, err), Code: CodeInvalidRequest, Err: err}
	}
	return v, nil
}

// parseReason says in words why s is not an amount of a.
func (a Asset) parseReason(s string, err error) string {
	q := fmt.Sprintf("%q", clip(s, 64))
	switch {
	case errors.Is(err, money.ErrPrecision):
		return fmt.Sprintf("%s has more decimals than the ledger scale (%d) of %s; amounts are never rounded", q, a.LedgerScale, a.Code)
	case errors.Is(err, money.ErrSyntax):
		return fmt.Sprintf("%s is not a plain decimal string (digits, one optional point, an optional leading minus; no exponent, no spaces, no thousands separators)", q)
	case errors.Is(err, money.ErrRange):
		return fmt.Sprintf("%s is out of range for an amount of %s", q, a.Code)
	case errors.Is(err, money.ErrScale):
		return fmt.Sprintf("%s cannot be parsed: the ledger scale (%d) of %s is out of range", q, a.LedgerScale, a.Code)
	}
	return fmt.Sprintf("%s is not an amount of %s at ledger scale %d", q, a.Code, a.LedgerScale)
}

// checkAssetAmount applies the AssetAmount rule: x.Amount is refused only
// when it has a non-zero decimal beyond the ledger scale of x.Asset, the
// one case the service refuses. An amount whose decimals are all zero fits
// every scale and is not looked up; otherwise the scale comes from the
// catalogue, loaded now when it is not cached, so the answer never depends
// on which calls came before. When the catalogue cannot be read, or does
// not list x.Asset, the amount is sent and the service decides.
func (c *Client) checkAssetAmount(ctx context.Context, x AssetAmount) error {
	code := strings.ToUpper(strings.TrimSpace(x.Asset))
	if code == "" {
		return nil
	}
	if _, err := x.Amount.Rescale(0); err == nil {
		return nil // a whole number: no decimals to check
	}
	a, ok, _, _ := c.assets.get(code)
	if !ok {
		var err error
		if a, err = c.Asset(ctx, code); err != nil {
			if ctx.Err() != nil {
				return err
			}
			return nil
		}
	}
	if _, err := x.Amount.Rescale(a.LedgerScale); err == nil {
		return nil
	}
	param, codeOut := x.Param, x.Code
	if param == "" {
		param = "amount"
	}
	if codeOut == "" {
		codeOut = CodeInvalidRequest
	}
	return &ParamError{
		Param: param,
		Reason: fmt.Sprintf("%s has a non-zero decimal beyond the ledger scale of %s (%d); the service accepts extra decimals only when they are zero and never rounds",
			x.Amount, a.Code, a.LedgerScale),
		Code: codeOut, Err: money.ErrPrecision,
	}
}

// Display formats x for people: truncated (never rounded) to the asset's
// display scale. Never parse the result back.
func (a Asset) Display(x money.Amount) string { return x.Display(a.DisplayScale) }

// Zero returns 0 at the asset's ledger scale.
func (a Asset) Zero() money.Amount { return money.Zero(a.LedgerScale) }

// Network returns the network whose machine code is code (case-sensitive).
func (a Asset) Network(code string) (Network, bool) {
	for _, n := range a.Networks {
		if n.Network == code {
			return n, true
		}
	}
	return Network{}, false
}

// AssetList is the asset catalogue.
type AssetList struct {
	// Assets are the listed assets in the service's order.
	Assets []Asset `json:"assets"`
	// Response is the metadata of the HTTP exchange.
	Response *Response `json:"-"`
}

// Find returns the asset with the given code.
func (l *AssetList) Find(code string) (Asset, bool) {
	for _, a := range l.Assets {
		if a.Code == code {
			return a, true
		}
	}
	return Asset{}, false
}

// wireAsset and wireNetwork are the catalogue as sent; amounts become
// money.Amount at the asset's ledger scale after decoding.
type wireAsset struct {
	Code         string        `json:"code"`
	Name         string        `json:"name"`
	LedgerScale  int           `json:"ledger_scale"`
	DisplayScale int           `json:"display_scale"`
	Networks     []wireNetwork `json:"networks"`
}

type wireNetwork struct {
	Network                   string  `json:"network"`
	NetworkName               string  `json:"network_name"`
	DepositEnabled            bool    `json:"deposit_enabled"`
	DepositUnavailableReason  string  `json:"deposit_unavailable_reason"`
	MinDeposit                string  `json:"min_deposit"`
	ConfirmationsRequired     int     `json:"confirmations_required"`
	MemoRequired              bool    `json:"memo_required"`
	DepositETAMinutes         int     `json:"deposit_eta_minutes"`
	WithdrawEnabled           bool    `json:"withdraw_enabled"`
	WithdrawUnavailableReason string  `json:"withdraw_unavailable_reason"`
	MinWithdraw               *string `json:"min_withdraw"`
	MaxWithdraw               *string `json:"max_withdraw"`
	WithdrawFeeMode           string  `json:"withdraw_fee_mode"`
	WithdrawFeeFixed          *string `json:"withdraw_fee_fixed"`
	WithdrawFeeBps            *int    `json:"withdraw_fee_bps"`
	WithdrawCoolingHours      *int    `json:"withdraw_cooling_hours"`
	WithdrawETAMinutes        *int    `json:"withdraw_eta_minutes"`
	WithdrawRequireKYCLevel   *int    `json:"withdraw_require_kyc_level"`
}

func (w wireAsset) asset() (Asset, error) {
	if strings.TrimSpace(w.Code) == "" {
		return Asset{}, fmt.Errorf("mwallet: asset catalogue: an asset has no code")
	}
	if w.LedgerScale < 0 || w.LedgerScale > money.MaxScale {
		return Asset{}, fmt.Errorf("mwallet: asset catalogue: %s has ledger_scale %d", w.Code, w.LedgerScale)
	}
	a := Asset{Code: w.Code, Name: w.Name, LedgerScale: w.LedgerScale, DisplayScale: w.DisplayScale, Networks: make([]Network, 0, len(w.Networks))}
	amount := func(field, s string) (money.Amount, error) {
		if strings.TrimSpace(s) == "" {
			return money.Zero(w.LedgerScale), nil
		}
		v, err := money.ParseNonNegative(s, w.LedgerScale)
		if err != nil {
			return money.Amount{}, fmt.Errorf("mwallet: asset catalogue: %s %s: %w", w.Code, field, err)
		}
		return v, nil
	}
	optional := func(field string, s *string) (*money.Amount, error) {
		if s == nil {
			return nil, nil
		}
		v, err := amount(field, *s)
		if err != nil {
			return nil, err
		}
		return &v, nil
	}
	for _, n := range w.Networks {
		out := Network{
			Network: n.Network, NetworkName: n.NetworkName,
			DepositEnabled: n.DepositEnabled, DepositUnavailableReason: n.DepositUnavailableReason,
			ConfirmationsRequired: n.ConfirmationsRequired, MemoRequired: n.MemoRequired,
			DepositETA: time.Duration(n.DepositETAMinutes) * time.Minute, WithdrawEnabled: n.WithdrawEnabled,
			WithdrawUnavailableReason: n.WithdrawUnavailableReason, WithdrawFeeMode: FeeMode(n.WithdrawFeeMode),
			WithdrawFeeBps: n.WithdrawFeeBps, WithdrawCooling: durationOf(n.WithdrawCoolingHours, time.Hour),
			WithdrawETA: durationOf(n.WithdrawETAMinutes, time.Minute), WithdrawRequireKYCLevel: n.WithdrawRequireKYCLevel,
		}
		var err error
		if out.MinDeposit, err = amount(n.Network+" min_deposit", n.MinDeposit); err != nil {
			return Asset{}, err
		}
		if out.MinWithdraw, err = optional(n.Network+" min_withdraw", n.MinWithdraw); err != nil {
			return Asset{}, err
		}
		if out.MaxWithdraw, err = optional(n.Network+" max_withdraw", n.MaxWithdraw); err != nil {
			return Asset{}, err
		}
		if out.WithdrawFeeFixed, err = optional(n.Network+" withdraw_fee_fixed", n.WithdrawFeeFixed); err != nil {
			return Asset{}, err
		}
		a.Networks = append(a.Networks, out)
	}
	return a, nil
}

// Assets lists the asset catalogue (GET /v1/assets; scope merchant:read) and
// refreshes the client's catalogue cache. Merchants with an asset allowlist
// see only those assets.
func (c *Client) Assets(ctx context.Context, opts ...CallOption) (*AssetList, error) {
	var answer assetsAnswer
	resp, err := c.Do(ctx, &Request{Method: http.MethodGet, Path: "/v1/assets"}, &answer, opts...)
	if err != nil {
		return nil, err
	}
	list := &AssetList{Assets: answer.assets, Response: resp}
	c.assets.put(list.Assets)
	return list, nil
}

// assetsAnswer is the answer of GET /v1/assets, read into Assets as it is
// decoded, so that a catalogue the SDK cannot read is the call's
// *AnswerError.
type assetsAnswer struct{ assets []Asset }

func (l *assetsAnswer) UnmarshalJSON(b []byte) error {
	var wire struct {
		Assets []wireAsset `json:"assets"`
	}
	if err := json.Unmarshal(b, &wire); err != nil {
		return err
	}
	l.assets = make([]Asset, 0, len(wire.Assets))
	for _, w := range wire.Assets {
		a, err := w.asset()
		if err != nil {
			return err
		}
		l.assets = append(l.assets, a)
	}
	return nil
}

// assetCache keeps the catalogue by code. Ledger scales never change once
// listed, so entries live as long as the client; an unknown code reloads
// the catalogue at most once per assetReloadEvery. A load the service
// refused (401 or 403: a Key without merchant:read, a disabled Key) is
// remembered for assetReloadEvery too, so that reads which only consult
// the catalogue do not send a refused GET /v1/assets each time; an
// explicit Client.Assets call always asks.
type assetCache struct {
	mu        sync.RWMutex
	byCode    map[string]Asset
	loadedAt  time.Time // real time of the last load
	refused   error     // the last load's refusal, until refusedAt+assetReloadEvery
	refusedAt time.Time
	group     singleflight.Group
}

// refuse remembers a refused load.
func (ac *assetCache) refuse(err error) {
	ac.mu.Lock()
	ac.refused, ac.refusedAt = err, time.Now()
	ac.mu.Unlock()
}

// refusal returns the remembered refusal of the last load, if recent.
func (ac *assetCache) refusal() error {
	ac.mu.RLock()
	defer ac.mu.RUnlock()
	if ac.refused != nil && time.Since(ac.refusedAt) < assetReloadEvery {
		return ac.refused
	}
	return nil
}

// isRefusal reports an answer that the same request would get again:
// 401 or 403.
func isRefusal(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.HTTPStatus == http.StatusUnauthorized || e.HTTPStatus == http.StatusForbidden)
}

const assetReloadEvery = time.Minute

func (ac *assetCache) put(list []Asset) {
	m := make(map[string]Asset, len(list))
	for _, a := range list {
		m[a.Code] = a
	}
	ac.mu.Lock()
	ac.byCode, ac.loadedAt, ac.refused = m, time.Now(), nil
	ac.mu.Unlock()
}

func (ac *assetCache) get(code string) (a Asset, ok, loaded bool, loadedAt time.Time) {
	ac.mu.RLock()
	defer ac.mu.RUnlock()
	if ac.byCode == nil {
		return Asset{}, false, false, time.Time{}
	}
	if a, ok = ac.byCode[code]; !ok {
		a, ok = ac.byCode[strings.ToUpper(code)]
	}
	return a, ok, true, ac.loadedAt
}

// Asset returns the catalogue entry of code from the client's cache, loading
// the catalogue on first use (concurrent callers share one load). A code not
// in the catalogue gives a *ParamError with code asset_not_allowed.
func (c *Client) Asset(ctx context.Context, code string) (Asset, error) {
	code = strings.TrimSpace(code)
	if code == "" {
		return Asset{}, &ParamError{Param: "asset", Reason: "an asset code is required", Code: CodeInvalidRequest}
	}
	a, ok, loaded, at := c.assets.get(code)
	if ok {
		return cloneAsset(a), nil
	}
	if !loaded || time.Since(at) >= assetReloadEvery {
		if err := c.assets.refusal(); err != nil {
			return Asset{}, err
		}
		ch := c.assets.group.DoChan("assets", func() (any, error) {
			if _, _, reloaded, at2 := c.assets.get(code); reloaded && at2.After(at) {
				return nil, nil // another caller loaded it since we looked
			}
			lctx, cancel := detached(ctx, exchangeTimeout)
			defer cancel()
			list, err := c.Assets(lctx)
			if isRefusal(err) {
				c.assets.refuse(err)
			}
			return list, err
		})
		select {
		case <-ctx.Done():
			return Asset{}, fmt.Errorf("mwallet: loading the asset catalogue: %w", ctx.Err())
		case r := <-ch:
			if r.Err != nil {
				return Asset{}, r.Err
			}
		}
		if a, ok, _, _ = c.assets.get(code); ok {
			return cloneAsset(a), nil
		}
	}
	return Asset{}, &ParamError{Param: "asset", Reason: fmt.Sprintf("%q is not in the asset catalogue", clip(code, 64)), Code: CodeAssetNotAllowed}
}

func cloneAsset(a Asset) Asset {
	a.Networks = slices.Clone(a.Networks)
	return a
}

// ParseAmount parses s at the ledger scale of assetCode, from the cached
// catalogue (loaded on first use). It never rounds: "1.0000001" for a
// 6-decimal asset is a *ParamError wrapping money.ErrPrecision.
func (c *Client) ParseAmount(ctx context.Context, assetCode, s string) (money.Amount, error) {
	a, err := c.Asset(ctx, assetCode)
	if err != nil {
		return money.Amount{}, err
	}
	return a.ParseAmount(s)
}

// DisplayAmount formats x for people, truncated to the display scale of
// assetCode from the cached catalogue.
func (c *Client) DisplayAmount(ctx context.Context, assetCode string, x money.Amount) (string, error) {
	a, err := c.Asset(ctx, assetCode)
	if err != nil {
		return "", err
	}
	return a.Display(x), nil
}
