package api

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// The wire format of request bodies, business API and control API alike
// (Common conventions 1 of the specification: JSON, lower snake case field
// names). Every body goes through DecodeStrict, which accepts exactly:
//
//   - an empty body (or only whitespace), read as {};
//   - otherwise one JSON object (RFC 8259 grammar), in valid UTF-8, with no
//     escaped lone surrogate, no duplicate key in any object, nesting at most
//     maxBodyDepth deep, and nothing but whitespace after it;
//   - whose keys, at every level that decodes into a Go struct, are field
//     names in lower snake case ([a-z][a-z0-9_]*): "AMOUNT" or "Amount" is
//     refused, never matched to amount (encoding/json alone would match it,
//     case-insensitively);
//   - whose keys name fields the Endpoint knows, or, on the business API
//     only, are ignored: the specification ignores what it does not use (a
//     corridor sent to POST /v1/remittances, unknown payer keys, unknown
//     scope keys), so an extra field behaves as the service treats it. The
//     control API is the simulator's own and refuses unknown fields, so a
//     misspelt set-up field fails loudly instead of taking its default;
//   - whose values have the JSON types the fields need (a number where a
//     string is required is refused, and so on).
//
// Anything else is 400 invalid_request naming the problem, and the request
// changes nothing. Objects decoded into maps (balances, payer, extra) keep
// their own rules: the keys are data, not field names.

// bodyErrPrefix starts the message of every wire-format refusal.
const bodyErrPrefix = "request body: "

// maxBodyDepth bounds the nesting of a request body.
const maxBodyDepth = 32

// Unknown-field policies of DecodeStrict.
const (
	IgnoreUnknown = true  // business API
	RefuseUnknown = false // control API
)

// DecodeStrict decodes body into v under the rules above; allowUnknown
// ignores well-named fields v does not have (IgnoreUnknown) instead of
// refusing them (RefuseUnknown). v must be a pointer. The error is an
// *Error (invalid_request); for a value of the wrong JSON type its field
// is set to the field's name.
func DecodeStrict(body []byte, v any, allowUnknown bool) *Error {
	b := bytes.TrimLeft(body, " \t\r\n")
	if len(b) == 0 {
		b = []byte("{}")
	}
	if !utf8.Valid(b) {
		return InvalidRequest(bodyErrPrefix + "not valid UTF-8")
	}
	p := &wireScanner{b: b, allowUnknown: allowUnknown}
	p.skipSpace()
	if p.i >= len(p.b) || p.b[p.i] != '{' {
		return InvalidRequest(bodyErrPrefix + "must be one JSON object")
	}
	if err := p.value(reflect.TypeOf(v), 0, ""); err != nil {
		return InvalidRequest(bodyErrPrefix + err.Error())
	}
	p.skipSpace()
	if p.i != len(p.b) {
		return InvalidRequest(fmt.Sprintf(bodyErrPrefix+"data after the JSON object at byte %d", p.i))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if !allowUnknown {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			ae := InvalidRequest(fmt.Sprintf(bodyErrPrefix+"field %s: JSON %s where %s is required", te.Field, te.Value, jsonKind(te.Type)))
			ae.Field = te.Field
			return ae
		}
		return InvalidRequest(bodyErrPrefix + err.Error())
	}
	return nil
}

// jsonKind names the JSON type a Go type is decoded from, for messages.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another type"
}

// wireScanner validates the JSON text and the key sets against the Go type
// the text decodes into.
type wireScanner struct {
	b            []byte
	i            int
	allowUnknown bool
}

func (p *wireScanner) skipSpace() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

func (p *wireScanner) errf(format string, args ...any) error {
	return fmt.Errorf("byte %d: "+format, append([]any{p.i}, args...)...)
}

// value scans one JSON value decoded into t (nil: anything) at nesting depth.
// path names the value for messages ("" for the body itself).
func (p *wireScanner) value(t reflect.Type, depth int, path string) error {
	p.skipSpace()
	if p.i >= len(p.b) {
		return p.errf("unexpected end of JSON")
	}
	if c := p.b[p.i]; (c == '{' || c == '[') && depth >= maxBodyDepth { // the body object is level 1, at depth 0
		return p.errf("nesting deeper than %d levels", maxBodyDepth)
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(t, depth, path)
	case c == '[':
		return p.array(t, depth, path)
	case c == '"':
		_, err := p.str()
		return err
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return p.errf("invalid character %q", rune(c))
	}
}

func (p *wireScanner) object(t reflect.Type, depth int, path string) error {
	p.i++ // {
	fields, isStruct := structFields(t)
	var elem reflect.Type
	if t2 := deref(t); t2 != nil && t2.Kind() == reflect.Map && !isLeaf(t) {
		elem = t2.Elem()
	}
	seen := map[string]bool{}
	p.skipSpace()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return nil
	}
	for {
		p.skipSpace()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return p.errf("object key expected")
		}
		key, err := p.str()
		if err != nil {
			return err
		}
		name := key
		if path != "" {
			name = path + "." + key
		}
		if seen[key] {
			return fmt.Errorf("duplicate key %q", name)
		}
		seen[key] = true
		var ft reflect.Type
		if isStruct {
			f, ok := fields[key]
			switch {
			case !snakeCase(key):
				return badFieldName(name, key, fields)
			case ok:
				ft = f
			case foldsToField(key, fields):
				// encoding/json would take it for that field.
				return badFieldName(name, key, fields)
			case !p.allowUnknown:
				return fmt.Errorf("unknown field %q", name)
			}
		} else {
			ft = elem
		}
		p.skipSpace()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return p.errf("':' expected after object key")
		}
		p.i++
		if err := p.value(ft, depth+1, name); err != nil {
			return err
		}
		p.skipSpace()
		if p.i >= len(p.b) {
			return p.errf("unexpected end of JSON in object")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return nil
		default:
			return p.errf("',' or '}' expected in object")
		}
	}
}

