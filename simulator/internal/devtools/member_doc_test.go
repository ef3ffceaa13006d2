package devtools

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// TestMemberDocument: the member's fields, its own merchant or the one
// given, the creation time in UTC, and the balances of every asset given
// (none without assets).
func TestMemberDocument(t *testing.T) {
	t.Parallel()
	books := fakeLedger{
		kernel.MemberAvailable("mem_1"): {"USDT": "7"},
		kernel.MemberLocked("mem_1"):    {"USDT": "3"},
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	for _, tc := range []struct {
		name   string
		m      api.Member
		assets []string
		want   map[string]any
	}{
		{
			name:   "the merchant's member",
			m:      api.Member{ID: "mem_1", ExternalID: "m-1", KYCLevel: 2, Status: "active", CreatedAt: at},
			assets: []string{"USDT", "USDC"},
			want: map[string]any{
				"id": "mem_1", "external_member_id": "m-1", "kyc_level": 2, "status": "active",
				"platform_direct": false, "merchant_id": "mer_sim", "created_at": "2026-01-02T02:04:05Z",
				"balances": map[string]any{
					"USDT": map[string]string{"available": "7.00", "locked": "3.00"},
					"USDC": map[string]string{"available": "0.00", "locked": "0.00"},
				},
			},
		},
		{
			name: "a member of its own merchant, no assets",
			m:    api.Member{ID: "mem_2", ExternalID: "m-2", Status: "frozen", PlatformDirect: true, MerchantID: "mer_other", CreatedAt: at},
			want: map[string]any{
				"id": "mem_2", "external_member_id": "m-2", "kyc_level": 0, "status": "frozen",
				"platform_direct": true, "merchant_id": "mer_other", "created_at": "2026-01-02T02:04:05Z",
				"balances": map[string]any{},
			},
		},
	} {
		got := MemberDocument(nil, books, &tc.m, tc.assets, "mer_sim")
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
