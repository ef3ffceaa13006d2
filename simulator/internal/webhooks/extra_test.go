package webhooks

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestExtraKeepsTypes: the extra data fields of an event read back from the
// events table are the fields given, every value of the Go type it had.
func TestExtraKeepsTypes(t *testing.T) {
	t.Parallel()
	tests := []map[string]any{
		nil,
		{},
		{"s": "x", "b": true, "nil": nil, "f": 1.5, "big": 1e21, "i": 3, "i64": int64(-4), "n": json.Number("1.50")},
		{"a": []any{"x", 2.0, json.Number("3"), nil, []any{}, map[string]any{"k": false}}, "nila": []any(nil)},
		{"as": []string{"p", "q"}, "emptyas": []string{}, "nilas": []string(nil)},
		{"m": map[string]any{"deep": map[string]any{"x": int64(1)}}, "nilm": map[string]any(nil)},
		{"ms": map[string]string{"a": "b"}, "am": []map[string]any{{"x": 1.0}}, "ams": []map[string]string{{"y": "z"}}},
	}
	for _, extra := range tests {
		got := decodeExtra(encodeExtra(extra))
		if !reflect.DeepEqual(got, extra) {
			t.Errorf("read back %#v, want %#v", got, extra)
		}
	}
}
