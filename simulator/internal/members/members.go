// Package members is the members line of the simulator: the merchant's
// members, their status, and GET /v1/members/{id}. Every line reads
// members (api.Member) through the Line's lookups; only this package adds
// one or changes its status. It needs no other line: the seed balances are
// posted to the kernel's ledger, through the transaction.
package members

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// state holds the members, a table by mem_ id, with its indexes by
// external_member_id and in the order they were created.
type state struct {
	members *kernel.Table[string, api.Member]
	byExt   *kernel.Index[string, api.Member, string]
	order   *kernel.Index[string, api.Member, int64]
	count   *kernel.Cell[int64] // members created
}

// Line is the members line: its state, part of the simulator's state
// image. The zero Line is set up by Init.
type Line struct {
	st state
}

// Init sets up a line with no members, its tables in kernel k.
func (l *Line) Init(k *kernel.Kernel) {
	t := kernel.NewTable[string, api.Member](k, "members.members")
	l.st = state{
		members: t,
		byExt:   kernel.NewIndex(t, "by_external_id", func(m api.Member) (string, bool) { return m.ExternalID, true }, strings.Compare),
		order:   kernel.NewIndex(t, "by_creation", func(m api.Member) (int64, bool) { return m.Seq, true }, cmp.Compare[int64]),
		count:   kernel.NewCell(k, "members.count", int64(0)),
	}
}

// Statuses are the statuses a member may be given. suspended and
// blocklisted members are answered as member_not_found on every
// member-scoped call; banned and frozen members are found but refused by the
// operations that check them (request_rejected).
var Statuses = map[string]bool{"active": true, "suspended": true, "blocklisted": true, "banned": true, "frozen": true}

// Get returns the member of the exact mem_ id, or nil. The member is a
// copy: it changes through the line's transitions.
func (l *Line) Get(tx *kernel.Tx, id string) *api.Member {
	if m, ok := l.st.members.Get(tx, id); ok {
		return &m
	}
	return nil
}

// ByExternal returns the member of the exact external_member_id, or nil.
func (l *Line) ByExternal(tx *kernel.Tx, ext string) *api.Member {
	i := l.st.byExt.Search(tx, func(k string) bool { return k >= ext })
	if i == l.st.byExt.Len(tx) {
		return nil
	}
	if k, _, m := l.st.byExt.At(tx, i); k == ext {
		return &m
	}
	return nil
}

// ByID finds a member by mem_<uuid> or bare uuid (REST ids); external ids
// are not member ids here.
func (l *Line) ByID(tx *kernel.Tx, id string) *api.Member {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil
	}
	if !strings.HasPrefix(id, "mem_") {
		id = "mem_" + id
	}
	return l.Get(tx, id)
}

// ByAny finds a member by mem_<uuid>, bare uuid or external_member_id;
// control calls accept all three.
func (l *Line) ByAny(tx *kernel.Tx, id string) *api.Member {
	if m := l.ByID(tx, id); m != nil {
		return m
	}
	return l.ByExternal(tx, strings.TrimSpace(id))
}

// All returns the members in the order they were created (copies).
func (l *Line) All(tx *kernel.Tx) []api.Member {
	out := make([]api.Member, 0, l.st.order.Len(tx))
	for _, m := range l.st.order.All(tx) {
		out = append(out, m)
	}
	return out
}

// Seed is a member to create.
type Seed struct {
	ExternalID     string
	KYCLevel       int
	Balances       map[string]string
	Status         string
	PlatformDirect bool
	MerchantID     string
}

// Create creates a member and credits its seed balances. A refused seed
// changes nothing.
func (l *Line) Create(tx *kernel.Tx, seed Seed) (*api.Member, error) {
	tx.Live()
	ext := strings.TrimSpace(seed.ExternalID)
	if ext == "" {
		return nil, api.InvalidRequest("external_member_id is required")
	}
	if strings.HasPrefix(ext, "mem_") {
		return nil, api.InvalidRequest("external_member_id may not start with mem_")
	}
	if l.ByExternal(tx, ext) != nil {
		return nil, api.NewErr("duplicate_resource", fmt.Sprintf("external_member_id %q already exists", ext))
	}
	if seed.KYCLevel < 0 || seed.KYCLevel > 2 {
		return nil, api.InvalidRequest(fmt.Sprintf("kyc_level %d: want 0, 1 or 2", seed.KYCLevel))
	}
	status := seed.Status
	switch status {
	case "":
		status = "active"
	case "active", "suspended", "blocklisted", "banned", "frozen":
	default:
		return nil, api.InvalidRequest(fmt.Sprintf("status %q: want active, suspended, blocklisted, banned or frozen", status))
	}
	merchantID := strings.TrimSpace(seed.MerchantID)
	if merchantID == tx.MerchantID() {
		merchantID = ""
	}
	m := api.Member{
		ID:              "mem_" + tx.NewUUID(),
		ExternalID:      ext,
		KYCLevel:        seed.KYCLevel,
		Status:          status,
		PaymentPriority: kernel.ListOf("USDT", "USDC", "BTC", "ETH"),
		HasKYCProfile:   seed.KYCLevel > 0,
		PlatformDirect:  seed.PlatformDirect,
		MerchantID:      merchantID,
		CreatedAt:       tx.Now(),
	}
	if err := seedBalances(tx, m.ID, seed.Balances); err != nil {
		return nil, err
	}
	m.Seq = l.st.count.Get(tx) + 1
	l.st.count.Set(tx, m.Seq)
	l.st.members.Put(tx, m.ID, m)
	tx.Emit(kernel.Event{Type: "member.created", Object: "member", ObjectID: strings.TrimPrefix(m.ID, "mem_"), MemberID: m.ID, Status: "active"})
	return &m, nil
}

