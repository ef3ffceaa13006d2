// Package kyc is the KYC line of the simulator: KYC profiles and their
// review, hosted KYC sessions, and quick KYC bindings (GET /v1/kyc, POST
// /v1/kyc/profile-sessions, GET and POST /v1/kyc/quick). The card line
// depends on quick bindings through the Line's methods; this line tells the
// card line that a binding is withdrawn only through its Host, so neither
// imports the other.
package kyc

import (
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
	// QuickFeeAsset and QuickFee are the usage fee of a quick KYC binding.
	QuickFeeAsset = "USDT"
	QuickFee      = "10"
)

// state is the KYC line's state: profiles, hosted sessions and quick KYC
// bindings.
type state struct {
	profiles map[string]*Profile // by member id
	sessions map[string]*session // by kyc_ id

	bindings        map[string]*Binding   // by id
	bindingsOf      map[string][]*Binding // by member id, oldest first
	quickDisabled   bool                  // quick KYC not enabled for the merchant
	quickPool       int                   // unassigned quick profiles left
	quickUsedEmails map[string]bool
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
	seq        int64 // creation sequence, the tie-break of lists (paginate.go)
	ID         string
	MemberID   string
	Status     string // active, compensated
	FeeAccount string // where the usage fee came from (refunded on compensation)
	Fee        money.Amount
	Email      string
	CreatedAt  time.Time
	Version    int64
}

