package webhooks_test

import (
	"testing"

	"github.com/mwallet/mwallet-go/webhooks"
)

func TestRetrieval(t *testing.T) {
	t.Parallel()
	const uuid = "3f2b8c1e-0d4a-4c5e-9b7f-1a2b3c4d5e6f"
	tests := []struct {
		name     string
		data     webhooks.Data
		wantID   string
		wantIDOK bool
		wantPath string
		wantOK   bool
	}{
		{"member", webhooks.Data{Object: webhooks.ObjectMember, ID: uuid}, "mem_" + uuid, true, "/v1/members/mem_" + uuid, true},
		{"member already prefixed", webhooks.Data{Object: webhooks.ObjectMember, ID: "mem_" + uuid}, "mem_" + uuid, true, "/v1/members/mem_" + uuid, true},
		{"kyc is the member", webhooks.Data{Object: webhooks.ObjectKYC, ID: uuid}, "mem_" + uuid, true, "/v1/kyc", true},
		{"remittance", webhooks.Data{Object: webhooks.ObjectRemittance, ID: uuid}, "rmt_" + uuid, true, "/v1/remittances/rmt_" + uuid, true},
		{"qrpay order", webhooks.Data{Object: webhooks.ObjectQRPayOrder, ID: "9001"}, "qrp_9001", true, "/v1/qrpay/orders/qrp_9001", true},
		{"card application kept", webhooks.Data{Object: webhooks.ObjectCardApplication, ID: "cap_77"}, "cap_77", true, "/v1/cards/applications/cap_77", true},
		{"card", webhooks.Data{Object: webhooks.ObjectCard, ID: "c42"}, "crd_c42", true, "/v1/cards/crd_c42", true},
		{"card withdrawal has an id but no read", webhooks.Data{Object: webhooks.ObjectCardWithdrawal, ID: uuid}, "cwd_" + uuid, true, "", false},
		{"exchange order is a list", webhooks.Data{Object: webhooks.ObjectExchangeOrder, ID: "e1"}, "exc_e1", true, "/v1/exchange/orders", true},
		{"earn fixed term", webhooks.Data{Object: webhooks.ObjectEarnOrder, ID: "eo1", StatusVersion: 2}, "eo1", true, "/v1/earn/orders", true},
		{"earn flexible interest", webhooks.Data{Object: webhooks.ObjectEarnOrder, ID: uuid}, "", false, "", false},
		{"deposit", webhooks.Data{Object: webhooks.ObjectDeposit, ID: "12345"}, "", false, "", false},
		{"withdrawal", webhooks.Data{Object: webhooks.ObjectWithdrawal, ID: "w1"}, "", false, "", false},
		{"card topup", webhooks.Data{Object: webhooks.ObjectCardTopup, ID: "t1"}, "", false, "", false},
		{"quick kyc binding", webhooks.Data{Object: webhooks.ObjectQuickKYCBinding, ID: "b1"}, "", false, "", false},
		{"unknown kind", webhooks.Data{Object: "gizmo", ID: "g1"}, "", false, "", false},
		{"empty id", webhooks.Data{Object: webhooks.ObjectCard}, "", false, "", false},
		{"id escaped in path", webhooks.Data{Object: webhooks.ObjectCard, ID: "a/b"}, "crd_a/b", true, "/v1/cards/crd_a%2Fb", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			id, ok := tc.data.RESTID()
			if id != tc.wantID || ok != tc.wantIDOK {
				t.Errorf("RESTID() = %q, %v; want %q, %v", id, ok, tc.wantID, tc.wantIDOK)
			}
			p, ok := tc.data.RetrievalPath()
			if p != tc.wantPath || ok != tc.wantOK {
				t.Errorf("RetrievalPath() = %q, %v; want %q, %v", p, ok, tc.wantPath, tc.wantOK)
			}
			if tc.data.RetrievalNote() == "" {
				t.Error("RetrievalNote() is empty")
			}
		})
	}
}
