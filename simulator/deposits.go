package simulator

import (
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mwallet/mwallet-go/money"
)

// Deposit field limits (contract) and the simulator's merchant-scope limits
// per asset (the contract does not show the values).
const (
	depositMaxReference = 120
	depositMaxNetwork   = 32
	depositMaxTxID      = 128
	depositMaxAddress   = 200
)

// depositLimits are the single-deposit and daily (per UTC day, all members)
// limits of the merchant, per asset.
var depositLimits = map[string]struct{ single, daily string }{
	"USDT": {"100000", "250000"},
	"USDC": {"100000", "250000"},
	"BTC":  {"10", "25"},
	"ETH":  {"200", "500"},
}

// depositState holds the deposits, keyed by their permanent reference.
type depositState struct {
	byRef map[string]*deposit
	list  []*deposit // ascending by pageKey
	seq   int64      // numeric internal ids
	// daily sums the deposits per asset and UTC day (dailyKey), so the daily
	// limit costs a lookup, not a walk over every deposit.
	daily map[string]money.Amount
}

type deposit struct {
	Seq        int64
	Reference  string
	MemberID   string
	ExternalID string
	Asset      string
	Amount     money.Amount
	Network    string
	TxID       string
	From       string
	To         string
	CreatedAt  time.Time
}

func (d *deposit) key() pageKey { return pageKey{At: d.CreatedAt, Seq: d.Seq} }

func depositKey(d *deposit) pageKey { return d.key() }

func (s *Simulator) registerDeposits() {
	s.deposits = &depositState{byRef: map[string]*deposit{}, daily: map[string]money.Amount{}}
	s.register(endpoint{
		Method: http.MethodPost, Pattern: "/v1/deposits", Scope: "deposits:write", Member: true, Idempotent: true,
		Precheck: s.depositsPlatformOnly, Handle: s.createDeposit,
	})
	s.register(endpoint{Method: http.MethodGet, Pattern: "/v1/deposits", Scope: "deposits:write", Handle: s.listDeposits})
	s.register(endpoint{Method: http.MethodGet, Pattern: "/v1/deposits/{id}", Scope: "deposits:write", Handle: s.getDeposit})
}

// depositsPlatformOnly refuses merchant_hosted merchants with
// insufficient_scope, even with an approved deposits:write scope. The
// contract runs this check before idempotent replay.
func (s *Simulator) depositsPlatformOnly(c *rc) error {
	if s.merchant.Model != PlatformHosted {
		return newErr("insufficient_scope", "deposits are available to platform-operated merchants only")
	}
	return nil
}

func (s *Simulator) depositJSON(d *deposit, replayed bool) map[string]any {
	sc, _ := s.cat.scale(d.Asset)
	return map[string]any{
		"id":                 "dep_" + d.Reference,
		"reference":          d.Reference,
		"external_member_id": d.ExternalID,
		"asset":              d.Asset,
		"amount":             d.Amount.String(),
		"ledger_scale":       sc,
		"status":             "credited",
		"network":            d.Network,
		"txid":               d.TxID,
		"from_address":       d.From,
		"to_address":         d.To,
		"replayed":           replayed,
	}
}

