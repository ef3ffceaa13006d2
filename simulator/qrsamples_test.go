package simulator_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/sampleqr"
)

// TestQRSamplesServed: GET /_sim/qr-samples answers every sample of package
// sampleqr in the list envelope, for clients without Go, and each code
// quotes through the business API as its row says (a custom-amount code
// with the amount the payer enters).
func TestQRSamplesServed(t *testing.T) {
	t.Parallel()
	_, c := newRaw(t)
	r := c.mustControl("GET", "/_sim/qr-samples", nil)
	var got struct {
		Data       []sampleqr.Sample `json:"data"`
		NextCursor *string           `json:"next_cursor"`
		HasMore    bool              `json:"has_more"`
	}
	if err := json.Unmarshal(r.raw, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sampleqr.All(), got.Data); diff != "" || got.HasMore || got.NextCursor != nil {
		t.Fatalf("GET /_sim/qr-samples differs from sampleqr.All() (-want +got):\n%s", diff)
	}
	tok := c.token()
	for _, s := range got.Data {
		body := map[string]any{"code_value": s.Value}
		if s.Amount == "" {
			body["amount"], body["currency"] = "10", s.Currency
		}
		q := c.write(tok, "POST", "/v1/qrpay/quotes", member1, "", jsonBody(body))
		wantStatus(t, q, 200)
		want := s.Amount
		if want == "" {
			want = "10"
		}
		if q.body["payee"] != s.Payee || q.body["acquirer_currency"] != s.Currency || !sameDecimal(q.body["acquirer_amount"], want) {
			t.Errorf("%s: quoted %v %v %v, want %s %s %s", s.Name, q.body["payee"], q.body["acquirer_amount"], q.body["acquirer_currency"], s.Payee, want, s.Currency)
		}
	}
	t.Logf("%d samples served and quoted", len(got.Data))
}

// sameDecimal compares a decimal string of an answer with want as
// amounts (the codes' amounts have at most 2 decimals; 6 holds them all).
func sameDecimal(got any, want string) bool {
	g, ok := got.(string)
	if !ok {
		return false
	}
	x, errX := money.Parse(g, 6)
	y, errY := money.Parse(want, 6)
	return errX == nil && errY == nil && x.Equal(y)
}
