package cards_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// TestPINBodyRefusedByService sends PIN bodies the SDK refuses locally, to
// check the service side: missing or malformed fields are invalid_fields
// with a fields array naming them (a wrong PIN or CVV has none), and such a
// refusal neither asks for step-up nor counts against the hourly quota.
func TestPINBodyRefusedByService(t *testing.T) {
	t.Parallel()
	sim, cl := simtest.New(t)
	id := activePhysical(t, sim, cl)
	tests := []struct {
		name string
		body map[string]any
		keys []string
	}{
		{name: "empty body", body: map[string]any{}, keys: []string{"new_pin", "current_pin", "cvv"}},
		{name: "new_pin missing", body: map[string]any{"current_pin": string(goodPIN)}, keys: []string{"new_pin"}},
		{name: "new_pin not digits", body: map[string]any{"new_pin": "12a456", "current_pin": string(goodPIN)}, keys: []string{"new_pin"}},
		{name: "neither current_pin nor cvv", body: map[string]any{"new_pin": "246809"}, keys: []string{"current_pin", "cvv"}},
		{name: "both current_pin and cvv", body: map[string]any{"new_pin": "246809", "current_pin": string(goodPIN), "cvv": "123"}, keys: []string{"current_pin", "cvv"}},
		{name: "cvv of two digits", body: map[string]any{"new_pin": "246809", "cvv": "12"}, keys: []string{"cvv"}},
		{name: "cvv not digits", body: map[string]any{"new_pin": "246809", "cvv": "1x3"}, keys: []string{"cvv"}},
	}
	// Seven refusals: more than the quota of five, so a refusal that
	// counted would show as rate_limited before the end.
	for _, tt := range tests {
		_, err := cl.Do(ctx, &mwallet.Request{Method: http.MethodPost, Path: "/v1/cards/" + id + "/pin", MemberScoped: true, Member: member, Body: tt.body, Idempotent: true}, nil)
		e := simtest.WantCode(t, err, mwallet.CodeInvalidFields)
		var got []string
		for _, f := range e.Fields {
			got = append(got, f.Key)
		}
		if diff := cmp.Diff(tt.keys, got); diff != "" {
			t.Errorf("%s: field keys (-want +got):\n%s", tt.name, diff)
		}
	}
	// The quota is untouched: a valid change still goes through step-up.
	if _, err := setPIN(t, sim, cl, id, cards.SetPINParams{NewPIN: "246809", CurrentPIN: goodPIN}); err != nil {
		t.Fatalf("valid change after refusals: %v", err)
	}
	checkBooks(t, sim)
}
