package members

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
)

// TestLineOnItsOwn: the members line against a fake host; a refused seed
// or status changes nothing.
func TestLineOnItsOwn(t *testing.T) {
	t.Parallel()
	svc := kerneltest.New()
	tx := svc.Begin()
	defer tx.End()
	var l Line
	l.Init(svc.Kernel())
	code := func(err error) string {
		var ae *api.Error
		if errors.As(err, &ae) {
			return ae.Code
		}
		return ""
	}
	tests := []struct {
		name string
		seed Seed
		code string
	}{
		{"created", Seed{ExternalID: " m-1 ", KYCLevel: 1, Balances: map[string]string{"USDT": "5"}}, ""},
		{"duplicate external id", Seed{ExternalID: "m-1"}, "duplicate_resource"},
		{"missing external id", Seed{}, "invalid_request"},
		{"mem_ prefix", Seed{ExternalID: "mem_x"}, "invalid_request"},
		{"kyc level", Seed{ExternalID: "m-2", KYCLevel: 3}, "invalid_request"},
		{"status", Seed{ExternalID: "m-2", Status: "gone"}, "invalid_request"},
		{"bad balance", Seed{ExternalID: "m-2", Balances: map[string]string{"USDT": "bad"}}, "invalid_request"},
		{"negative balance", Seed{ExternalID: "m-2", Balances: map[string]string{"USDT": "-1"}}, "invalid_request"},
		{"balance of no catalogue asset", Seed{ExternalID: "m-2", Balances: map[string]string{"usdt": "1", "XRP": "1"}}, "invalid_request"},
		{"own merchant id is not foreign", Seed{ExternalID: "m-3", MerchantID: "mch_1"}, ""},
	}
	for _, tt := range tests {
		_, err := l.Create(tx, tt.seed)
		if code(err) != tt.code {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.code)
		}
	}
	if got := len(l.All(tx)); got != 2 {
		t.Fatalf("%d members, want 2", got)
	}
	m := l.ByExternal(tx, "m-1")
	if m == nil {
		t.Fatal("no member m-1")
	}
	for _, got := range []*api.Member{l.Get(tx, m.ID), l.ByID(tx, "u1"), l.ByAny(tx, "m-1"), l.ByAny(tx, " mem_u1 ")} {
		if diff := cmp.Diff(m, got); diff != "" {
			t.Fatalf("lookups of m-1 disagree (-ByExternal +other):\n%s", diff)
		}
	}
	if l.ByID(tx, "m-1") != nil {
		t.Error("ByID found a member by its external id")
	}
	if l.ByExternal(tx, "m-3").MerchantID != "" {
		t.Error("the merchant's own id made a member foreign")
	}
	if _, err := l.SetStatus(tx, "m-1", "sleeping"); code(err) != "invalid_request" || l.Get(tx, m.ID).Status != "active" {
		t.Errorf("bad status: %v, status %s", err, l.Get(tx, m.ID).Status)
	}
	if _, err := l.SetStatus(tx, "nobody", "active"); code(err) != "not_found" {
		t.Errorf("unknown member: %v", err)
	}
	for _, st := range []string{"suspended", "frozen", "active"} {
		if _, err := l.SetStatus(tx, m.ID, st); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, e := range svc.Events {
		got = append(got, e.Type+" "+e.ObjectID+" "+e.Status)
	}
	want := []string{"member.created u1 active", "member.created u5 active", "member.suspended u1 suspended", "member.suspended u1 frozen"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	// The one seeded member's balance came from the world account, in one
	// entry; the refused seeds posted nothing.
	if diff := cmp.Diff([]string{"seed member balance"}, svc.Memos); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	for account, want := range map[string]string{kernel.MemberAvailable("mem_u1"): "5.000000", kernel.AccountWorld: "-5.000000"} {
		if got := svc.Read(account, "USDT").String(); got != want {
			t.Errorf("%s: %s USDT, want %s", account, got, want)
		}
	}
}

// TestCreateControl: the control API's creation creates as Create does and
// answers a refusal as the line's own *api.Error, its code kept.
func TestCreateControl(t *testing.T) {
	t.Parallel()
	svc := kerneltest.New()
	tx := svc.Begin()
	defer tx.End()
	var l Line
	l.Init(svc.Kernel())
	m, err := l.createControl(tx, Seed{ExternalID: "m-1"})
	if err != nil || m.ExternalID != "m-1" {
		t.Fatalf("created %v, %v", m, err)
	}
	for _, tc := range []struct {
		name string
		seed Seed
		code string
	}{
		{"duplicate external id", Seed{ExternalID: "m-1"}, "duplicate_resource"},
		{"kyc level", Seed{ExternalID: "m-2", KYCLevel: 3}, "invalid_request"},
	} {
		_, err := l.createControl(tx, tc.seed)
		var ae *api.Error
		if !errors.As(err, &ae) || ae.Code != tc.code {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.code)
		}
	}
}
