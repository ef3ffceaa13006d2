package control

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// The domains of the control arguments. Every field of a control op's
// input names one (dom:"name"), and Check checks every argument against its
// domain, in the transaction of the op and before its transition writes
// anything: a value outside its domain is refused with a *Refusal naming
// the argument and the domain (400 invalid_request over HTTP, or 404
// not_found for the id of an object that does not exist).

// Domain is the set of values a control argument may take. One of
// Choices, Object and OK says what is in it.
type Domain[X any] struct {
	// Name is how refusals and the document name the domain ("form factor",
	// "ISO 4217 currency code").
	Name string
	// Want says what the domain holds, for refusals: "an integer from 0 to
	// 2". Empty for a fixed set (the choices are listed) and an object.
	Want string
	// Choices is a fixed set, sorted; Norm, when set, is applied to a
	// value before it is looked up (trimmed, upper case).
	Choices func(x X) []string
	Norm    func(string) string
	// Object reports whether the id names an object of the kind: an unknown
	// one is not_found.
	Object func(x X, id string) bool
	// OK reports whether a value (string, int64, float64, bool, time.Time,
	// or map[string]any) is in the domain.
	OK func(x X, v any) bool
	// Legacy is the rule earlier builds applied to the argument (nil: the
	// same one), which the inputs of their recordings and data directories
	// replay under: AnyValue where they checked nothing.
	Legacy func(x X, v any) bool
	// Bad are values outside the domain, as JSON values (for the generated
	// test of every argument); a domain whose every JSON value of the
	// field's type is in it (a boolean, a time) has none.
	Bad []any
}

// AnyValue is the rule of a domain that holds every value.
func AnyValue[X any](X, any) bool { return true }

// OneOf is a fixed set of names; bad is a value outside it.
func OneOf[X any](name string, bad any, choices ...string) *Domain[X] {
	set := slices.Clone(choices)
	sort.Strings(set)
	return &Domain[X]{Name: name, Choices: func(X) []string { return set }, Bad: []any{bad}}
}

// Folded matches d's choices after trimming and upper-casing the value.
func Folded[X any](d *Domain[X]) *Domain[X] {
	d.Norm = func(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }
	return d
}

// Trimmed matches d's choices after trimming the value.
func Trimmed[X any](d *Domain[X]) *Domain[X] {
	d.Norm = strings.TrimSpace
	return d
}

// ObjectOf is the id of an object of a kind, looked up in the state.
func ObjectOf[X any](name string, has func(x X, id string) bool) *Domain[X] {
	return &Domain[X]{Name: name, Object: has, Bad: []any{"nonsense-0000", "crd_\x00", "x\ny"}}
}

// IntRange is an integer in [lo, hi].
func IntRange[X any](name string, lo, hi int64) *Domain[X] {
	return &Domain[X]{Name: name, Want: fmt.Sprintf("an integer from %d to %d", lo, hi),
		OK:  func(_ X, v any) bool { n, isInt := v.(int64); return isInt && n >= lo && n <= hi },
		Bad: []any{lo - 1, hi + 1}}
}

// TextOf is free text of at most max characters, without control
// characters, and not only space.
func TextOf[X any](name string, max int) *Domain[X] {
	return &Domain[X]{Name: name, Want: fmt.Sprintf("text of at most %d characters without control characters", max),
		OK:  func(_ X, v any) bool { s, _ := v.(string); return CleanText(s, max) },
		Bad: []any{"a\x00b", "a\nb", strings.Repeat("x", max+1)}}
}

// FormatOf is any other rule: want says what it holds, ok checks a value,
// bad are values outside it.
func FormatOf[X any](name, want string, ok func(x X, v any) bool, bad ...any) *Domain[X] {
	return &Domain[X]{Name: name, Want: want, OK: ok, Bad: bad}
}