// createControl is Create for the control API and its Go method: a
// refusal that is no *api.Error is an invalid_request with its message.
func (l *Line) createControl(tx *kernel.Tx, seed Seed) (*api.Member, error) {
	m, err := l.Create(tx, seed)
	if err != nil {
		var ae *api.Error
		if errors.As(err, &ae) {
			return nil, ae
		}
		return nil, api.InvalidRequest(err.Error())
	}
	return m, nil
}

// SetStatus sets a member's status (active, suspended, blocklisted, banned
// or frozen); id is mem_<uuid>, the bare uuid or the external_member_id.
// Moving into or out of suspended emits member.suspended.
func (l *Line) SetStatus(tx *kernel.Tx, id, status string) (*api.Member, error) {
	m := l.ByAny(tx, id)
	if m == nil {
		return nil, api.NotFound("member")
	}
	if !Statuses[status] {
		return nil, api.InvalidRequest(fmt.Sprintf("status %q: want active, suspended, blocklisted, banned or frozen", status))
	}
	prev := m.Status
	m.Status = status
	l.st.members.Put(tx, m.ID, *m)
	if (prev == "suspended") != (status == "suspended") {
		tx.Emit(kernel.Event{Type: "member.suspended", Object: "member", ObjectID: strings.TrimPrefix(m.ID, "mem_"), MemberID: m.ID, Status: status})
	}
	return m, nil
}

// SetFundsProtected puts the member of id (mem_ id, bare uuid or
// external_member_id) in funds-protection mode or takes it out.
func (l *Line) SetFundsProtected(tx *kernel.Tx, id string, on bool) error {
	m := l.ByAny(tx, id)
	if m == nil {
		return api.NotFound("member")
	}
	m.FundsProtected = on
	l.st.members.Put(tx, m.ID, *m)
	return nil
}

// SetKYC sets the KYC level of the member of mem_ id and whether it has a
// KYC profile (the KYC line's decisions).
func (l *Line) SetKYC(tx *kernel.Tx, id string, level int, hasProfile bool) error {
	m := l.Get(tx, id)
	if m == nil {
		return api.NotFound("member")
	}
	m.KYCLevel, m.HasKYCProfile = level, hasProfile
	l.st.members.Put(tx, m.ID, *m)
	return nil
}

// Legacy is the members line as the state image of recordings of versions
// 1 and 2 held it.
type Legacy struct{ St legacyState }

type legacyState struct {
	ByID  map[string]*api.LegacyMember
	ByExt map[string]*api.LegacyMember
	Order []*api.LegacyMember
}

// Legacy returns the line as the state image of recordings of versions 1
// and 2 held it, and its members by mem_ id, which other lines' images
// share.
func (l *Line) Legacy(tx *kernel.Tx) (Legacy, map[string]*api.LegacyMember) {
	st := legacyState{ByID: map[string]*api.LegacyMember{}, ByExt: map[string]*api.LegacyMember{}}
	for _, m := range l.st.order.All(tx) {
		lm := m.Legacy()
		st.ByID[m.ID] = lm
		st.ByExt[m.ExternalID] = lm
		st.Order = append(st.Order, lm)
	}
	return Legacy{St: st}, st.ByID
}

// JSON is the member as GET /v1/members/{id} answers it.
func JSON(m *api.Member) map[string]any {
	return map[string]any{
		"id":                 m.ID,
		"external_member_id": m.ExternalID,
		"status":             m.Status,
		"kyc_level":          m.KYCLevel,
		"created_at":         m.CreatedAt.UTC().Format(time.RFC3339),
	}
}

// Endpoints are the line's business endpoints, for the gateway.
func (l *Line) Endpoints() []api.Endpoint {
	return []api.Endpoint{{Method: http.MethodGet, Pattern: "/v1/members/{id}", Scope: "members:read", Handle: l.get}}
}

// get answers GET /v1/members/{id}: mem_<uuid> (or the bare uuid). The
// response shape is inferred: the specification names this endpoint without
// showing its fields.
func (l *Line) get(c *api.Request) (int, any, error) {
	m := l.ByID(c.Tx, c.PathID())
	if m == nil || (m.MerchantID != "" && m.MerchantID != c.Tx.MerchantID()) {
		// A member of another merchant is answered like an unknown id.
		return 0, nil, api.NotFound("member")
	}
	return http.StatusOK, JSON(m), nil
}

// seedBalances credits the seed balances of a new member from the world
// account, in one entry, in the order of their codes. It refuses a balance
// that is not a non-negative amount of a catalogue asset at its ledger
// scale, and changes nothing then.
func seedBalances(tx *kernel.Tx, memberID string, balances map[string]string) error {
	codes := make([]string, 0, len(balances))
	for code := range balances {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	var postings []kernel.Posting
	for _, code := range codes {
		asset := strings.ToUpper(strings.TrimSpace(code))
		amt, err := tx.Amount(asset, balances[code])
		if err != nil {
			return api.InvalidRequest(fmt.Sprintf("balance %s: %v", code, err))
		}
		if amt.IsNegative() {
			return api.InvalidRequest(fmt.Sprintf("balance %s: negative", code))
		}
		postings = append(postings,
			kernel.Posting{Account: kernel.AccountWorld, Asset: asset, Amount: amt.Neg()},
			kernel.Posting{Account: kernel.MemberAvailable(memberID), Asset: asset, Amount: amt})
	}
	if len(postings) > 0 {
		return tx.Post(tx.Now(), "seed member balance", postings...)
	}
	return nil
}
