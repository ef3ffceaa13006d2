package startup

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/catalogue"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
	"github.com/mwallet/mwallet-go/simulator/internal/members"
)

// noCache is a catalogue.Cache that keeps nothing.
type noCache struct{}

func (noCache) Get(*kernel.Tx) (string, string, bool) { return "", "", false }
func (noCache) Set(*kernel.Tx, string, string)        {}

func TestFixtureLoad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		f       Fixture
		members []string // external ids, in creation order
		err     string
	}{
		{"fixture member", Fixture{Member: "member-1"}, []string{"member-1"}, ""},
		{"none", Fixture{}, nil, ""},
		{"seeds after the member", Fixture{Member: "member-1", Seeds: []members.Seed{{ExternalID: "a"}, {ExternalID: "b", KYCLevel: 2}}},
			[]string{"member-1", "a", "b"}, ""},
		{"a seed refused", Fixture{Seeds: []members.Seed{{ExternalID: "a"}, {ExternalID: "a"}}}, []string{"a"},
			`simulator: WithMember "a": `},
	}
	for _, tt := range tests {
		svc := kerneltest.New()
		svc.Scales["USDC"] = 6
		var l members.Line
		l.Init(svc.Kernel())
		cat := catalogue.New(noCache{})
		tx := svc.Begin()
		err := tt.f.Load(tx, cat, &l, svc.Clock)
		got := ""
		if err != nil {
			got = err.Error()[:min(len(err.Error()), len(tt.err))]
		}
		if got != tt.err {
			t.Errorf("%s: error %v, want one beginning %q", tt.name, err, tt.err)
		}
		var ext []string
		for _, m := range l.All(tx) {
			ext = append(ext, m.ExternalID)
		}
		if diff := cmp.Diff(tt.members, ext); diff != "" {
			t.Errorf("%s: members (-want +got):\n%s", tt.name, diff)
		}
		var fixture []string
		for _, a := range catalogue.Fixture() {
			fixture = append(fixture, a.Code)
		}
		var loaded []string
		for _, a := range cat.All() {
			loaded = append(loaded, a.Code)
		}
		if diff := cmp.Diff(fixture, loaded); diff != "" {
			t.Errorf("%s: catalogue (-want +got):\n%s", tt.name, diff)
		}
		if tt.err == "" {
			for _, p := range PrepaidFunding {
				if got := svc.Read(kernel.AccountMerchantPrepaid, p.Asset).String(); got != "100000.000000" {
					t.Errorf("%s: prepaid %s %s, want 100000.000000", tt.name, p.Asset, got)
				}
			}
		}
		tx.End()
	}
}

func TestFixtureMember(t *testing.T) {
	t.Parallel()
	want := members.Seed{ExternalID: "m", KYCLevel: 1, Balances: map[string]string{"USDT": "1000.000000", "USDC": "500.000000"}}
	if diff := cmp.Diff(want, FixtureMember("m")); diff != "" {
		t.Errorf("FixtureMember (-want +got):\n%s", diff)
	}
}

func TestCatalog(t *testing.T) {
	t.Parallel()
	catalog := map[string]bool{"extra:read": true}
	restricted := map[string]bool{"cards:secure": true, "deposits:write": true}
	granted, approved := Catalog(catalog, restricted, []api.Endpoint{{Method: "GET", Pattern: "/v1/x", Scope: "kyc:read"}})
	want := append(append([]string{"extra:read"}, ContractScopes...), ServiceScopes...)
	if diff := cmp.Diff(kernel.SortedSet(setOf(want)).Slice(), granted.Slice()); diff != "" {
		t.Errorf("granted (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"cards:secure", "deposits:write"}, approved.Slice()); diff != "" {
		t.Errorf("approved (-want +got):\n%s", diff)
	}
	defer func() {
		if recover() == nil {
			t.Error("an endpoint whose scope is outside the catalogue: no panic")
		}
	}()
	Catalog(map[string]bool{}, restricted, []api.Endpoint{{Method: "GET", Pattern: "/v1/y", Scope: "nope:read"}})
}

func setOf(v []string) map[string]bool {
	m := map[string]bool{}
	for _, s := range v {
		m[s] = true
	}
	return m
}
