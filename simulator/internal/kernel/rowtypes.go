package kernel

import (
	"encoding"
	"encoding/json"
	"reflect"
	"sync"
)

// A table's rows are written by pointer to one row value (WriteState),
// so that a row is not copied to the heap to be encoded. encoding/json
// calls a MarshalJSON or MarshalText method with a pointer receiver only
// on an addressable value, which a row written by pointer is and a row
// written by value is not: a row type holding such a type would be
// written differently by the two. NewTable refuses one, so the state's
// bytes do not depend on how a row is handed to the encoder.

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	// pointerOnly caches pointerMarshaler's answer per type.
	pointerOnly sync.Map // reflect.Type -> string
)

// pointerMarshaler returns the path, within t, of a type that marshals
// only through a pointer method where a row written by value would not
// reach it (a field or an array element held by value), or "".
func pointerMarshaler(t reflect.Type) string {
	if p, ok := pointerOnly.Load(t); ok {
		return p.(string)
	}
	p := walkPointerMarshaler(t, t.String(), map[reflect.Type]bool{})
	pointerOnly.Store(t, p)
	return p
}

func walkPointerMarshaler(t reflect.Type, at string, seen map[reflect.Type]bool) string {
	if seen[t] {
		return ""
	}
	seen[t] = true
	for _, m := range []reflect.Type{jsonMarshaler, textMarshaler} {
		if t.Implements(m) {
			// Marshals itself by value: the encoder does not look inside.
			return ""
		}
		if t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(m) {
			return at
		}
	}
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			if p := walkPointerMarshaler(f.Type, at+"."+f.Name, seen); p != "" {
				return p
			}
		}
	case reflect.Array:
		return walkPointerMarshaler(t.Elem(), at+"[]", seen)
	}
	// What a pointer or a slice holds is addressable either way, and a
	// map's values never are: the same bytes by value or by pointer.
	return ""
}
