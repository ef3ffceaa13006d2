// Package kyc is the KYC line of the simulator: KYC profiles and their
// review, hosted KYC sessions, and quick KYC bindings (GET /v1/kyc, POST
// /v1/kyc/profile-sessions, GET and POST /v1/kyc/quick). The card line
// depends on quick bindings through the Line's methods; this line tells the
// card line that a binding is withdrawn only through its Host, so neither
// imports the other.
package kyc

import (
	"cmp"
	"fmt"
	"net/http"
	"net/mail"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Quick KYC and hosted KYC rules.
const (
	kycTicketTTL = 24 * time.Hour
	quickKYCMax  = 5
)

// state is the KYC line's state: profiles, hosted sessions and quick KYC
// bindings.
type state struct {
	profiles *kernel.Table[string, Profile] // by member id
	sessions *kernel.Table[string, session] // by kyc_ id

	bindings   *kernel.Table[string, Binding] // by id
	bindingsOf *kernel.Index[string, Binding, memberSeq]
	quick      *kernel.Cell[quickSettings]
	// usedEmails are the e-mails quick bindings were made with, lower
	// case.
	usedEmails *kernel.Table[string, bool]
}

// quickSettings are the merchant's quick KYC settings.
type quickSettings struct {
	Disabled bool // quick KYC not enabled for the merchant
	Pool     int  // unassigned quick profiles left
}

// memberSeq orders a member's bindings oldest first.
type memberSeq struct {
	member string
	seq    int64
}

func compareMemberSeq(a, b memberSeq) int {
	if c := strings.Compare(a.member, b.member); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// Profile is the review state of a member's KYC profile.
type Profile struct {
	Status        string // pending_review, approved, rejected, supplement_required
	ApprovedLevel int    // level restored by the next approval
	UpdatedAt     time.Time
}

// session is a hosted KYC ticket.
type session struct {
	ID        string
	MemberID  string
	ExpiresAt time.Time
	Used      bool
}

// Binding is a quick KYC profile bound to the merchant and a member.
type Binding struct {
	Seq        int64 // creation sequence, the tie-break of lists (paginate.go)
	ID         string
	MemberID   string
	Status     string // active, compensated
	FeeAccount string // where the usage fee came from (refunded on compensation)
	Fee        money.Amount
	Email      string
	CreatedAt  time.Time
	Version    int64
}

// Host is what the KYC line needs of other lines (members, cards), beyond
// what every transaction gives (kernel.Tx: the clock, ids, the ledger,
// events, the catalogue, the merchant's custody model).
type Host interface {
	// Member is the member of the exact mem_ id (the members line).
	Member(tx *kernel.Tx, id string) *api.Member
	// SetMemberKYC sets the KYC level of the member of mem_ id and whether
	// it has a KYC profile (the members line).
	SetMemberKYC(tx *kernel.Tx, id string, level int, hasProfile bool)
	// BindingWithdrawn is told before a quick binding is compensated: what
	// rests on it loses its KYC basis (a card application under review is
	// rejected, its fee and shipping refunded). It returns the ids of what
	// it rejected, in order.
	BindingWithdrawn(tx *kernel.Tx, bindingID string) ([]string, error)
}

// Line is the KYC line: its state, and its host. The state is part of the
// simulator's state image; the host is not.
type Line struct {
	st   state
	host Host `image:"-"`
}

// New returns the line with no profiles, sessions or bindings, quick KYC
// enabled with a pool of 1,000 profiles, its tables in kernel k.
func New(k *kernel.Kernel, h Host) *Line {
	bindings := kernel.NewTable[string, Binding](k, "kyc.bindings")
	return &Line{st: state{
		profiles: kernel.NewTable[string, Profile](k, "kyc.profiles"),
		sessions: kernel.NewTable[string, session](k, "kyc.sessions"),
		bindings: bindings,
		bindingsOf: kernel.NewIndex(bindings, "by_member",
			func(b Binding) (memberSeq, bool) { return memberSeq{b.MemberID, b.Seq}, true }, compareMemberSeq),
		quick:      kernel.NewCell(k, "kyc.quick", quickSettings{Pool: 1000}),
		usedEmails: kernel.NewTable[string, bool](k, "kyc.used_emails"),
	}, host: h}
}

// bindingsOf returns the bindings of member id, oldest first.
func (l *Line) bindingsOf(tx *kernel.Tx, id string) []Binding {
	x := l.st.bindingsOf
	from := x.Search(tx, func(k memberSeq) bool { return k.member >= id })
	to := x.Search(tx, func(k memberSeq) bool { return k.member > id })
	var out []Binding
	if from < to {
		for _, b := range x.Range(tx, from, to) {
			out = append(out, b)
		}
	}
	return out
}

// Endpoints are the line's business endpoints, for the gateway. The
// contract names no KYC scope: KYC writes need kyc:write (a quick binding
// costs a usage fee), reads kyc:read.
func (l *Line) Endpoints() []api.Endpoint {
	return []api.Endpoint{
		{Method: http.MethodPost, Pattern: "/v1/kyc/profile-sessions", Scope: "kyc:write", Member: true, Idempotent: true, Handle: l.createSession},
		{Method: http.MethodGet, Pattern: "/v1/kyc", Scope: "kyc:read", Member: true, Handle: l.get},
		{Method: http.MethodGet, Pattern: "/v1/kyc/quick", Scope: "kyc:read", Member: true, Handle: l.listQuick},
		{Method: http.MethodPost, Pattern: "/v1/kyc/quick", Scope: "kyc:write", Member: true, Idempotent: true, Handle: l.createQuick},
	}
}

// SetQuick enables or disables quick KYC for the merchant and sets the
// number of unassigned quick profiles left (negative keeps it).
func (l *Line) SetQuick(tx *kernel.Tx, enabled bool, pool int) {
	l.st.quick.Update(tx, func(q *quickSettings) {
		q.Disabled = !enabled
		if pool >= 0 {
			q.Pool = pool
		}
	})
}

// Quick reports whether quick KYC is enabled and how many unassigned quick
// profiles are left.
func (l *Line) Quick(tx *kernel.Tx) (enabled bool, pool int) {
	q := l.st.quick.Get(tx)
	return !q.Disabled, q.Pool
}

// Sizes counts the sessions, bindings and profiles the line holds.
func (l *Line) Sizes(tx *kernel.Tx) (sessions, bindings, profiles int) {
	return l.st.sessions.Len(tx), l.st.bindings.Len(tx), l.st.profiles.Len(tx)
}

// Profile returns m's KYC profile, deriving it from the member's seed on
// first use (and keeping it); nil when the member has no profile. The
// profile is a copy.
func (l *Line) Profile(tx *kernel.Tx, m *api.Member) *Profile {
	if p, ok := l.st.profiles.Get(tx, m.ID); ok {
		return &p
	}
	if !m.HasKYCProfile {
		return nil
	}
	p := Profile{Status: "approved", ApprovedLevel: m.KYCLevel, UpdatedAt: m.CreatedAt}
	if m.KYCLevel == 0 {
		p.Status = "pending_review"
		p.ApprovedLevel = 1
	}
	l.st.profiles.Put(tx, m.ID, p)
	return &p
}

// InReview reports a member whose KYC profile is not approved: sent back
// to review by an update, rejected, or waiting for supplementary documents.
// It is a gate of the card and remittance lines, checked where a request
// executes and again on every deferred path: card issuing and remittances
// stop meanwhile, whatever level the member held and whatever quick KYC
// binding it has. A member without a profile is not in review.
func (l *Line) InReview(tx *kernel.Tx, m *api.Member) bool {
	p := l.Profile(tx, m)
	return p != nil && p.Status != "approved"
}

// JSON is m's KYC state as GET /v1/kyc answers it.
func (l *Line) JSON(tx *kernel.Tx, m *api.Member) map[string]any {
	status, updated := "none", m.CreatedAt
	if p := l.Profile(tx, m); p != nil {
		status, updated = p.Status, p.UpdatedAt
	}
	return map[string]any{
		"member_id":          m.ID,
		"external_member_id": m.ExternalID,
		"level":              m.KYCLevel,
		"status":             status,
		"updated_at":         updated.UTC().Format(time.RFC3339),
	}
}

// get answers GET /v1/kyc. The response shape is inferred: the
// specification names this endpoint without showing its fields.
func (l *Line) get(c *api.Request) (int, any, error) {
	return http.StatusOK, l.JSON(c.Tx, c.Member), nil
}

// createSession answers POST /v1/kyc/profile-sessions: a one-time
// hosted screen, bound to the member, valid 24 hours.
func (l *Line) createSession(c *api.Request) (int, any, error) {
	if err := c.NoBody(); err != nil {
		return 0, nil, err
	}
	if l.Profile(c.Tx, c.Member) == nil {
		return 0, nil, api.NotFound("KYC profile")
	}
	ss := session{ID: "kyc_" + c.Tx.NewUUID(), MemberID: c.Member.ID, ExpiresAt: c.Now.Add(kycTicketTTL)}
	l.st.sessions.Put(c.Tx, ss.ID, ss)
	return http.StatusCreated, map[string]any{
		"id":         ss.ID,
		"hosted_url": fmt.Sprintf("%s/_sim/kyc/sessions/%s", c.Tx.URL(), ss.ID),
		"expires_at": ss.ExpiresAt.Unix(),
	}, nil
}

// resultUpdated emits kyc.result.updated (data.id is the bare member uuid,
// status_version the constant 0).
func (l *Line) resultUpdated(tx *kernel.Tx, m *api.Member, status string) {
	tx.Emit(kernel.Event{Type: "kyc.result.updated", Object: "kyc", ObjectID: strings.TrimPrefix(m.ID, "mem_"), MemberID: m.ID, Status: status})
}

// Update sends m's profile back to review: the level drops to 0
// until re-approval, which stops card issuing and remittances.
func (l *Line) Update(tx *kernel.Tx, m *api.Member) error {
	p := l.Profile(tx, m)
	if p == nil {
		return api.NotFound("KYC profile")
	}
	if m.KYCLevel > p.ApprovedLevel {
		p.ApprovedLevel = m.KYCLevel
	}
	if p.ApprovedLevel == 0 {
		p.ApprovedLevel = 1
	}
	l.setLevel(tx, m, 0)
	p.Status = "pending_review"
	p.UpdatedAt = tx.Now()
	l.st.profiles.Put(tx, m.ID, *p)
	l.resultUpdated(tx, m, "updated")
	return nil
}

// setLevel sets m's KYC level (and m's copy) through the members line.
func (l *Line) setLevel(tx *kernel.Tx, m *api.Member, level int) {
	m.KYCLevel = level
	l.host.SetMemberKYC(tx, m.ID, m.KYCLevel, m.HasKYCProfile)
}

// Approve approves m's profile at level (default: the level held
// before the last update, at least 1).
func (l *Line) Approve(tx *kernel.Tx, m *api.Member, level *int) error {
	p := l.Profile(tx, m)
	if p == nil {
		m.HasKYCProfile = true
		l.host.SetMemberKYC(tx, m.ID, m.KYCLevel, true)
		p = &Profile{ApprovedLevel: 1}
		l.st.profiles.Put(tx, m.ID, *p)
	}
	lv := p.ApprovedLevel
	if level != nil {
		if *level < 1 || *level > 2 {
			return api.InvalidRequest("level must be 1 or 2")
		}
		lv = *level
	}
	if lv < 1 {
		lv = 1
	}
	l.setLevel(tx, m, lv)
	p.ApprovedLevel = lv
	p.Status = "approved"
	p.UpdatedAt = tx.Now()
	l.st.profiles.Put(tx, m.ID, *p)
	l.resultUpdated(tx, m, "updated")
	return nil
}

// Review records a rejection or a request for supplementary
// documents; the level stays 0.
func (l *Line) Review(tx *kernel.Tx, m *api.Member, status string) error {
	p := l.Profile(tx, m)
	if p == nil {
		return api.NotFound("KYC profile")
	}
	if m.KYCLevel > p.ApprovedLevel {
		p.ApprovedLevel = m.KYCLevel
	}
	l.setLevel(tx, m, 0)
	p.Status = status
	p.UpdatedAt = tx.Now()
	l.st.profiles.Put(tx, m.ID, *p)
	ev := "updated"
	if status == "supplement_required" {
		ev = "supplement_required"
	}
	l.resultUpdated(tx, m, ev)
	return nil
}

// HasSession reports a hosted KYC session of this id (with or without
// kyc_), as CompleteSession looks it up.
func (l *Line) HasSession(tx *kernel.Tx, id string) bool {
	id = strings.TrimSpace(id)
	if !strings.HasPrefix(id, "kyc_") {
		id = "kyc_" + id
	}
	return l.st.sessions.Has(tx, id)
}

// HasBinding reports a quick KYC binding of this id (with or without
// qkb_), as Compensate looks it up.
func (l *Line) HasBinding(tx *kernel.Tx, id string) bool {
	id = strings.TrimSpace(id)
	return l.st.bindings.Has(tx, id) || (!strings.HasPrefix(id, "qkb_") && l.st.bindings.Has(tx, "qkb_"+id))
}

// CompleteSession plays the member finishing a hosted KYC screen (ticket id
// with or without kyc_): the link is used up and the profile goes back to
// review.
func (l *Line) CompleteSession(tx *kernel.Tx, id string) (*api.Member, error) {
	id = strings.TrimSpace(id)
	if !strings.HasPrefix(id, "kyc_") {
		id = "kyc_" + id
	}
	ss, ok := l.st.sessions.Get(tx, id)
	if !ok {
		return nil, api.NotFound("KYC session")
	}
	if ss.Used {
		return nil, api.NewErr("state_invalid", "the hosted KYC link was already used")
	}
	if !tx.Now().Before(ss.ExpiresAt) {
		return nil, api.NewErr("state_invalid", "the hosted KYC link expired")
	}
	m := l.host.Member(tx, ss.MemberID)
	if err := l.Update(tx, m); err != nil {
		return nil, err
	}
	ss.Used = true
	l.st.sessions.Put(tx, ss.ID, ss)
	return m, nil
}

// --- quick KYC bindings ---

// BindingJSON is a binding as the quick KYC endpoints answer it.
func BindingJSON(b Binding) map[string]any {
	return map[string]any{
		"id":         b.ID,
		"status":     b.Status,
		"fee_asset":  api.QuickKYCFeeAsset,
		"fee_amount": b.Fee.String(),
		"created_at": b.CreatedAt.UTC().Format(time.RFC3339),
	}
}

// BindingActive reports whether bindingID is an active quick KYC binding
// of member m.
func (l *Line) BindingActive(tx *kernel.Tx, m *api.Member, bindingID string) bool {
	b, ok := l.st.bindings.Get(tx, strings.TrimSpace(bindingID))
	return ok && m != nil && b.MemberID == m.ID && b.Status == "active"
}

// Allocate binds a new quick KYC profile to m and charges the
// usage fee (10 USDT) from the member's available balance (platform_hosted)
// or the merchant prepaid account (merchant_hosted). email is required when
// m has no genuine level-1 KYC and must never have been used. On error
// nothing changes. Card applications call it to allocate automatically.
func (l *Line) Allocate(tx *kernel.Tx, m *api.Member, email string) (Binding, error) {
	q := l.st.quick.Get(tx)
	if q.Disabled {
		return Binding{}, api.NewErr("quick_kyc_disabled", "quick KYC is not enabled for the merchant")
	}
	n := 0
	for _, b := range l.bindingsOf(tx, m.ID) {
		if b.Status == "active" {
			n++
		}
	}
	if n >= quickKYCMax {
		return Binding{}, api.NewErr("quick_kyc_limit", "the member already has 5 quick KYC profiles")
	}
	email = strings.TrimSpace(email)
	if email != "" {
		if a, err := mail.ParseAddress(email); err != nil || a.Address != email {
			return Binding{}, api.InvalidFieldReasons("invalid e-mail", api.FieldReason{Key: "email", Reason: "not a plain e-mail address"})
		}
		if l.st.usedEmails.Has(tx, strings.ToLower(email)) {
			return Binding{}, api.InvalidFieldReasons("e-mail already used", api.FieldReason{Key: "email", Reason: "already used for KYC"})
		}
	} else if m.KYCLevel < 1 {
		return Binding{}, api.InvalidFieldReasons("e-mail required", api.FieldReason{Key: "email", Reason: "required when the member has no level-1 KYC"})
	}
	if q.Pool <= 0 {
		return Binding{}, api.NewErr("quick_kyc_exhausted", "no matching unassigned quick profile")
	}
	fee, _ := tx.Amount(api.QuickKYCFeeAsset, api.QuickKYCFee)
	// The fee is paid from the member's available balance, or from the
	// merchant prepaid account of a merchant_hosted merchant.
	from := kernel.MemberAvailable(m.ID)
	if tx.MerchantHosted() {
		from = kernel.AccountMerchantPrepaid
	}
	now := tx.Now()
	if err := tx.Transfer(now, "quick KYC usage fee", api.QuickKYCFeeAsset, fee, from, kernel.AccountRevenueFees); err != nil {
		return Binding{}, api.NewErr("quick_kyc_unpaid", "the quick KYC usage fee (10 USDT) is not covered")
	}
	b := Binding{Seq: tx.NextSeq(), ID: "qkb_" + tx.NewUUID(), MemberID: m.ID, Status: "active", FeeAccount: from, Fee: fee, Email: email, CreatedAt: now}
	l.st.quick.Update(tx, func(q *quickSettings) { q.Pool-- })
	if email != "" {
		l.st.usedEmails.Put(tx, strings.ToLower(email), true)
	}
	l.st.bindings.Put(tx, b.ID, b)
	return b, nil
}

// Compensate marks a binding compensated (source admin or
// auto; auto when empty), refunds its usage fee to where it came from, and
// emits kyc.quick.compensated. applicationID (cap_...) is included when the
// failure was a card application's.
func (l *Line) Compensate(tx *kernel.Tx, id, source, applicationID string) (Binding, error) {
	b, ok := l.st.bindings.Get(tx, strings.TrimSpace(id))
	if !ok && !strings.HasPrefix(id, "qkb_") {
		b, ok = l.st.bindings.Get(tx, "qkb_"+strings.TrimSpace(id))
	}
	if !ok {
		return Binding{}, api.NotFound("quick KYC binding")
	}
	if b.Status != "active" {
		return Binding{}, api.NewErr("state_invalid", "the binding is already compensated")
	}
	switch source {
	case "":
		source = "auto"
	case "admin", "auto":
	default:
		return Binding{}, api.InvalidRequest("compensation_source must be admin or auto")
	}
	if applicationID != "" && !strings.HasPrefix(applicationID, "cap_") {
		applicationID = "cap_" + applicationID
	}
	// A card application still under review on this binding loses its KYC
	// basis: it is rejected first (fee and shipping refunded, first top-up
	// released, card.application.rejected), so no card is issued on a
	// compensated binding.
	rejected, err := l.host.BindingWithdrawn(tx, b.ID)
	if err != nil {
		return Binding{}, err
	}
	if applicationID == "" && len(rejected) > 0 {
		applicationID = rejected[0]
	}
	now := tx.Now()
	if err := tx.Transfer(now, "quick KYC compensation", api.QuickKYCFeeAsset, b.Fee, kernel.AccountRevenueFees, b.FeeAccount); err != nil {
		return Binding{}, err
	}
	b.Status = "compensated"
	b.Version = now.UnixNano()
	l.st.bindings.Put(tx, b.ID, b)
	extra := map[string]any{"compensation_source": source}
	if applicationID != "" {
		extra["application_id"] = applicationID
	}
	tx.Emit(kernel.Event{Type: "kyc.quick.compensated", Object: "quick_kyc_binding", ObjectID: b.ID, MemberID: b.MemberID, Status: "compensated", Version: b.Version, Extra: extra})
	return b, nil
}

// listQuick answers GET /v1/kyc/quick: the member's active bindings,
// newest first. The response shape is inferred: the specification names this
// endpoint without showing its fields.
func (l *Line) listQuick(c *api.Request) (int, any, error) {
	var items []Binding
	for _, b := range l.bindingsOf(c.Tx, c.Member.ID) {
		if b.Status == "active" {
			items = append(items, b)
		}
	}
	env := api.Paginate(items, func(b Binding) api.PageKey { return api.PageKey{At: b.CreatedAt, Seq: b.Seq} }, c.Req.URL.Query())
	out := make([]map[string]any, 0, len(items))
	for _, b := range env.Data.([]Binding) {
		out = append(out, BindingJSON(b))
	}
	env.Data = out
	return http.StatusOK, env, nil
}

// createQuick answers POST /v1/kyc/quick (inferred endpoint): body
// {email}; 201 with the binding.
func (l *Line) createQuick(c *api.Request) (int, any, error) {
	var in struct {
		Email string `json:"email"`
	}
	if err := c.Decode(&in); err != nil {
		return 0, nil, err
	}
	b, err := l.Allocate(c.Tx, c.Member, in.Email)
	if err != nil {
		// The envelope's fields carry a reason only on POST
		// /v1/remit/payees: here the keys alone.
		if ae := api.AsError(err); ae.Code == "invalid_fields" {
			return 0, nil, api.InvalidFields(ae.Message, "email")
		}
		return 0, nil, err
	}
	return http.StatusCreated, BindingJSON(b), nil
}

// Legacy is the KYC line as the state image of recordings of versions 1
// and 2 held it.
type Legacy struct{ St legacyState }

type legacyState struct {
	Profiles        map[string]*Profile
	Sessions        map[string]*session
	Bindings        map[string]*Binding
	BindingsOf      map[string][]*Binding
	QuickDisabled   bool
	QuickPool       int
	QuickUsedEmails map[string]bool
}

// Legacy returns the line as the state image of recordings of versions 1
// and 2 held it.
func (l *Line) Legacy(tx *kernel.Tx) *Legacy {
	q := l.st.quick.Get(tx)
	st := legacyState{
		Profiles: map[string]*Profile{}, Sessions: map[string]*session{}, Bindings: map[string]*Binding{},
		BindingsOf: map[string][]*Binding{}, QuickDisabled: q.Disabled, QuickPool: q.Pool, QuickUsedEmails: map[string]bool{},
	}
	for id, p := range l.st.profiles.All(tx) {
		st.Profiles[id] = &p
	}
	for id, ss := range l.st.sessions.All(tx) {
		st.Sessions[id] = &ss
	}
	for _, b := range l.st.bindingsOf.All(tx) {
		st.Bindings[b.ID] = &b
		st.BindingsOf[b.MemberID] = append(st.BindingsOf[b.MemberID], &b)
	}
	for e := range l.st.usedEmails.All(tx) {
		st.QuickUsedEmails[e] = true
	}
	return &Legacy{St: st}
}
