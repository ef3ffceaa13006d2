package simulator

import "testing"

func TestQuickBindingActive(t *testing.T) {
	t.Parallel()
	s := mustNewHandler(WithMember(MemberSeed{ExternalID: "other", KYCLevel: 1, Balances: map[string]string{"USDT": "20"}}))
	tx := s.k.BeginSetup() // the line driven directly, outside any input
	defer tx.End()
	m, other := s.st.members.ByExternal(tx, DefaultMemberExternalID), s.st.members.ByExternal(tx, "other")
	b, err := s.st.kyc.Allocate(tx, m, "")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		m    *member
		id   string
		want bool
	}{
		{"own active binding", m, b.ID, true},
		{"another member's binding", other, b.ID, false},
		{"unknown id", m, "qkb_nope", false},
		{"nil member", nil, b.ID, false},
	}
	for _, tt := range tests {
		if got := s.st.kyc.BindingActive(tx, tt.m, tt.id); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	if _, err := s.st.kyc.Compensate(tx, b.ID, "auto", ""); err != nil {
		t.Fatal(err)
	}
	if s.st.kyc.BindingActive(tx, m, b.ID) {
		t.Fatal("a compensated binding is still active")
	}
	if err := s.st.ledger.Check(tx); err != nil {
		t.Fatal(err)
	}
}