// CleanText reports text of at most max characters (runes), valid UTF-8,
// without control characters, not only space.
func CleanText(s string, max int) bool {
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > max || strings.TrimSpace(s) == "" {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// ToFloat reads a number.
func ToFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// IsDecimal reports a decimal string (digits, at most one point), above 0
// when positive.
func IsDecimal(s string, positive bool) bool {
	s = strings.TrimSpace(s)
	if s == "" || strings.Count(s, ".") > 1 || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") {
		return false
	}
	nonZero := false
	for _, r := range s {
		switch {
		case r == '.':
		case r >= '0' && r <= '9':
			nonZero = nonZero || r != '0'
		default:
			return false
		}
	}
	return !positive || nonZero
}

// IsMinorUnits reports a non-negative integer string.
func IsMinorUnits(s string) bool {
	if s == "" || len(s) > 30 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// IsHTTPURL reports an absolute http or https URL.
func IsHTTPURL(s string) bool {
	if !CleanText(s, 2048) || strings.ContainsAny(s, " \t") {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// EventExtraOK reports extra data fields of an event: lower snake case
// names to scalars.
func EventExtraOK(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for k, e := range m {
		if !SnakeName(k) {
			return false
		}
		switch e.(type) {
		case string, bool, float64, json.Number, int, int64, nil:
		default:
			return false
		}
	}
	return true
}

// SnakeName reports a lower snake case name.
func SnakeName(s string) bool {
	if s == "" || len(s) > 64 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// Refusal is an argument outside its domain; the declaring package
// answers it as its own error type. Its fields are those of the public
// refusal: the domain's name (Kind), the value as given, the valid choices
// of a fixed set, NotFound for an unknown object id, the argument (Field)
// and what the domain holds (Want).
type Refusal struct {
	Kind, Name string
	Valid      []string
	NotFound   bool
	Field      string
	Want       string
}

// Error names the argument, the value and the domain.
func (e *Refusal) Error() string {
	return fmt.Sprintf("simulator: %s: %s %q outside its domain", e.Field, e.Kind, e.Name)
}

// Check checks every argument of in (a pointer to an op's input) against
// its domain: a *Refusal for a value outside it, an *api.Error
// (invalid_request) for a required argument missing. legacy: the input is
// a replayed one of an earlier build, checked under that build's rules
// (Domain.Legacy), where a missing body string was the line's to refuse.
func Check[X any](x X, legacy bool, fields []Field[X], in any) error {
	v := reflect.ValueOf(in).Elem()
	for i := range fields {
		f := &fields[i]
		if err := f.check(x, legacy, v.FieldByIndex(f.Index)); err != nil {
			return err
		}
	}
	return nil
}

// check checks one field's value.
func (f *Field[X]) check(x X, legacy bool, v reflect.Value) error {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return f.requiredOf(legacy, true)
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		if v.String() == "" {
			return f.requiredOf(legacy, false)
		}
		return f.value(x, legacy, f.Dom, v.String(), v.String())
	case reflect.Int, reflect.Int64, reflect.Int32:
		return f.value(x, legacy, f.Dom, v.Int(), strconv.FormatInt(v.Int(), 10))
	case reflect.Float64:
		return f.value(x, legacy, f.Dom, v.Float(), strconv.FormatFloat(v.Float(), 'g', -1, 64))
	case reflect.Bool:
		return f.value(x, legacy, f.Dom, v.Bool(), strconv.FormatBool(v.Bool()))
	case reflect.Slice:
		if v.IsNil() {
			return f.requiredOf(legacy, false)
		}
		if v.Type().Elem().Kind() == reflect.Uint8 { // []byte: a body
			return f.value(x, legacy, f.Dom, string(v.Bytes()), "")
		}
		for i := 0; i < v.Len(); i++ {
			if err := f.check(x, legacy, v.Index(i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		if v.IsNil() {
			return f.requiredOf(legacy, false)
		}
		if v.Type().Elem().Kind() == reflect.Interface {
			return f.value(x, legacy, f.Dom, v.Interface(), "")
		}
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for _, k := range keys {
			if f.Key != nil {
				if err := f.value(x, legacy, f.Key, k.String(), k.String()); err != nil {
					return err
				}
			}
			if err := f.check(x, legacy, v.MapIndex(k)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Struct:
		if t, ok := v.Interface().(time.Time); ok {
			return f.value(x, legacy, f.Dom, t, t.Format(time.RFC3339))
		}
	}
	panic(fmt.Sprintf("simulator: control argument %s has a type the checker does not know: %v", f.Name, v.Type()))
}

// requiredOf refuses a missing required argument; a string of an earlier
// build's input may be empty (its line refused it, or took it).
func (f *Field[X]) requiredOf(legacy, pointer bool) error {
	if legacy && !pointer && f.Where == "body" {
		return nil
	}
	if !f.Req {
		return nil
	}
	return api.InvalidRequest(f.Param() + " is required")
}

// value checks one value against d.
func (f *Field[X]) value(x X, legacy bool, d *Domain[X], v any, shown string) error {
	ne := &Refusal{Kind: d.Name, Name: shown, Field: f.Param(), Want: d.Want}
	if legacy && d.Legacy != nil {
		if d.Legacy(x, v) {
			return nil
		}
		return ne
	}
	switch {
	case d.Choices != nil:
		s, _ := v.(string)
		if d.Norm != nil {
			s = d.Norm(s)
		}
		valid := d.Choices(x)
		if slices.Contains(valid, s) {
			return nil
		}
		ne.Valid = valid
	case d.Object != nil:
		s, _ := v.(string)
		if CleanText(s, 256) && d.Object(x, s) {
			return nil
		}
		ne.NotFound, ne.Want = true, ""
	case d.OK != nil:
		if d.OK(x, v) {
			return nil
		}
	}
	return ne
}

// WithIDPrefix is id trimmed, with prefix added when it lacks it (the
// empty id stays empty): the id of an object that may be named with or
// without its REST prefix.
func WithIDPrefix(prefix, id string) string {
	id = strings.TrimSpace(id)
	if id == "" || strings.HasPrefix(id, prefix) {
		return id
	}
	return prefix + id
}
