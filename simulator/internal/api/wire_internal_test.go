package api

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type wireInner struct {
	Name string `json:"name"`
}

type wireBody struct {
	Amount   string            `json:"amount"`
	Count    int               `json:"count"`
	Inner    *wireInner        `json:"inner"`
	List     []wireInner       `json:"list"`
	Balances map[string]string `json:"balances"`
	Raw      json.RawMessage   `json:"raw"`
	At       time.Time         `json:"at"`
	Untagged string
}

// TestDecodeStrict pins the decoder's reading of single inputs; the
// endpoint tables (wire_test.go) prove every endpoint goes through it.
func TestDecodeStrict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		unknownOK  bool
		want       *wireBody // nil: refused
	}{
		{"empty body", "", true, &wireBody{}},
		{"whitespace", " \n\t", true, &wireBody{}},
		{"empty object", "{}", true, &wireBody{}},
		{"fields", `{"amount":"1.5","count":2}`, true, &wireBody{Amount: "1.5", Count: 2}},
		{"nested struct", `{"inner":{"name":"a"},"list":[{"name":"b"}]}`, true, &wireBody{Inner: &wireInner{Name: "a"}, List: []wireInner{{Name: "b"}}}},
		{"nested unknown ignored", `{"inner":{"name":"a","x":1}}`, true, &wireBody{Inner: &wireInner{Name: "a"}}},
		{"nested unknown refused", `{"inner":{"name":"a","x":1}}`, false, nil},
		{"nested upper case", `{"inner":{"NAME":"a"}}`, true, nil},
		{"nested duplicate", `{"list":[{"name":"a","name":"b"}]}`, true, nil},
		{"map keys are data", `{"balances":{"USDT":"1","usdt":"2"}}`, true, &wireBody{Balances: map[string]string{"USDT": "1", "usdt": "2"}}},
		{"map duplicate key", `{"balances":{"USDT":"1","USDT":"2"}}`, true, nil},
		{"raw keeps its text", `{"raw":{"Any":[1,2]}}`, true, &wireBody{Raw: json.RawMessage(`{"Any":[1,2]}`)}},
		{"raw duplicate key", `{"raw":{"a":1,"a":2}}`, true, nil},
		{"time", `{"at":"2026-01-01T00:00:00Z"}`, true, &wireBody{At: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{"escaped key is the same key", `{"amount":"1","\u0061mount":"2"}`, true, nil},
		{"escaped key matches exactly", `{"\u0061mount":"2"}`, true, &wireBody{Amount: "2"}},
		{"surrogate pair", `{"amount":"\ud83d\ude00"}`, true, &wireBody{Amount: "😀"}},
		{"lone low surrogate", `{"amount":"\ude00"}`, true, nil},
		{"high surrogate then letter", `{"amount":"\ud83dx"}`, true, nil},
		{"untagged field is not lower snake case", `{"Untagged":"x"}`, true, nil},
		{"untagged field never matched by case", `{"untagged":"x"}`, true, nil},
		{"Kelvin sign", "{\"\u212aey\":1}", true, nil},
		{"depth at the limit", `{"raw":` + strings.Repeat("[", 31) + strings.Repeat("]", 31) + `}`, true, &wireBody{Raw: json.RawMessage(strings.Repeat("[", 31) + strings.Repeat("]", 31))}},
		{"scalar inside the deepest level", `{"raw":` + strings.Repeat("[", 31) + "1" + strings.Repeat("]", 31) + `}`, true, &wireBody{Raw: json.RawMessage(strings.Repeat("[", 31) + "1" + strings.Repeat("]", 31))}},
		{"depth over the limit", `{"raw":` + strings.Repeat("[", 32) + strings.Repeat("]", 32) + `}`, true, nil},
		{"float for an integer", `{"count":1.5}`, true, nil},
		{"string for an integer", `{"count":"1"}`, true, nil},
		{"exponent number", `{"raw":1e3}`, true, &wireBody{Raw: json.RawMessage(`1e3`)}},
		{"minus without digits", `{"raw":-}`, true, nil},
		{"trailing whitespace", "{}\r\n ", true, &wireBody{}},
		{"second value after whitespace", "{} {}", true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got wireBody
			ae := DecodeStrict([]byte(tt.body), &got, tt.unknownOK)
			if tt.want == nil {
				if ae == nil || ae.Code != "invalid_request" || !strings.HasPrefix(ae.Message, bodyErrPrefix) {
					t.Fatalf("%q: accepted as %+v (err %v)", tt.body, got, ae)
				}
				return
			}
			if ae != nil {
				t.Fatalf("%q: %v", tt.body, ae)
			}
			if diff := cmp.Diff(*tt.want, got); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tt.body, diff)
			}
		})
	}
	// A field of the wrong type names it.
	var b wireBody
	if ae := DecodeStrict([]byte(`{"amount":12}`), &b, true); ae == nil || ae.Field != "amount" {
		t.Errorf("wrong type: %v", ae)
	}
}
