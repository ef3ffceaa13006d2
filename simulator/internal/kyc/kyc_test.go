package kyc

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
)

// fakeHost records the bindings withdrawn; balances and events are the
// kernel's (kerneltest).
type fakeHost struct {
	withdrawn []string
	apps      map[string][]string // binding -> card applications resting on it
	members   map[string]*api.Member
}

func newFakeHost() *fakeHost {
	return &fakeHost{apps: map[string][]string{}, members: map[string]*api.Member{}}
}

func (h *fakeHost) SetMemberKYC(_ *kernel.Tx, id string, level int, hasProfile bool) {
	h.members[id].KYCLevel, h.members[id].HasKYCProfile = level, hasProfile
}

func (h *fakeHost) Member(_ *kernel.Tx, id string) *api.Member { return h.members[id] }
func (h *fakeHost) BindingWithdrawn(_ *kernel.Tx, id string) ([]string, error) {
	h.withdrawn = append(h.withdrawn, id)
	return h.apps[id], nil
}

func code(err error) string {
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae.Code
	}
	return ""
}

// TestQuickBindingsOnTheirOwn runs the quick KYC rules of the line against
// a fake host: a refused allocation changes nothing, and a compensation
// tells the host first and names the first application it rejected.
func TestQuickBindingsOnTheirOwn(t *testing.T) {
	t.Parallel()
	svc := kerneltest.New()
	tx := svc.Begin()
	defer tx.End()
	h := newFakeHost()
	rich := &api.Member{ID: "mem_rich", KYCLevel: 1}
	poor := &api.Member{ID: "mem_poor", KYCLevel: 1}
	none := &api.Member{ID: "mem_none"}
	h.members[rich.ID], h.members[poor.ID], h.members[none.ID] = rich, poor, none
	svc.Set(kernel.MemberAvailable(rich.ID), "USDT", money.MustParse("100", 6))
	l := New(svc.Kernel(), h)

	tests := []struct {
		name  string
		m     *api.Member
		email string
		code  string
	}{
		{"no e-mail without level-1 KYC", none, "", "invalid_fields"},
		{"not a plain e-mail", rich, "Ann <ann@example.com>", "invalid_fields"},
		{"fee not covered", poor, "", "quick_kyc_unpaid"},
		{"bound", rich, "ann@example.com", ""},
		{"e-mail used before", rich, "ANN@example.com", "invalid_fields"},
	}
	for _, tt := range tests {
		if _, err := l.Allocate(tx, tt.m, tt.email); code(err) != tt.code {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.code)
		}
	}
	for i := 0; i < 4; i++ {
		if _, err := l.Allocate(tx, rich, ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Allocate(tx, rich, ""); code(err) != "quick_kyc_limit" {
		t.Errorf("sixth binding: %v", err)
	}
	if got := svc.Read(kernel.MemberAvailable(rich.ID), "USDT").String(); got != "50.000000" {
		t.Errorf("after 5 fees the member has %s, want 50.000000", got)
	}
	l.SetQuick(tx, false, -1)
	if _, err := l.Allocate(tx, poor, ""); code(err) != "quick_kyc_disabled" {
		t.Errorf("disabled: %v", err)
	}
	l.SetQuick(tx, true, 0)
	if _, err := l.Allocate(tx, poor, ""); code(err) != "quick_kyc_exhausted" {
		t.Errorf("empty pool: %v", err)
	}
	if on, pool := l.Quick(tx); !on || pool != 0 {
		t.Errorf("Quick = %v, %d", on, pool)
	}

	// Compensation: the host is told first, the fee goes back.
	var first string
	for _, b := range l.bindingsOf(tx, rich.ID) {
		first = b.ID
		break
	}
	h.apps[first] = []string{"cap_1", "cap_2"}
	for _, tt := range []struct{ id, source, code string }{
		{"qkb_nope", "", "not_found"},
		{first, "robot", "invalid_request"},
		{strings.TrimPrefix(first, "qkb_"), "", ""},
		{first, "admin", "state_invalid"},
	} {
		if _, err := l.Compensate(tx, tt.id, tt.source, ""); code(err) != tt.code {
			t.Errorf("Compensate(%q, %q): %v, want %q", tt.id, tt.source, err, tt.code)
		}
	}
	if l.BindingActive(tx, rich, first) {
		t.Error("a compensated binding is active")
	}
	if diff := cmp.Diff([]string{first}, h.withdrawn); diff != "" {
		t.Errorf("withdrawn (-want +got):\n%s", diff)
	}
	want := []kernel.Event{{Type: "kyc.quick.compensated", Object: "quick_kyc_binding", ObjectID: first, MemberID: rich.ID,
		Status: "compensated", Version: svc.Clock.UnixNano(), Extra: map[string]any{"application_id": "cap_1", "compensation_source": "auto"}}}
	if diff := cmp.Diff(want, svc.Events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if got := svc.Read(kernel.MemberAvailable(rich.ID), "USDT").String(); got != "60.000000" {
		t.Errorf("after the refund the member has %s, want 60.000000", got)
	}
}

// TestQuickFeeAccount: a quick KYC binding's fee is paid from the member's
// available balance, or from the merchant prepaid account of a
// merchant_hosted merchant (the kernel's custody model); a compensation
// pays it back to where it came from.
func TestQuickFeeAccount(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		model, from string
	}{
		{kernel.PlatformHosted, kernel.MemberAvailable("mem_1")},
		{kernel.MerchantHosted, kernel.AccountMerchantPrepaid},
	} {
		svc := kerneltest.New()
		svc.Model = tc.model
		tx := svc.Begin()
		h := newFakeHost()
		m := &api.Member{ID: "mem_1", KYCLevel: 1}
		h.members[m.ID] = m
		svc.Set(tc.from, "USDT", money.MustParse("10", 6))
		l := New(svc.Kernel(), h)
		b, err := l.Allocate(tx, m, "")
		if err != nil {
			t.Fatalf("%s: %v", tc.model, err)
		}
		if got := svc.Read(tc.from, "USDT").String(); got != "0.000000" {
			t.Errorf("%s: %s holds %s after the fee, want 0.000000", tc.model, tc.from, got)
		}
		if _, err := l.Compensate(tx, b.ID, "admin", ""); err != nil {
			t.Fatalf("%s: %v", tc.model, err)
		}
		if got := svc.Read(tc.from, "USDT").String(); got != "10.000000" {
			t.Errorf("%s: %s holds %s after the refund, want 10.000000", tc.model, tc.from, got)
		}
		tx.End()
	}
}

// TestProfileReview: update, approve and review move a profile and the
// member's level as the contract says.
func TestProfileReview(t *testing.T) {
	t.Parallel()
	svc := kerneltest.New()
	tx := svc.Begin()
	defer tx.End()
	h := newFakeHost()
	l := New(svc.Kernel(), h)
	m := &api.Member{ID: "mem_1", KYCLevel: 2, HasKYCProfile: true}
	h.members[m.ID] = m
	if none := (&api.Member{ID: "mem_0"}); l.Profile(tx, none) != nil || l.InReview(tx, none) {
		t.Error("a member without a profile has one, or is in review")
	}
	two := 2
	steps := []struct {
		name   string
		do     func() error
		level  int
		status string
	}{
		{"seeded", func() error { return nil }, 2, "approved"},
		{"update", func() error { return l.Update(tx, m) }, 0, "pending_review"},
		{"approve back", func() error { return l.Approve(tx, m, nil) }, 2, "approved"},
		{"supplement", func() error { return l.Review(tx, m, "supplement_required") }, 0, "supplement_required"},
		{"approve at 2", func() error { return l.Approve(tx, m, &two) }, 2, "approved"},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if p := l.Profile(tx, m); m.KYCLevel != st.level || p.Status != st.status {
			t.Errorf("%s: level %d, status %s; want %d, %s", st.name, m.KYCLevel, p.Status, st.level, st.status)
		}
		if got, want := l.InReview(tx, m), st.status != "approved"; got != want {
			t.Errorf("%s: InReview %v, want %v", st.name, got, want)
		}
	}
	bad := 3
	if err := l.Approve(tx, m, &bad); code(err) != "invalid_request" || m.KYCLevel != 2 {
		t.Errorf("approve at 3: %v, level %d", err, m.KYCLevel)
	}
	if _, err := l.CompleteSession(tx, "nope"); code(err) != "not_found" {
		t.Errorf("unknown session: %v", err)
	}
}
