package simulator

import (
	"fmt"
	"net/http"
	"net/mail"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Quick KYC and hosted KYC rules.
const (
	kycTicketTTL     = 24 * time.Hour
	quickKYCMax      = 5
	quickKYCFeeAsset = "USDT"
	quickKYCFee      = "10"
)

// kycState is the KYC product line: profiles, hosted sessions and quick KYC
// bindings.
type kycState struct {
	profiles map[string]*kycProfile // by member id
	sessions map[string]*kycSession // by kyc_ id

	bindings        map[string]*quickBinding   // by id
	bindingsOf      map[string][]*quickBinding // by member id, oldest first
	quickDisabled   bool                       // quick KYC not enabled for the merchant
	quickPool       int                        // unassigned quick profiles left
	quickUsedEmails map[string]bool
}

// kycProfile is the review state of a member's KYC profile.
type kycProfile struct {
	Status        string // pending_review, approved, rejected, supplement_required
	ApprovedLevel int    // level restored by the next approval
	UpdatedAt     time.Time
}

// kycSession is a hosted KYC ticket.
type kycSession struct {
	ID        string
	MemberID  string
	ExpiresAt time.Time
	Used      bool
}

// quickBinding is a quick KYC profile bound to the merchant and a member.
type quickBinding struct {
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

func (s *Simulator) registerKYC() {
	s.kyc = &kycState{
		profiles:        map[string]*kycProfile{},
		sessions:        map[string]*kycSession{},
		bindings:        map[string]*quickBinding{},
		bindingsOf:      map[string][]*quickBinding{},
		quickPool:       1000,
		quickUsedEmails: map[string]bool{},
	}
	// The contract names no KYC scope: KYC writes need kyc:write (a quick
	// binding costs a usage fee), reads kyc:read (see serviceScopes).
	s.register(endpoint{Method: http.MethodPost, Pattern: "/v1/kyc/profile-sessions", Scope: "kyc:write", Member: true, Idempotent: true, Handle: s.createProfileSession})
	s.register(endpoint{Method: http.MethodGet, Pattern: "/v1/kyc", Scope: "kyc:read", Member: true, Handle: s.getKYC})
	s.register(endpoint{Method: http.MethodGet, Pattern: "/v1/kyc/quick", Scope: "kyc:read", Member: true, Handle: s.listQuickBindings})
	s.register(endpoint{Method: http.MethodPost, Pattern: "/v1/kyc/quick", Scope: "kyc:write", Member: true, Idempotent: true, Handle: s.createQuickBinding})

	memberAction := func(f func(tx *kernel.Tx, m *member, body []byte) error) actionFunc {
		return func(tx *kernel.Tx, id string, body []byte) (any, error) {
			m := s.members.ByAny(id)
			if m == nil {
				return nil, errNotFound("member")
			}
			if err := f(tx, m, body); err != nil {
				return nil, err
			}
			return s.kycJSON(m), nil
		}
	}
	s.actions["kyc/update"] = memberAction(func(tx *kernel.Tx, m *member, _ []byte) error { return s.kycUpdate(tx, m) })
	s.actions["kyc/approve"] = memberAction(func(tx *kernel.Tx, m *member, body []byte) error {
		var in struct {
			Level *int `json:"level"`
		}
		if err := decodeControl(body, &in); err != nil {
			return err
		}
		return s.kycApprove(tx, m, in.Level)
	})
	s.actions["kyc/reject"] = memberAction(func(tx *kernel.Tx, m *member, _ []byte) error { return s.kycReview(tx, m, "rejected") })
	s.actions["kyc/supplement"] = memberAction(func(tx *kernel.Tx, m *member, _ []byte) error { return s.kycReview(tx, m, "supplement_required") })
	s.actions["kyc/sessions/complete"] = func(tx *kernel.Tx, id string, _ []byte) (any, error) {
		m, err := s.completeKYCSession(tx, id)
		if err != nil {
			return nil, err
		}
		return s.kycJSON(m), nil
	}
	s.actions["kyc/quick/compensate"] = func(tx *kernel.Tx, id string, body []byte) (any, error) {
		var in struct {
			Source        string `json:"compensation_source"`
			ApplicationID string `json:"application_id"`
		}
		if err := decodeControl(body, &in); err != nil {
			return nil, err
		}
		b, err := s.compensateQuickBinding(tx, id, in.Source, in.ApplicationID)
		if err != nil {
			return nil, err
		}
		return quickBindingJSON(b), nil
	}
	s.registerMembers()
}

// profileOf returns m's KYC profile, deriving it from the member's seed on
// first use; nil when the member has no profile.
func (s *Simulator) profileOf(m *member) *kycProfile {
	if p := s.kyc.profiles[m.ID]; p != nil {
		return p
	}
	if !m.HasKYCProfile {
		return nil
	}
	p := &kycProfile{Status: "approved", ApprovedLevel: m.KYCLevel, UpdatedAt: m.CreatedAt}
	if m.KYCLevel == 0 {
		p.Status = "pending_review"
		p.ApprovedLevel = 1
	}
	s.kyc.profiles[m.ID] = p
	return p
}

func (s *Simulator) kycJSON(m *member) map[string]any {
	status, updated := "none", m.CreatedAt
	if p := s.profileOf(m); p != nil {
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

// getKYC answers GET /v1/kyc. The response shape is inferred: the
// specification names this endpoint without showing its fields.
func (s *Simulator) getKYC(c *rc) (int, any, error) {
	return http.StatusOK, s.kycJSON(c.Member), nil
}

// createProfileSession answers POST /v1/kyc/profile-sessions: a one-time
// hosted screen, bound to the member, valid 24 hours.
func (s *Simulator) createProfileSession(c *rc) (int, any, error) {
	if err := c.NoBody(); err != nil {
		return 0, nil, err
	}
	if s.profileOf(c.Member) == nil {
		return 0, nil, errNotFound("KYC profile")
	}
	ss := &kycSession{ID: "kyc_" + s.newUUID(), MemberID: c.Member.ID, ExpiresAt: c.Now.Add(kycTicketTTL)}
	s.kyc.sessions[ss.ID] = ss
	return http.StatusCreated, map[string]any{
		"id":         ss.ID,
		"hosted_url": fmt.Sprintf("%s/_sim/kyc/sessions/%s", s.URL(), ss.ID),
		"expires_at": ss.ExpiresAt.Unix(),
	}, nil
}

// kycResultUpdated emits kyc.result.updated (data.id is the bare member uuid,
// status_version the constant 0).
func (s *Simulator) kycResultUpdated(tx *kernel.Tx, m *member, status string) {
	s.emit(tx, "kyc.result.updated", "kyc", strings.TrimPrefix(m.ID, "mem_"), m, status, 0, nil)
}

// kycUpdate sends m's profile back to review: the level drops to 0
// until re-approval, which stops card issuing and remittances.
func (s *Simulator) kycUpdate(tx *kernel.Tx, m *member) error {
	p := s.profileOf(m)
	if p == nil {
		return errNotFound("KYC profile")
	}
	if m.KYCLevel > p.ApprovedLevel {
		p.ApprovedLevel = m.KYCLevel
	}
	if p.ApprovedLevel == 0 {
		p.ApprovedLevel = 1
	}
	m.KYCLevel = 0
	p.Status = "pending_review"
	p.UpdatedAt = s.clock.Now()
	s.kycResultUpdated(tx, m, "updated")
	return nil
}

// kycApprove approves m's profile at level (default: the level held
// before the last update, at least 1).
func (s *Simulator) kycApprove(tx *kernel.Tx, m *member, level *int) error {
	p := s.profileOf(m)
	if p == nil {
		m.HasKYCProfile = true
		p = &kycProfile{ApprovedLevel: 1}
		s.kyc.profiles[m.ID] = p
	}
	lv := p.ApprovedLevel
	if level != nil {
		if *level < 1 || *level > 2 {
			return errInvalidRequest("level must be 1 or 2")
		}
		lv = *level
	}
	if lv < 1 {
		lv = 1
	}
	m.KYCLevel = lv
	p.ApprovedLevel = lv
	p.Status = "approved"
	p.UpdatedAt = s.clock.Now()
	s.kycResultUpdated(tx, m, "updated")
	return nil
}

// kycReview records a rejection or a request for supplementary
// documents; the level stays 0.
func (s *Simulator) kycReview(tx *kernel.Tx, m *member, status string) error {
	p := s.profileOf(m)
	if p == nil {
		return errNotFound("KYC profile")
	}
	if m.KYCLevel > p.ApprovedLevel {
		p.ApprovedLevel = m.KYCLevel
	}
	m.KYCLevel = 0
	p.Status = status
	p.UpdatedAt = s.clock.Now()
	ev := "updated"
	if status == "supplement_required" {
		ev = "supplement_required"
	}
	s.kycResultUpdated(tx, m, ev)
	return nil
}

func (s *Simulator) completeKYCSession(tx *kernel.Tx, id string) (*member, error) {
	id = strings.TrimSpace(id)
	if !strings.HasPrefix(id, "kyc_") {
		id = "kyc_" + id
	}
	ss := s.kyc.sessions[id]
	if ss == nil {
		return nil, errNotFound("KYC session")
	}
	if ss.Used {
		return nil, newErr("state_invalid", "the hosted KYC link was already used")
	}
	if !s.clock.Now().Before(ss.ExpiresAt) {
		return nil, newErr("state_invalid", "the hosted KYC link expired")
	}
	m := s.members.Get(ss.MemberID)
	if err := s.kycUpdate(tx, m); err != nil {
		return nil, err
	}
	ss.Used = true
	return m, nil
}

// updateKYC plays a KYC profile update for a member (mem_ id, bare uuid or
// external_member_id): the profile goes back to review and the level drops
// to 0 (event kyc.result.updated). Control action kyc/{member}/update.
func (s *Simulator) updateKYC(memberID string) error {
	tx := s.k.Begin()
	defer tx.End()
	m := s.members.ByAny(memberID)
	if m == nil {
		return errNotFound("member")
	}
	return s.kycUpdate(tx, m)
}

// approveKYC approves a member's profile at level (0 keeps the level held
// before the last update). Control action kyc/{member}/approve, body
// {"level": n}.
func (s *Simulator) approveKYC(memberID string, level int) error {
	tx := s.k.Begin()
	defer tx.End()
	m := s.members.ByAny(memberID)
	if m == nil {
		return errNotFound("member")
	}
	var lv *int
	if level != 0 {
		lv = &level
	}
	return s.kycApprove(tx, m, lv)
}

// rejectKYC rejects a member's profile under review. Control action
// kyc/{member}/reject.
func (s *Simulator) rejectKYC(memberID string) error {
	tx := s.k.Begin()
	defer tx.End()
	m := s.members.ByAny(memberID)
	if m == nil {
		return errNotFound("member")
	}
	return s.kycReview(tx, m, "rejected")
}

// runCompleteKYCSession plays the member finishing a hosted KYC screen (ticket
// id with or without kyc_): the link is used up and the profile goes back to
// review. Control action kyc/sessions/{id}/complete.
func (s *Simulator) runCompleteKYCSession(ticketID string) error {
	tx := s.k.Begin()
	defer tx.End()
	_, err := s.completeKYCSession(tx, ticketID)
	return err
}

// --- quick KYC bindings ---

func quickBindingJSON(b *quickBinding) map[string]any {
	return map[string]any{
		"id":         b.ID,
		"status":     b.Status,
		"fee_asset":  quickKYCFeeAsset,
		"fee_amount": b.Fee.String(),
		"created_at": b.CreatedAt.UTC().Format(time.RFC3339),
	}
}

// quickBindingActive reports whether bindingID is an active quick KYC binding
// of member m.
func (s *Simulator) quickBindingActive(m *member, bindingID string) bool {
	b := s.kyc.bindings[strings.TrimSpace(bindingID)]
	return b != nil && m != nil && b.MemberID == m.ID && b.Status == "active"
}

// allocateQuickBinding binds a new quick KYC profile to m and charges the
// usage fee (10 USDT) from the member's available balance (platform_hosted)
// or the merchant prepaid account (merchant_hosted). email is required when
// m has no genuine level-1 KYC and must never have been used. On error
// nothing changes. Card applications call it to allocate automatically.
func (s *Simulator) allocateQuickBinding(tx *kernel.Tx, m *member, email string) (*quickBinding, error) {
	if s.kyc.quickDisabled {
		return nil, newErr("quick_kyc_disabled", "quick KYC is not enabled for the merchant")
	}
	n := 0
	for _, b := range s.kyc.bindingsOf[m.ID] {
		if b.Status == "active" {
			n++
		}
	}
	if n >= quickKYCMax {
		return nil, newErr("quick_kyc_limit", "the member already has 5 quick KYC profiles")
	}
	email = strings.TrimSpace(email)
	if email != "" {
		if a, err := mail.ParseAddress(email); err != nil || a.Address != email {
			return nil, errInvalidFieldReasons("invalid e-mail", fieldReason{"email", "not a plain e-mail address"})
		}
		if s.kyc.quickUsedEmails[strings.ToLower(email)] {
			return nil, errInvalidFieldReasons("e-mail already used", fieldReason{"email", "already used for KYC"})
		}
	} else if m.KYCLevel < 1 {
		return nil, errInvalidFieldReasons("e-mail required", fieldReason{"email", "required when the member has no level-1 KYC"})
	}
	if s.kyc.quickPool <= 0 {
		return nil, newErr("quick_kyc_exhausted", "no matching unassigned quick profile")
	}
	fee, _ := s.cat.amount(quickKYCFeeAsset, quickKYCFee, decimalSigned)
	from := MemberAvailable(m.ID)
	if s.merchant.Model == MerchantHosted {
		from = AccountMerchantPrepaid
	}
	now := s.clock.Now()
	if err := s.ledger.Transfer(now, "quick KYC usage fee", quickKYCFeeAsset, fee, from, AccountRevenueFees); err != nil {
		return nil, newErr("quick_kyc_unpaid", "the quick KYC usage fee (10 USDT) is not covered")
	}
	b := &quickBinding{seq: s.nextSeq(tx), ID: "qkb_" + s.newUUID(), MemberID: m.ID, Status: "active", FeeAccount: from, Fee: fee, Email: email, CreatedAt: now}
	s.kyc.quickPool--
	if email != "" {
		s.kyc.quickUsedEmails[strings.ToLower(email)] = true
	}
	s.kyc.bindings[b.ID] = b
	s.kyc.bindingsOf[m.ID] = append(s.kyc.bindingsOf[m.ID], b)
	return b, nil
}

// compensateQuickBinding marks a binding compensated (source admin or
// auto; auto when empty), refunds its usage fee to where it came from, and
// emits kyc.quick.compensated. applicationID (cap_...) is included when the
// failure was a card application's.
func (s *Simulator) compensateQuickBinding(tx *kernel.Tx, id, source, applicationID string) (*quickBinding, error) {
	b := s.kyc.bindings[strings.TrimSpace(id)]
	if b == nil && !strings.HasPrefix(id, "qkb_") {
		b = s.kyc.bindings["qkb_"+strings.TrimSpace(id)]
	}
	if b == nil {
		return nil, errNotFound("quick KYC binding")
	}
	if b.Status != "active" {
		return nil, newErr("state_invalid", "the binding is already compensated")
	}
	switch source {
	case "":
		source = "auto"
	case "admin", "auto":
	default:
		return nil, errInvalidRequest("compensation_source must be admin or auto")
	}
	if applicationID != "" && !strings.HasPrefix(applicationID, "cap_") {
		applicationID = "cap_" + applicationID
	}
	// A card application still under review on this binding loses its KYC
	// basis: it is rejected first (fee and shipping refunded, first top-up
	// released, card.application.rejected), so no card is issued on a
	// compensated binding.
	for _, a := range s.appsOnBinding(b.ID) {
		if err := s.failCardApplication(tx, a, false); err != nil {
			return nil, err
		}
		if applicationID == "" {
			applicationID = a.ID
		}
	}
	now := s.clock.Now()
	if err := s.ledger.Transfer(now, "quick KYC compensation", quickKYCFeeAsset, b.Fee, AccountRevenueFees, b.FeeAccount); err != nil {
		return nil, err
	}
	b.Status = "compensated"
	b.Version = now.UnixNano()
	extra := map[string]any{"compensation_source": source}
	if applicationID != "" {
		extra["application_id"] = applicationID
	}
	s.emit(tx, "kyc.quick.compensated", "quick_kyc_binding", b.ID, s.members.Get(b.MemberID), "compensated", b.Version, extra)
	return b, nil
}

// runCompensateQuickBinding compensates an active quick KYC binding: it stops
// being active, leaves GET /v1/kyc/quick, its fee is refunded and
// kyc.quick.compensated is emitted. source is admin or auto (empty: auto);
// applicationID is optional. Control action kyc/quick/{id}/compensate with
// body {"compensation_source": ..., "application_id": ...}.
func (s *Simulator) runCompensateQuickBinding(id, source, applicationID string) error {
	tx := s.k.Begin()
	defer tx.End()
	_, err := s.compensateQuickBinding(tx, id, source, applicationID)
	return err
}

// setQuickKYC enables or disables quick KYC for the merchant and sets the
// number of unassigned quick profiles left (negative keeps it).
func (s *Simulator) setQuickKYC(enabled bool, pool int) {
	tx := s.k.Begin()
	defer tx.End()
	s.kyc.quickDisabled = !enabled
	if pool >= 0 {
		s.kyc.quickPool = pool
	}
}

// listQuickBindings answers GET /v1/kyc/quick: the member's active bindings,
// newest first. The response shape is inferred: the specification names this
// endpoint without showing its fields.
func (s *Simulator) listQuickBindings(c *rc) (int, any, error) {
	var items []*quickBinding
	for _, b := range s.kyc.bindingsOf[c.Member.ID] {
		if b.Status == "active" {
			items = append(items, b)
		}
	}
	env := paginate(items, func(b *quickBinding) pageKey { return pageKey{At: b.CreatedAt, Seq: b.seq} }, c.Req.URL.Query())
	out := make([]map[string]any, 0, len(items))
	for _, b := range env.Data.([]*quickBinding) {
		out = append(out, quickBindingJSON(b))
	}
	env.Data = out
	return http.StatusOK, env, nil
}

// createQuickBinding answers POST /v1/kyc/quick (inferred endpoint): body
// {email}; 201 with the binding.
func (s *Simulator) createQuickBinding(c *rc) (int, any, error) {
	var in struct {
		Email string `json:"email"`
	}
	if err := c.Decode(&in); err != nil {
		return 0, nil, err
	}
	b, err := s.allocateQuickBinding(c.Tx, c.Member, in.Email)
	if err != nil {
		// The envelope's fields carry a reason only on POST
		// /v1/remit/payees: here the keys alone.
		if ae := asAPIError(err); ae.Code == "invalid_fields" {
			return 0, nil, errInvalidFields(ae.Message, "email")
		}
		return 0, nil, err
	}
	return http.StatusCreated, quickBindingJSON(b), nil
}

// fieldReason is one invalid_fields item with a reason.
type fieldReason struct{ key, reason string }

// errInvalidFieldReasons answers invalid_fields with a key and a reason per
// field.
func errInvalidFieldReasons(msg string, fields ...fieldReason) *apiError {
	out := make([]map[string]string, 0, len(fields))
	for _, f := range fields {
		out = append(out, map[string]string{"key": f.key, "reason": f.reason})
	}
	return newErr("invalid_fields", msg).With("fields", out)
}
