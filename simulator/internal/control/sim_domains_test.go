package control

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSimDomains: each domain of the simulator as a whole, its name, its
// values outside it, and its choices or objects as the lookups give them.
func TestSimDomains(t *testing.T) {
	t.Parallel()
	has := func(ids ...string) func(*coreX, string) bool {
		return func(_ *coreX, id string) bool { return cmp.Equal(ids, []string{id}) }
	}
	d := SimDomains(SimLookups[*coreX]{
		MerchantModels: []string{"platform_hosted", "merchant_hosted"},
		Environments:   []string{"sandbox", "production"},
		FaultKinds:     []string{"error", "delay"},
		Collections:    func(*coreX) []string { return []string{"qr_orders"} },
		Actions:        func() []string { return []string{"cards/ship"} },
		Assets:         func(*coreX) []string { return []string{"USDT"} },
		Member:         has("mem_1"),
		Key:            has("key_1"),
		OutcomeObject:  has("qr_1"),
		DashboardFiles: func() []string { return []string{"app.js"} },
	})
	tests := []struct {
		key, name string
		bad       []any
		choices   []string
		object    string
	}{
		{"merchant_model", "merchant model", []any{"self_hosted"}, []string{"merchant_hosted", "platform_hosted"}, ""},
		{"environment", "environment", []any{"staging"}, []string{"production", "sandbox"}, ""},
		{"fault_kind", "fault kind", []any{"drop"}, []string{"delay", "error"}, ""},
		{"outcome_collection", "outcome collection", []any{"remittance"}, []string{"qr_orders"}, ""},
		{"action", "control action", []any{"cards/explode"}, []string{"cards/ship"}, ""},
		{"asset", "asset", []any{"USDX"}, []string{"USDT"}, ""},
		{"member_ctx", "member", nil, nil, "mem_1"},
		{"key", "key", nil, nil, "key_1"},
		{"dashboard_file", "dashboard file", nil, nil, "app.js"},
		{"outcome_object", "object of an outcome collection", nil, nil, "qr_1"},
	}
	if len(d) != len(tests) {
		t.Errorf("%d domains, want %d", len(d), len(tests))
	}
	for _, tt := range tests {
		dom := d[tt.key]
		if dom == nil {
			t.Errorf("%s: missing", tt.key)
			continue
		}
		if dom.Name != tt.name {
			t.Errorf("%s: name %q, want %q", tt.key, dom.Name, tt.name)
		}
		if tt.object == "" {
			if diff := cmp.Diff(tt.bad, dom.Bad); diff != "" {
				t.Errorf("%s: bad (-want +got):\n%s", tt.key, diff)
			}
			if diff := cmp.Diff(tt.choices, dom.Choices(&coreX{})); diff != "" {
				t.Errorf("%s: choices (-want +got):\n%s", tt.key, diff)
			}
			continue
		}
		if !dom.Object(&coreX{}, tt.object) || dom.Object(&coreX{}, tt.object+"x") {
			t.Errorf("%s: the lookup of %q", tt.key, tt.object)
		}
	}
	if d["asset"].Norm == nil || d["asset"].Norm(" usdt ") != "USDT" {
		t.Error("asset: not folded")
	}
}