// snakeCase reports a lower snake case field name: [a-z][a-z0-9_]*.
func snakeCase(k string) bool {
	if k == "" || k[0] < 'a' || k[0] > 'z' {
		return false
	}
	for i := 1; i < len(k); i++ {
		if c := k[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// foldsToField reports a key equal to a field name but for case.
func foldsToField(key string, fields map[string]reflect.Type) bool {
	for k := range fields {
		if strings.EqualFold(k, key) {
			return true
		}
	}
	return false
}

// badFieldName is the error for a key that is not in lower snake case; a
// key that differs from a known field only in case says so.
func badFieldName(name, key string, fields map[string]reflect.Type) error {
	for k := range fields {
		if strings.EqualFold(k, key) {
			return fmt.Errorf("field name %q is not the field %q (names are lower snake case and case-sensitive)", name, k)
		}
	}
	return fmt.Errorf("field name %q is not lower snake case", name)
}

func (p *wireScanner) array(t reflect.Type, depth int, path string) error {
	p.i++ // [
	var elem reflect.Type
	if t2 := deref(t); t2 != nil && (t2.Kind() == reflect.Slice || t2.Kind() == reflect.Array) && !isLeaf(t) {
		elem = t2.Elem()
	}
	p.skipSpace()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return nil
	}
	for n := 0; ; n++ {
		if err := p.value(elem, depth+1, fmt.Sprintf("%s[%d]", path, n)); err != nil {
			return err
		}
		p.skipSpace()
		if p.i >= len(p.b) {
			return p.errf("unexpected end of JSON in array")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return nil
		default:
			return p.errf("',' or ']' expected in array")
		}
	}
}

func (p *wireScanner) literal(lit string) error {
	if !bytes.HasPrefix(p.b[p.i:], []byte(lit)) {
		return p.errf("invalid literal")
	}
	p.i += len(lit)
	return nil
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (p *wireScanner) number() error {
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.b[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.b) && p.b[p.i] == '0':
		p.i++
	case digits() == 0:
		return p.errf("invalid number")
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return p.errf("invalid number")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return p.errf("invalid number")
		}
	}
	return nil
}

// str scans a string and returns its value. Control characters must be
// escaped, escapes must be valid, and a \u escape of a UTF-16 surrogate must
// be one half of a pair.
func (p *wireScanner) str() (string, error) {
	p.i++ // opening quote
	var sb strings.Builder
	for {
		if p.i >= len(p.b) {
			return "", p.errf("unterminated string")
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return sb.String(), nil
		case c < 0x20:
			return "", p.errf("control character in string")
		case c == '\\':
			if p.i+1 >= len(p.b) {
				return "", p.errf("unterminated escape")
			}
			e := p.b[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				sb.WriteByte(e)
			case 'b':
				sb.WriteByte('\b')
			case 'f':
				sb.WriteByte('\f')
			case 'n':
				sb.WriteByte('\n')
			case 'r':
				sb.WriteByte('\r')
			case 't':
				sb.WriteByte('\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", p.errf("invalid \\u escape")
				}
				if utf16.IsSurrogate(r) {
					if r >= 0xdc00 || !bytes.HasPrefix(p.b[p.i:], []byte(`\u`)) {
						return "", p.errf("unpaired UTF-16 surrogate in \\u escape")
					}
					p.i += 2
					r2, ok := p.hex4()
					if !ok || r2 < 0xdc00 || r2 > 0xdfff {
						return "", p.errf("unpaired UTF-16 surrogate in \\u escape")
					}
					r = utf16.DecodeRune(r, r2)
				}
				sb.WriteRune(r)
			default:
				return "", p.errf("invalid escape \\%c", e)
			}
		default:
			sb.WriteByte(c)
			p.i++
		}
	}
}

func (p *wireScanner) hex4() (rune, bool) {
	if p.i+4 > len(p.b) {
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.i : p.i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	p.i += 4
	return r, true
}

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
)

// isLeaf reports types whose JSON the scanner does not look inside: custom
// unmarshalers, raw messages and interfaces (their nested objects still
// follow the grammar, UTF-8 and duplicate-key rules).
func isLeaf(t reflect.Type) bool {
	if t == nil {
		return true
	}
	d := deref(t)
	if d == rawMessageType || d.Kind() == reflect.Interface {
		return true
	}
	pt := reflect.PointerTo(d)
	return pt.Implements(jsonUnmarshalerType) || pt.Implements(textUnmarshalerType) && d.Kind() != reflect.String
}

var fieldCache sync.Map // reflect.Type -> map[string]reflect.Type

// structFields returns the JSON field names of t's struct (through
// pointers), as encoding/json sees them, with each field's type.
func structFields(t reflect.Type) (map[string]reflect.Type, bool) {
	if isLeaf(t) {
		return nil, false
	}
	t = deref(t)
	if t.Kind() != reflect.Struct {
		return nil, false
	}
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]reflect.Type), true
	}
	m := map[string]reflect.Type{}
	collectFields(t, m)
	fieldCache.Store(t, m)
	return m, true
}

func collectFields(t reflect.Type, m map[string]reflect.Type) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			if et := deref(f.Type); et.Kind() == reflect.Struct {
				collectFields(et, m)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := m[name]; !dup {
			m[name] = f.Type
		}
	}
}
