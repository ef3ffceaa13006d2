package kernel

import (
	"bytes"
	"encoding/json"
	"iter"
	"reflect"
	"slices"
	"sort"
)

// List is an immutable slice, for the rows of tables: a row that holds a
// List is still a value, since nothing can change the elements it shares
// with its copies. Append and Set return a new List; the zero List is
// empty.
type List[T any] struct{ s []T }

// ListOf returns a List of a copy of v.
func ListOf[T any](v ...T) List[T] {
	if len(v) == 0 {
		return List[T]{}
	}
	return List[T]{s: slices.Clip(slices.Clone(v))}
}

// SortedSet returns the sorted List of the keys set (true) in m.
func SortedSet(m map[string]bool) List[string] {
	out := make([]string, 0, len(m))
	for k, ok := range m {
		if ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return ListOf(out...)
}

// Len is the number of elements.
func (l List[T]) Len() int { return len(l.s) }

// At returns element i.
func (l List[T]) At(i int) T { return l.s[i] }

// Last returns the last element, if any.
func (l List[T]) Last() (T, bool) {
	if len(l.s) == 0 {
		var zero T
		return zero, false
	}
	return l.s[len(l.s)-1], true
}

// All yields the elements with their positions.
func (l List[T]) All() iter.Seq2[int, T] { return slices.All(l.s) }

// Values yields the elements.
func (l List[T]) Values() iter.Seq[T] { return slices.Values(l.s) }

// Slice returns a copy of the elements (nil when there is none).
func (l List[T]) Slice() []T {
	if len(l.s) == 0 {
		return nil
	}
	return slices.Clone(l.s)
}

// Append returns the List with v added at the end.
func (l List[T]) Append(v ...T) List[T] {
	if len(v) == 0 {
		return l
	}
	// l.s is clipped: append copies it.
	return List[T]{s: slices.Clip(append(l.s[:len(l.s):len(l.s)], v...))}
}

// Set returns the List with element i replaced by v.
func (l List[T]) Set(i int, v T) List[T] {
	s := slices.Clone(l.s)
	s[i] = v
	return List[T]{s: slices.Clip(s)}
}

// From returns the List of the elements from position i on.
func (l List[T]) From(i int) List[T] {
	if i >= len(l.s) {
		return List[T]{}
	}
	return List[T]{s: l.s[i:]}
}

// Index returns the position of the first element f reports true for, or
// -1.
func (l List[T]) Index(f func(T) bool) int { return slices.IndexFunc(l.s, f) }

// Equal reports whether l and o hold equal elements (reflect.DeepEqual),
// for comparisons (go-cmp uses it).
func (l List[T]) Equal(o List[T]) bool {
	if len(l.s) != len(o.s) {
		return false
	}
	return len(l.s) == 0 || reflect.DeepEqual(l.s, o.s)
}

// MarshalJSON writes the List as a JSON array ([] when empty).
func (l List[T]) MarshalJSON() ([]byte, error) {
	if l.s == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(l.s)
}

// UnmarshalJSON reads a JSON array, refusing a field its elements do not
// have (as a state written by name is read, state.go).
func (l *List[T]) UnmarshalJSON(b []byte) error {
	var s []T
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		return err
	}
	*l = ListOf(s...)
	return nil
}

// elemType marks List for CheckRow: its elements are checked in its
// place.
func (List[T]) elemType() reflect.Type { return reflect.TypeFor[T]() }

// appendCanonical appends the canonical encoding of the List.
func (l List[T]) appendCanonical(b []byte) []byte {
	b = appendUvarint(b, uint64(len(l.s)))
	for _, v := range l.s {
		b = appendValue(b, reflect.ValueOf(v))
	}
	return b
}
