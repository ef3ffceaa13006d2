package webhooks

import (
	"encoding/json"
	"strconv"
)

// The extra data fields of an event (Event.Extra) are kept in the events
// table as typed JSON: every value with the Go type it was given, so that
// the fields read back are the fields given (a delivery body renders
// them again, and the state image of earlier recordings holds them by
// type). A value is written as JSON null, a JSON string or boolean, or an
// object with one member naming its type:
//
//	float64 {"f":"1.5"}     int {"i":"3"}       int64 {"i64":"3"}   json.Number {"n":"1.50"}
//	[]any {"a":[...]}       []string {"as":[...]}
//	map[string]any {"m":{...}}  map[string]string {"ms":{...}}
//	[]map[string]any {"am":[...]}  []map[string]string {"ams":[...]}
//
// and any other value as its JSON ({"j":...}, read back as JSON gives it).

// encodeExtra is extra as typed JSON; "" for a nil map.
func encodeExtra(extra map[string]any) string {
	if extra == nil {
		return ""
	}
	b, err := json.Marshal(typed(extra))
	if err != nil {
		return ""
	}
	return string(b)
}

// decodeExtra reads what encodeExtra writes.
func decodeExtra(s string) map[string]any {
	if s == "" {
		return nil
	}
	var raw json.RawMessage = []byte(s)
	m, _ := untyped(raw).(map[string]any)
	return m
}

func typed(v any) any {
	switch x := v.(type) {
	case nil, string, bool:
		return x
	case float64:
		return map[string]string{"f": strconv.FormatFloat(x, 'g', -1, 64)}
	case int:
		return map[string]string{"i": strconv.Itoa(x)}
	case int64:
		return map[string]string{"i64": strconv.FormatInt(x, 10)}
	case json.Number:
		return map[string]string{"n": string(x)}
	case []any:
		if x == nil {
			return map[string]any{"a": nil}
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = typed(e)
		}
		return map[string]any{"a": out}
	case []string:
		return map[string]any{"as": x}
	case map[string]any:
		if x == nil {
			return map[string]any{"m": nil}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = typed(e)
		}
		return map[string]any{"m": out}
	case map[string]string:
		return map[string]any{"ms": x}
	case []map[string]any:
		if x == nil {
			return map[string]any{"am": nil}
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = typed(e)
		}
		return map[string]any{"am": out}
	case []map[string]string:
		return map[string]any{"ams": x}
	}
	b, _ := json.Marshal(v)
	return map[string]json.RawMessage{"j": b}
}

func untyped(raw json.RawMessage) any {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil
	}
	switch x := v.(type) {
	case nil, string, bool:
		return x
	}
	var tagged map[string]json.RawMessage
	if err := json.Unmarshal(raw, &tagged); err != nil || len(tagged) != 1 {
		return nil
	}
	for tag, body := range tagged {
		null := string(body) == "null"
		str := func() string { var s string; _ = json.Unmarshal(body, &s); return s }
		switch tag {
		case "f":
			f, _ := strconv.ParseFloat(str(), 64)
			return f
		case "i":
			n, _ := strconv.Atoi(str())
			return n
		case "i64":
			n, _ := strconv.ParseInt(str(), 10, 64)
			return n
		case "n":
			return json.Number(str())
		case "a":
			if null {
				return []any(nil)
			}
			var items []json.RawMessage
			_ = json.Unmarshal(body, &items)
			out := make([]any, len(items))
			for i, e := range items {
				out[i] = untyped(e)
			}
			return out
		case "as":
			var out []string
			_ = json.Unmarshal(body, &out)
			return out
		case "m":
			if null {
				return map[string]any(nil)
			}
			var fields map[string]json.RawMessage
			_ = json.Unmarshal(body, &fields)
			out := make(map[string]any, len(fields))
			for k, e := range fields {
				out[k] = untyped(e)
			}
			return out
		case "ms":
			var out map[string]string
			_ = json.Unmarshal(body, &out)
			return out
		case "am":
			if null {
				return []map[string]any(nil)
			}
			var items []json.RawMessage
			_ = json.Unmarshal(body, &items)
			out := make([]map[string]any, len(items))
			for i, e := range items {
				out[i], _ = untyped(e).(map[string]any)
			}
			return out
		case "ams":
			var out []map[string]string
			_ = json.Unmarshal(body, &out)
			return out
		case "j":
			var out any
			_ = json.Unmarshal(body, &out)
			return out
		}
	}
	return nil
}
