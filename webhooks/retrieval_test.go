package webhooks_test

import (
	"strings"
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
		{"card topup has the ctp_ id but no read", webhooks.Data{Object: webhooks.ObjectCardTopup, ID: "t1"}, "ctp_t1", true, "", false},
		{"card topup already prefixed", webhooks.Data{Object: webhooks.ObjectCardTopup, ID: "ctp_t1"}, "ctp_t1", true, "", false},
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

// The specification's retrieval table, row by row (12 rows): data.object,
// the REST id made of a sample data.id, and the read.
func TestRetrievalTableIsTheSpecification(t *testing.T) {
	t.Parallel()
	const u = "3f2b8c1e-0d4a-4c5e-9b7f-1a2b3c4d5e6f"
	spec := []struct {
		object   webhooks.ObjectKind
		data     webhooks.Data
		restID   string // "" when none
		path     string // "" when no GET reads it
		noteHint string // what RetrievalNote must say
	}{
		{webhooks.ObjectMember, webhooks.Data{ID: u}, "mem_" + u, "/v1/members/mem_" + u, "GET /v1/members/mem_<id>"},
		{webhooks.ObjectKYC, webhooks.Data{ID: u}, "mem_" + u, "/v1/kyc", "GET /v1/kyc"},
		{webhooks.ObjectDeposit, webhooks.Data{ID: "981"}, "", "", "dep_<reference>"},
		{webhooks.ObjectWithdrawal, webhooks.Data{ID: "w1"}, "", "", "not_found"},
		{webhooks.ObjectRemittance, webhooks.Data{ID: u}, "rmt_" + u, "/v1/remittances/rmt_" + u, "GET /v1/remittances/rmt_<id>"},
		{webhooks.ObjectQRPayOrder, webhooks.Data{ID: u}, "qrp_" + u, "/v1/qrpay/orders/qrp_" + u, "GET /v1/qrpay/orders/qrp_<id>"},
		{webhooks.ObjectCardApplication, webhooks.Data{ID: "cap_" + u}, "cap_" + u, "/v1/cards/applications/cap_" + u, "already cap_"},
		{webhooks.ObjectCard, webhooks.Data{ID: u}, "crd_" + u, "/v1/cards/crd_" + u, "GET /v1/cards/crd_<id>"},
		{webhooks.ObjectCardTopup, webhooks.Data{ID: u}, "ctp_" + u, "", "card balance"},
		{webhooks.ObjectCardWithdrawal, webhooks.Data{ID: u}, "cwd_" + u, "", "card balance"},
		{webhooks.ObjectEarnOrder, webhooks.Data{ID: "eo_9", StatusVersion: 3}, "eo_9", "/v1/earn/orders", "GET /v1/earn/orders"},
		{webhooks.ObjectExchangeOrder, webhooks.Data{ID: "77"}, "exc_77", "/v1/exchange/orders", "exc_<id>"},
	}
	table := webhooks.RetrievalTable()
	if len(spec) != 12 || len(table) < 12 {
		t.Fatalf("%d rows tested, %d in the table; the specification has 12", len(spec), len(table))
	}
	for i, row := range spec {
		if table[i].Object != row.object {
			t.Errorf("row %d of RetrievalTable is %s, the specification's is %s", i, table[i].Object, row.object)
		}
		d := row.data
		d.Object = row.object
		id, ok := d.RESTID()
		if id != row.restID || ok != (row.restID != "") {
			t.Errorf("%s: RESTID() = %q, %v; want %q", row.object, id, ok, row.restID)
		}
		p, ok := d.RetrievalPath()
		if p != row.path || ok != (row.path != "") {
			t.Errorf("%s: RetrievalPath() = %q, %v; want %q", row.object, p, ok, row.path)
		}
		if note := d.RetrievalNote(); !strings.Contains(note, row.noteHint) {
			t.Errorf("%s: RetrievalNote() = %q, want it to say %q", row.object, note, row.noteHint)
		}
	}
	for _, r := range table {
		if !r.Object.Known() {
			t.Errorf("%s in RetrievalTable is not a documented kind", r.Object)
		}
	}
	t.Logf("retrieval table: %d rows (the specification's 12, then %d more)", len(table), len(table)-12)
}
