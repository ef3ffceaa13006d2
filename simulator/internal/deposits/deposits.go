// Package deposits is the deposits line of the simulator: crypto deposits
// credited to a member's wallet (POST /v1/deposits, GET /v1/deposits,
// GET /v1/deposits/{id}). It owns its state and its handlers; it needs no
// other line: the merchant's custody model and allowlist, the asset
// catalogue, the ledger and the events are the kernel's, through the
// transaction.
package deposits

import (
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
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

// state holds the deposits, keyed by their permanent reference, in list
// order (api.PageKey) by an index.
type state struct {
	byRef *kernel.Table[string, deposit]
	list  *kernel.Index[string, deposit, api.PageKey]
	seq   *kernel.Cell[int64] // numeric internal ids
	// daily sums the deposits per asset and UTC day (dailyKey), so the daily
	// limit costs a lookup, not a walk over every deposit.
	daily *kernel.Table[string, money.Amount]
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

func (d deposit) key() api.PageKey { return api.PageKey{At: d.CreatedAt, Seq: d.Seq} }

// Line is the deposits line: its state, part of the simulator's state
// image.
type Line struct {
	st state
}

// New returns the line with no deposits, its tables in kernel k.
func New(k *kernel.Kernel) *Line {
	byRef := kernel.NewTable[string, deposit](k, "deposits.deposits")
	return &Line{st: state{
		byRef: byRef,
		list:  kernel.NewIndex(byRef, "by_created", func(d deposit) (api.PageKey, bool) { return d.key(), true }, api.ComparePageKey),
		seq:   kernel.NewCell(k, "deposits.seq", int64(0)),
		daily: kernel.NewTable[string, money.Amount](k, "deposits.daily"),
	}}
}

// Endpoints are the line's business endpoints, for the gateway.
func (l *Line) Endpoints() []api.Endpoint {
	return []api.Endpoint{
		{
			Method: http.MethodPost, Pattern: "/v1/deposits", Scope: "deposits:write", Member: true, Idempotent: true,
			Precheck: l.platformOnly, Handle: l.create,
		},
		{Method: http.MethodGet, Pattern: "/v1/deposits", Scope: "deposits:write", Handle: l.list},
		{Method: http.MethodGet, Pattern: "/v1/deposits/{id}", Scope: "deposits:write", Handle: l.get},
	}
}

// Deposit is a read-only copy of one deposit, for the dashboard.
type Deposit struct {
	Seq        int64
	Reference  string
	ExternalID string
	Asset      string
	Amount     money.Amount
	Network    string
	CreatedAt  time.Time
}

// Deposits lists the deposits, oldest first.
func (l *Line) Deposits(tx *kernel.Tx) []Deposit {
	out := make([]Deposit, 0, l.st.list.Len(tx))
	for _, d := range l.st.list.All(tx) {
		out = append(out, Deposit{Seq: d.Seq, Reference: d.Reference, ExternalID: d.ExternalID, Asset: d.Asset,
			Amount: d.Amount, Network: d.Network, CreatedAt: d.CreatedAt})
	}
	return out
}

// platformOnly refuses merchant_hosted merchants with
// insufficient_scope, even with an approved deposits:write scope. The
// contract runs this check before idempotent replay.
func (l *Line) platformOnly(c *api.Request) error {
	if c.Tx.Custody() != kernel.PlatformHosted {
		return api.NewErr("insufficient_scope", "deposits are available to platform-operated merchants only")
	}
	return nil
}

func (l *Line) json(tx *kernel.Tx, d deposit, replayed bool) map[string]any {
	sc, _ := tx.AssetScale(d.Asset)
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

// create answers POST /v1/deposits.
func (l *Line) create(c *api.Request) (int, any, error) {
	if err := l.platformOnly(c); err != nil {
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
		return 0, nil, api.InvalidRequest("asset is required")
	}
	if in.Amount == nil || *in.Amount == "" {
		return 0, nil, api.InvalidRequest("amount is required")
	}
	if in.Reference == nil || *in.Reference == "" {
		return 0, nil, api.InvalidRequest("reference is required")
	}
	ref := *in.Reference
	if utf8.RuneCountInString(ref) > depositMaxReference {
		return 0, nil, api.InvalidRequest("reference is longer than 120 characters")
	}
	asset := strings.ToUpper(strings.TrimSpace(*in.Asset))
	if !c.Tx.AssetAllowed(asset) {
		return 0, nil, api.NewErr("asset_not_allowed", "asset is not allowed for this merchant")
	}
	amt, err := c.Tx.Amount(asset, *in.Amount)
	if err != nil {
		return 0, nil, api.InvalidRequest("amount must be a plain decimal at the asset's ledger_scale (extra decimals only if zero)")
	}
	if amt.Sign() <= 0 {
		return 0, nil, api.InvalidRequest("amount must be greater than zero")
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
		return 0, nil, api.InvalidFields("invalid chain provenance fields", bad...)
	}
	// Permanent duplicate protection by reference (ledger key
	// mdep:<merchant>:<reference>): the first stored values, 200.
	if d, ok := l.st.byRef.Get(c.Tx, ref); ok {
		return http.StatusOK, l.json(c.Tx, d, true), nil
	}
	if c.Member.Status == "banned" || c.Member.Status == "frozen" {
		return 0, nil, api.NewErr("request_rejected", "request rejected")
	}
	if lim, ok := depositLimits[asset]; ok {
		single, _ := c.Tx.Amount(asset, lim.single)
		if amt.Cmp(single) > 0 {
			return 0, nil, api.NewErr("limit_exceeded", "single deposit limit exceeded").With("limit_type", "single").With("limit_scope", "merchant")
		}
		daily, _ := c.Tx.Amount(asset, lim.daily)
		used := amt
		if sum, ok := l.st.daily.Get(c.Tx, dailyKey(asset, c.Now)); ok {
			used, _ = used.Add(sum)
		}
		if used.Cmp(daily) > 0 {
			return 0, nil, api.NewErr("limit_exceeded", "daily deposit limit exceeded").With("limit_type", "daily").With("limit_scope", "merchant")
		}
	}
	seq := l.st.seq.Get(c.Tx) + 1
	l.st.seq.Set(c.Tx, seq)
	d := deposit{
		Seq: seq, Reference: ref, MemberID: c.Member.ID, ExternalID: c.Member.ExternalID,
		Asset: asset, Amount: amt, Network: network, TxID: in.TxID, From: in.FromAddress, To: in.ToAddress, CreatedAt: c.Now,
	}
	// One balanced entry: member available up, merchant custody declaration
	// down; the prepaid account is untouched.
	if err := c.Tx.Transfer(c.Now, "deposit mdep:"+c.Tx.MerchantID()+":"+ref, asset, amt, kernel.AccountMerchantCustody, kernel.MemberAvailable(c.Member.ID)); err != nil {
		return 0, nil, api.NewErr("insufficient_balance", "balance constraint failed during posting")
	}
	l.st.byRef.Put(c.Tx, ref, d)
	day := dailyKey(asset, c.Now)
	sum := amt
	if prev, ok := l.st.daily.Get(c.Tx, day); ok {
		sum, _ = prev.Add(amt)
	}
	l.st.daily.Put(c.Tx, day, sum)
	c.Tx.Emit(kernel.Event{Type: "deposit.credited", Object: "deposit", ObjectID: strconv.FormatInt(d.Seq, 10), MemberID: c.Member.ID, Status: "credited"})
	return http.StatusCreated, l.json(c.Tx, d, false), nil
}

// dailyKey names the daily deposit sum of asset on the UTC day of at.
func dailyKey(asset string, at time.Time) string {
	return asset + "|" + at.UTC().Format(time.DateOnly)
}

// get answers GET /v1/deposits/{id}, id dep_<reference>. The response
// shape is inferred: the specification names this endpoint without showing
// its fields; it answers the Deposit resource.
func (l *Line) get(c *api.Request) (int, any, error) {
	id := c.PathID()
	ref, ok := strings.CutPrefix(id, "dep_")
	d, found := l.st.byRef.Get(c.Tx, ref)
	if !ok || !found {
		return 0, nil, api.NotFound("deposit")
	}
	return http.StatusOK, l.json(c.Tx, d, false), nil
}

// list answers GET /v1/deposits (optionally ?reference=), newest
// first. The response shape is inferred: the list envelope of Deposit.
func (l *Line) list(c *api.Request) (int, any, error) {
	q := c.Req.URL.Query()
	var env api.ListEnvelope
	if q.Has("reference") {
		var items []deposit
		if d, ok := l.st.byRef.Get(c.Tx, q.Get("reference")); ok {
			items = []deposit{d}
		}
		env = api.Paginate(items, deposit.key, q)
	} else {
		env = api.PaginateIndex(c.Tx, l.st.list, q)
	}
	page := env.Data.([]deposit)
	out := make([]map[string]any, 0, len(page))
	for _, d := range page {
		out = append(out, l.json(c.Tx, d, false))
	}
	env.Data = out
	return http.StatusOK, env, nil
}

// Legacy is the deposits line as the state image of recordings of
// versions 1 and 2 held it.
type Legacy struct{ St legacyState }

type legacyState struct {
	ByRef map[string]*deposit
	List  []*deposit
	Seq   int64
	Daily map[string]money.Amount
}

// Legacy returns the line as the state image of recordings of versions 1
// and 2 held it.
func (l *Line) Legacy(tx *kernel.Tx) *Legacy {
	st := legacyState{ByRef: map[string]*deposit{}, Seq: l.st.seq.Get(tx), Daily: map[string]money.Amount{}}
	for _, d := range l.st.list.All(tx) {
		st.ByRef[d.Reference] = &d
		st.List = append(st.List, &d)
	}
	for k, v := range l.st.daily.All(tx) {
		st.Daily[k] = v
	}
	return &Legacy{St: st}
}