// Host is what the KYC line needs from the rest of the simulator, beyond
// what every transaction gives (kernel.Tx: the clock, ids, the ledger,
// events, the catalogue).
type Host interface {
	// URL is the simulator's base URL (hosted links).
	URL() string
	// Member is the member of the exact mem_ id (the members line).
	Member(id string) *api.Member
	// FeeAccount is where a usage fee of m is paid from: the member's
	// available balance (platform_hosted) or the merchant prepaid account
	// (merchant_hosted).
	FeeAccount(tx *kernel.Tx, m *api.Member) string
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
// enabled with a pool of 1,000 profiles.
func New(h Host) *Line {
	return &Line{st: state{
		profiles:        map[string]*Profile{},
		sessions:        map[string]*session{},
		bindings:        map[string]*Binding{},
		bindingsOf:      map[string][]*Binding{},
		quickPool:       1000,
		quickUsedEmails: map[string]bool{},
	}, host: h}
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
	tx.Live()
	l.st.quickDisabled = !enabled
	if pool >= 0 {
		l.st.quickPool = pool
	}
}

// Quick reports whether quick KYC is enabled and how many unassigned quick
// profiles are left.
func (l *Line) Quick(tx *kernel.Tx) (enabled bool, pool int) {
	tx.Live()
	return !l.st.quickDisabled, l.st.quickPool
}

// Sizes counts the sessions, bindings and profiles the line holds.
func (l *Line) Sizes() (sessions, bindings, profiles int) {
	return len(l.st.sessions), len(l.st.bindings), len(l.st.profiles)
}

// Profile returns m's KYC profile, deriving it from the member's seed on
// first use; nil when the member has no profile.
func (l *Line) Profile(m *api.Member) *Profile {
	if p := l.st.profiles[m.ID]; p != nil {
		return p
	}
	if !m.HasKYCProfile {
		return nil
	}
	p := &Profile{Status: "approved", ApprovedLevel: m.KYCLevel, UpdatedAt: m.CreatedAt}
	if m.KYCLevel == 0 {
		p.Status = "pending_review"
		p.ApprovedLevel = 1
	}
	l.st.profiles[m.ID] = p
	return p
}

func (l *Line) JSON(m *api.Member) map[string]any {
	status, updated := "none", m.CreatedAt
	if p := l.Profile(m); p != nil {
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
	return http.StatusOK, l.JSON(c.Member), nil
}

// createSession answers POST /v1/kyc/profile-sessions: a one-time
// hosted screen, bound to the member, valid 24 hours.
func (l *Line) createSession(c *api.Request) (int, any, error) {
	if err := c.NoBody(); err != nil {
		return 0, nil, err
	}
	if l.Profile(c.Member) == nil {
		return 0, nil, api.NotFound("KYC profile")
	}
	ss := &session{ID: "kyc_" + c.Tx.NewUUID(), MemberID: c.Member.ID, ExpiresAt: c.Now.Add(kycTicketTTL)}
	l.st.sessions[ss.ID] = ss
	return http.StatusCreated, map[string]any{
		"id":         ss.ID,
		"hosted_url": fmt.Sprintf("%s/_sim/kyc/sessions/%s", l.host.URL(), ss.ID),
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
	p := l.Profile(m)
	if p == nil {
		return api.NotFound("KYC profile")
	}
	if m.KYCLevel > p.ApprovedLevel {
		p.ApprovedLevel = m.KYCLevel
	}
	if p.ApprovedLevel == 0 {
		p.ApprovedLevel = 1
	}
	m.KYCLevel = 0
	p.Status = "pending_review"
	p.UpdatedAt = tx.Now()
	l.resultUpdated(tx, m, "updated")
	return nil
}

// Approve approves m's profile at level (default: the level held
// before the last update, at least 1).
func (l *Line) Approve(tx *kernel.Tx, m *api.Member, level *int) error {
	p := l.Profile(m)
	if p == nil {
		m.HasKYCProfile = true
		p = &Profile{ApprovedLevel: 1}
		l.st.profiles[m.ID] = p
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
	m.KYCLevel = lv
	p.ApprovedLevel = lv
	p.Status = "approved"
	p.UpdatedAt = tx.Now()
	l.resultUpdated(tx, m, "updated")
	return nil
}

// Review records a rejection or a request for supplementary
// documents; the level stays 0.
func (l *Line) Review(tx *kernel.Tx, m *api.Member, status string) error {
	p := l.Profile(m)
	if p == nil {
		return api.NotFound("KYC profile")
	}
	if m.KYCLevel > p.ApprovedLevel {
		p.ApprovedLevel = m.KYCLevel
	}
	m.KYCLevel = 0
	p.Status = status
	p.UpdatedAt = tx.Now()
	ev := "updated"
	if status == "supplement_required" {
		ev = "supplement_required"
	}
	l.resultUpdated(tx, m, ev)
	return nil
}

// HasSession reports a hosted KYC session of this id (with or without
// kyc_), as CompleteSession looks it up.
func (l *Line) HasSession(_ *kernel.Tx, id string) bool {
	id = strings.TrimSpace(id)
	if !strings.HasPrefix(id, "kyc_") {
		id = "kyc_" + id
	}
	return l.st.sessions[id] != nil
}

// HasBinding reports a quick KYC binding of this id (with or without
// qkb_), as Compensate looks it up.
func (l *Line) HasBinding(_ *kernel.Tx, id string) bool {
	id = strings.TrimSpace(id)
	return l.st.bindings[id] != nil || (!strings.HasPrefix(id, "qkb_") && l.st.bindings["qkb_"+id] != nil)
}

// CompleteSession plays the member finishing a hosted KYC screen (ticket id
// with or without kyc_): the link is used up and the profile goes back to
// review.
func (l *Line) CompleteSession(tx *kernel.Tx, id string) (*api.Member, error) {
	id = strings.TrimSpace(id)
	if !strings.HasPrefix(id, "kyc_") {
		id = "kyc_" + id
	}
	ss := l.st.sessions[id]
	if ss == nil {
		return nil, api.NotFound("KYC session")
	}
	if ss.Used {
		return nil, api.NewErr("state_invalid", "the hosted KYC link was already used")
	}
	if !tx.Now().Before(ss.ExpiresAt) {
		return nil, api.NewErr("state_invalid", "the hosted KYC link expired")
	}
	m := l.host.Member(ss.MemberID)
	if err := l.Update(tx, m); err != nil {
		return nil, err
	}
	ss.Used = true
	return m, nil
}

// --- quick KYC bindings ---

func BindingJSON(b *Binding) map[string]any {
	return map[string]any{
		"id":         b.ID,
		"status":     b.Status,
		"fee_asset":  QuickFeeAsset,
		"fee_amount": b.Fee.String(),
		"created_at": b.CreatedAt.UTC().Format(time.RFC3339),
	}
}

// BindingActive reports whether bindingID is an active quick KYC binding
// of member m.
func (l *Line) BindingActive(m *api.Member, bindingID string) bool {
	b := l.st.bindings[strings.TrimSpace(bindingID)]
	return b != nil && m != nil && b.MemberID == m.ID && b.Status == "active"
}

// Allocate binds a new quick KYC profile to m and charges the
// usage fee (10 USDT) from the member's available balance (platform_hosted)
// or the merchant prepaid account (merchant_hosted). email is required when
// m has no genuine level-1 KYC and must never have been used. On error
// nothing changes. Card applications call it to allocate automatically.
func (l *Line) Allocate(tx *kernel.Tx, m *api.Member, email string) (*Binding, error) {
	if l.st.quickDisabled {
		return nil, api.NewErr("quick_kyc_disabled", "quick KYC is not enabled for the merchant")
	}
	n := 0
	for _, b := range l.st.bindingsOf[m.ID] {
		if b.Status == "active" {
			n++
		}
	}
	if n >= quickKYCMax {
		return nil, api.NewErr("quick_kyc_limit", "the member already has 5 quick KYC profiles")
	}
	email = strings.TrimSpace(email)
	if email != "" {
		if a, err := mail.ParseAddress(email); err != nil || a.Address != email {
			return nil, api.InvalidFieldReasons("invalid e-mail", api.FieldReason{Key: "email", Reason: "not a plain e-mail address"})
		}
		if l.st.quickUsedEmails[strings.ToLower(email)] {
			return nil, api.InvalidFieldReasons("e-mail already used", api.FieldReason{Key: "email", Reason: "already used for KYC"})
		}
	} else if m.KYCLevel < 1 {
		return nil, api.InvalidFieldReasons("e-mail required", api.FieldReason{Key: "email", Reason: "required when the member has no level-1 KYC"})
	}
	if l.st.quickPool <= 0 {
		return nil, api.NewErr("quick_kyc_exhausted", "no matching unassigned quick profile")
	}
	fee, _ := tx.Amount(QuickFeeAsset, QuickFee)
	from := l.host.FeeAccount(tx, m)
	now := tx.Now()
	if err := tx.Transfer(now, "quick KYC usage fee", QuickFeeAsset, fee, from, kernel.AccountRevenueFees); err != nil {
		return nil, api.NewErr("quick_kyc_unpaid", "the quick KYC usage fee (10 USDT) is not covered")
	}
	b := &Binding{seq: tx.NextSeq(), ID: "qkb_" + tx.NewUUID(), MemberID: m.ID, Status: "active", FeeAccount: from, Fee: fee, Email: email, CreatedAt: now}
	l.st.quickPool--
	if email != "" {
		l.st.quickUsedEmails[strings.ToLower(email)] = true
	}
	l.st.bindings[b.ID] = b
	l.st.bindingsOf[m.ID] = append(l.st.bindingsOf[m.ID], b)
	return b, nil
}

// Compensate marks a binding compensated (source admin or
// auto; auto when empty), refunds its usage fee to where it came from, and
// emits kyc.quick.compensated. applicationID (cap_...) is included when the
// failure was a card application's.
func (l *Line) Compensate(tx *kernel.Tx, id, source, applicationID string) (*Binding, error) {
	b := l.st.bindings[strings.TrimSpace(id)]
	if b == nil && !strings.HasPrefix(id, "qkb_") {
		b = l.st.bindings["qkb_"+strings.TrimSpace(id)]
	}
	if b == nil {
		return nil, api.NotFound("quick KYC binding")
	}
	if b.Status != "active" {
		return nil, api.NewErr("state_invalid", "the binding is already compensated")
	}
	switch source {
	case "":
		source = "auto"
	case "admin", "auto":
	default:
		return nil, api.InvalidRequest("compensation_source must be admin or auto")
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
		return nil, err
	}
	if applicationID == "" && len(rejected) > 0 {
		applicationID = rejected[0]
	}
	now := tx.Now()
	if err := tx.Transfer(now, "quick KYC compensation", QuickFeeAsset, b.Fee, kernel.AccountRevenueFees, b.FeeAccount); err != nil {
		return nil, err
	}
	b.Status = "compensated"
	b.Version = now.UnixNano()
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
	var items []*Binding
	for _, b := range l.st.bindingsOf[c.Member.ID] {
		if b.Status == "active" {
			items = append(items, b)
		}
	}
	env := api.Paginate(items, func(b *Binding) api.PageKey { return api.PageKey{At: b.CreatedAt, Seq: b.seq} }, c.Req.URL.Query())
	out := make([]map[string]any, 0, len(items))
	for _, b := range env.Data.([]*Binding) {
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