// createDeposit answers POST /v1/deposits.
func (s *Simulator) createDeposit(c *rc) (int, any, error) {
	if err := s.depositsPlatformOnly(c); err != nil {
		return 0, nil, err
	}
	var in struct {
		Asset       *string `json:"asset"`
		Amount      *string `json:"amount"`
		Reference   *string `json:"reference"`
		Network     string  `json:"network"`
		TxID        string  `json:"txid"`
		FromAddress string  `json:"from_address"`
		ToAddress   string  `json:"to_address"`
	}
	if err := c.Decode(&in); err != nil {
		return 0, nil, err
	}
	if in.Asset == nil || strings.TrimSpace(*in.Asset) == "" {
		return 0, nil, errInvalidRequest("asset is required")
	}
	if in.Amount == nil || *in.Amount == "" {
		return 0, nil, errInvalidRequest("amount is required")
	}
	if in.Reference == nil || *in.Reference == "" {
		return 0, nil, errInvalidRequest("reference is required")
	}
	ref := *in.Reference
	if utf8.RuneCountInString(ref) > depositMaxReference {
		return 0, nil, errInvalidRequest("reference is longer than 120 characters")
	}
	asset := strings.ToUpper(strings.TrimSpace(*in.Asset))
	if !s.cat.allowed(asset, s.merchant.AssetAllowlist) {
		return 0, nil, newErr("asset_not_allowed", "asset is not allowed for this merchant")
	}
	amt, err := s.cat.amount(asset, *in.Amount, decimalSigned)
	if err != nil {
		return 0, nil, errInvalidRequest("amount must be a plain decimal at the asset's ledger_scale (extra decimals only if zero)")
	}
	if amt.Sign() <= 0 {
		return 0, nil, errInvalidRequest("amount must be greater than zero")
	}
	network := strings.ToUpper(strings.TrimSpace(in.Network))
	var bad []string
	if utf8.RuneCountInString(network) > depositMaxNetwork {
		bad = append(bad, "network")
	}
	if utf8.RuneCountInString(in.TxID) > depositMaxTxID {
		bad = append(bad, "txid")
	}
	if utf8.RuneCountInString(in.FromAddress) > depositMaxAddress {
		bad = append(bad, "from_address")
	}
	if utf8.RuneCountInString(in.ToAddress) > depositMaxAddress {
		bad = append(bad, "to_address")
	}
	if network == "" && (in.TxID != "" || in.FromAddress != "" || in.ToAddress != "") {
		bad = append([]string{"network"}, bad...)
	}
	if len(bad) > 0 {
		return 0, nil, errInvalidFields("invalid chain provenance fields", bad...)
	}
	// Permanent duplicate protection by reference (ledger key
	// mdep:<merchant>:<reference>): the first stored values, 200.
	if d := s.deposits.byRef[ref]; d != nil {
		return http.StatusOK, s.depositJSON(d, true), nil
	}
	if c.Member.Status == "banned" || c.Member.Status == "frozen" {
		return 0, nil, newErr("request_rejected", "request rejected")
	}
	if lim, ok := depositLimits[asset]; ok {
		single, _ := s.cat.amount(asset, lim.single, decimalSigned)
		if amt.Cmp(single) > 0 {
			return 0, nil, newErr("limit_exceeded", "single deposit limit exceeded").With("limit_type", "single").With("limit_scope", "merchant")
		}
		daily, _ := s.cat.amount(asset, lim.daily, decimalSigned)
		used := amt
		if sum, ok := s.deposits.daily[dailyKey(asset, c.Now)]; ok {
			used, _ = used.Add(sum)
		}
		if used.Cmp(daily) > 0 {
			return 0, nil, newErr("limit_exceeded", "daily deposit limit exceeded").With("limit_type", "daily").With("limit_scope", "merchant")
		}
	}
	s.deposits.seq++
	d := &deposit{
		Seq: s.deposits.seq, Reference: ref, MemberID: c.Member.ID, ExternalID: c.Member.ExternalID,
		Asset: asset, Amount: amt, Network: network, TxID: in.TxID, From: in.FromAddress, To: in.ToAddress, CreatedAt: c.Now,
	}
	// One balanced entry: member available up, merchant custody declaration
	// down; the prepaid account is untouched.
	if err := s.ledger.Transfer(c.Now, "deposit mdep:"+s.merchant.ID+":"+ref, asset, amt, AccountMerchantCustody, MemberAvailable(c.Member.ID)); err != nil {
		return 0, nil, newErr("insufficient_balance", "balance constraint failed during posting")
	}
	s.deposits.byRef[ref] = d
	s.deposits.list = insertByKey(s.deposits.list, d, depositKey)
	day := dailyKey(asset, c.Now)
	sum := amt
	if prev, ok := s.deposits.daily[day]; ok {
		sum, _ = prev.Add(amt)
	}
	s.deposits.daily[day] = sum
	s.emit(c.Tx, "deposit.credited", "deposit", strconv.FormatInt(d.Seq, 10), c.Member, "credited", 0, nil)
	return http.StatusCreated, s.depositJSON(d, false), nil
}

// dailyKey names the daily deposit sum of asset on the UTC day of at.
func dailyKey(asset string, at time.Time) string {
	return asset + "|" + at.UTC().Format(time.DateOnly)
}

// getDeposit answers GET /v1/deposits/{id}, id dep_<reference>. The response
// shape is inferred: the specification names this endpoint without showing
// its fields; it answers the Deposit resource.
func (s *Simulator) getDeposit(c *rc) (int, any, error) {
	id := c.PathID()
	ref, ok := strings.CutPrefix(id, "dep_")
	d := s.deposits.byRef[ref]
	if !ok || d == nil {
		return 0, nil, errNotFound("deposit")
	}
	return http.StatusOK, s.depositJSON(d, false), nil
}

// listDeposits answers GET /v1/deposits (optionally ?reference=), newest
// first. The response shape is inferred: the list envelope of Deposit.
func (s *Simulator) listDeposits(c *rc) (int, any, error) {
	q := c.Req.URL.Query()
	items := s.deposits.list
	if q.Has("reference") {
		items = nil
		if d := s.deposits.byRef[q.Get("reference")]; d != nil {
			items = []*deposit{d}
		}
	}
	env := paginate(items, depositKey, q)
	page := env.Data.([]*deposit)
	out := make([]map[string]any, 0, len(page))
	for _, d := range page {
		out = append(out, s.depositJSON(d, false))
	}
	env.Data = out
	return http.StatusOK, env, nil
}
