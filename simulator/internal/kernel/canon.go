package kernel

import (
	"encoding"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"reflect"
	"time"

	"github.com/mwallet/mwallet-go/money"
)

// The canonical encoding of keys and rows: every field by name, in the
// order of the row type, each value by its kind (times as UTC instants,
// amounts as their text). Equal rows have equal encodings whatever their
// history, so it is what verify mode hashes (and what a state written by
// name will be made of).

var (
	timeType   = reflect.TypeFor[time.Time]()
	amountType = reflect.TypeFor[money.Amount]()
)

// canonicalAppender is a type that writes its own canonical encoding
// (List).
type canonicalAppender interface{ appendCanonical(b []byte) []byte }

// listType is List, whose elements CheckRow checks.
type listType interface{ elemType() reflect.Type }

var (
	canonicalAppenderType = reflect.TypeFor[canonicalAppender]()
	listTypeType          = reflect.TypeFor[listType]()
)

func appendUvarint(b []byte, x uint64) []byte { return binary.AppendUvarint(b, x) }

// AppendCanonical appends the canonical encoding of v, a key or a row.
func AppendCanonical(b []byte, v any) []byte { return appendValue(b, reflect.ValueOf(v)) }

func appendValue(b []byte, v reflect.Value) []byte {
	t := v.Type()
	switch {
	case t == timeType:
		tm := v.Interface().(time.Time)
		if tm.IsZero() {
			return append(b, 0)
		}
		b = append(b, 1)
		b = binary.AppendVarint(b, tm.Unix())
		return appendUvarint(b, uint64(tm.Nanosecond()))
	case t == amountType:
		txt, _ := v.Interface().(encoding.TextMarshaler).MarshalText()
		b = appendUvarint(b, uint64(len(txt)))
		return append(b, txt...)
	case t.Implements(canonicalAppenderType):
		return v.Interface().(canonicalAppender).appendCanonical(b)
	}
	switch t.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return append(b, 1)
		}
		return append(b, 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(b, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return appendUvarint(b, v.Uint())
	case reflect.Float32, reflect.Float64:
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float()))
	case reflect.String:
		b = appendUvarint(b, uint64(v.Len()))
		return append(b, v.String()...)
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			b = appendValue(b, v.Index(i))
		}
		return b
	case reflect.Struct:
		b = appendUvarint(b, uint64(t.NumField()))
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			b = appendUvarint(b, uint64(len(f.Name)))
			b = append(b, f.Name...)
			b = appendValue(b, v.Field(i))
		}
		return b
	}
	panic(fmt.Sprintf("kernel: a row holds a %s, which is not a value (CheckRow)", t))
}

// sum is a checksum of a set of rows: the sum of their hashes, so a write
// changes it in constant time and the order rows were written in does not
// matter.
type sum struct{ a, b uint64 }

func (s *sum) add(h [2]uint64) { s.a += h[0]; s.b += h[1] }
func (s *sum) sub(h [2]uint64) { s.a -= h[0]; s.b -= h[1] }

// rowHash is the hash of a row and its key.
func rowHash[K any, V any](k K, v V) [2]uint64 {
	b := appendValue(nil, reflect.ValueOf(k))
	b = appendValue(b, reflect.ValueOf(v))
	h := fnv.New128a()
	h.Write(b)
	var out [16]byte
	h.Sum(out[:0])
	return [2]uint64{binary.LittleEndian.Uint64(out[:8]), binary.LittleEndian.Uint64(out[8:])}
}

// CheckRow reports why t cannot be the type of a table's keys or rows, or
// nil: a row is a value that nothing outside the table can change, written
// by name. Allowed are booleans, numbers, strings, arrays of allowed
// types, structs whose fields are all exported and of allowed types,
// time.Time and money.Amount (immutable values), and List of an allowed
// type. Pointers, maps, slices, interfaces, channels and functions are
// refused: through them a copy would share what it holds with the row.
func CheckRow(t reflect.Type) error {
	return checkRow(t, t.String())
}

func checkRow(t reflect.Type, at string) error {
	switch {
	case t == timeType, t == amountType:
		return nil
	case t.Implements(listTypeType):
		return checkRow(reflect.Zero(t).Interface().(listType).elemType(), at+"[]")
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.String:
		return nil
	case reflect.Array:
		return checkRow(t.Elem(), at+"[]")
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				return fmt.Errorf("%s.%s: field not exported (rows are written by name)", at, f.Name)
			}
			if err := checkRow(f.Type, at+"."+f.Name); err != nil {
				return err
			}
		}
		return nil
	}
	return errors.New(at + ": a " + t.Kind().String() + " (" + t.String() + ") is not a value: use a List, a key into another table, or values")
}
