package control

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNamesTakeTheirSets: each domain of a set of names takes its names
// (folded or trimmed where it says so) and refuses its Bad value.
func TestNamesTakeTheirSets(t *testing.T) {
	tests := []struct {
		key  string
		good []string
	}{
		{key: "form_factor", good: []string{"physical", "virtual"}},
		{key: "member_status", good: []string{"active", "blocklisted"}},
		{key: "fault_method", good: []string{"*", "post"}},
		{key: "write_method", good: []string{"DELETE", "put"}},
		{key: "event_object", good: []string{"merchant_balance", "card_topup"}},
		{key: "error_code", good: []string{"invalid_request", "not_found"}},
		{key: "event_type", good: []string{"card.status.updated"}},
	}
	names := Names[*run]()
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			d := names[tt.key]
			var values, bad []any
			for _, v := range tt.good {
				values = append(values, v)
			}
			for _, v := range append(values, d.Bad...) {
				s, _ := v.(string)
				if Check(&run{}, false, []Field[*run]{{Index: []int{0}, Name: "v", Where: "body", Dom: d}}, &struct{ V string }{s}) != nil {
					bad = append(bad, v)
				}
			}
			if diff := cmp.Diff(d.Bad, bad); diff != "" {
				t.Errorf("refused (-want +got):\n%s", diff)
			}
		})
	}
}
