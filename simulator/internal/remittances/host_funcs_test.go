package remittances

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// TestHostFuncs: each Host method calls its field with its arguments and
// answers what the field answers.
func TestHostFuncs(t *testing.T) {
	t.Parallel()
	var calls []string
	m := &api.Member{ID: "mem_1"}
	var host Host = HostFuncs{
		MerchantStatusFunc:   func(*kernel.Tx) (string, bool) { calls = append(calls, "status"); return "suspended", false },
		MemberFunc:           func(_ *kernel.Tx, id string) *api.Member { calls = append(calls, "member "+id); return m },
		MemberByExternalFunc: func(_ *kernel.Tx, id string) *api.Member { calls = append(calls, "external "+id); return m },
		HasKYCProfileFunc:    func(_ *kernel.Tx, m *api.Member) bool { calls = append(calls, "profile "+m.ID); return true },
		KYCInReviewFunc:      func(_ *kernel.Tx, m *api.Member) bool { calls = append(calls, "review "+m.ID); return true },
	}
	if s, ok := host.MerchantStatus(nil); s != "suspended" || ok {
		t.Errorf("MerchantStatus: %q, %v", s, ok)
	}
	if host.Member(nil, "mem_1") != m || host.MemberByExternal(nil, "u1") != m || !host.HasKYCProfile(nil, m) || !host.KYCInReview(nil, m) {
		t.Error("a method answered otherwise than its field")
	}
	want := []string{"status", "member mem_1", "external u1", "profile mem_1", "review mem_1"}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}
