package kernel

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// byPointer marshals only through its pointer.
type byPointer struct{ N int }

func (p *byPointer) MarshalJSON() ([]byte, error) { return []byte(`"pointer"`), nil }

func TestPointerMarshaler(t *testing.T) {
	t.Parallel()
	type (
		plain    struct{ A string }
		holds    struct{ In byPointer }
		inArray  struct{ In [2]byPointer }
		inSlice  struct{ In []byPointer }
		inPtr    struct{ In *byPointer }
		inMap    struct{ In map[string]byPointer }
		withTime struct{ At time.Time }
		withList struct{ L List[byPointer] }
	)
	cases := []struct {
		name string
		path string
		got  string
	}{
		{"plain", "", pointerMarshaler(reflect.TypeFor[plain]())},
		{"the type itself", "kernel.byPointer", pointerMarshaler(reflect.TypeFor[byPointer]())},
		{"a field", "kernel.holds.In", pointerMarshaler(reflect.TypeFor[holds]())},
		{"an array element", "kernel.inArray.In[]", pointerMarshaler(reflect.TypeFor[inArray]())},
		{"a slice element", "", pointerMarshaler(reflect.TypeFor[inSlice]())},
		{"behind a pointer", "", pointerMarshaler(reflect.TypeFor[inPtr]())},
		{"a map value", "", pointerMarshaler(reflect.TypeFor[inMap]())},
		{"a time", "", pointerMarshaler(reflect.TypeFor[withTime]())},
		{"a List (marshals itself)", "", pointerMarshaler(reflect.TypeFor[withList]())},
	}
	for _, c := range cases {
		if c.got != c.path {
			t.Errorf("%s: pointerMarshaler = %q, want %q", c.name, c.got, c.path)
		}
	}
}

// TestRowByPointerIsRowByValue checks the premise: for the kinds
// pointerMarshaler lets through, a row encodes the same by value and by
// pointer, and for the kind it refuses, it does not.
func TestRowByPointerIsRowByValue(t *testing.T) {
	t.Parallel()
	enc := func(v any) string {
		var b bytes.Buffer
		if err := json.NewEncoder(&b).Encode(v); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	type inSlice struct{ In []byPointer }
	type holds struct{ In byPointer }
	s := stateRow[string, inSlice]{"k", inSlice{[]byPointer{{1}}}}
	if a, b := enc(s), enc(&s); a != b {
		t.Errorf("a slice's element: by value %s, by pointer %s", a, b)
	}
	h := stateRow[string, holds]{"k", holds{byPointer{1}}}
	if a, b := enc(h), enc(&h); a == b {
		t.Errorf("a field by value: both %s; the refusal has no reason", a)
	}
}

func TestNewTableRefusesAPointerMarshaler(t *testing.T) {
	t.Parallel()
	type holds struct{ In byPointer }
	defer func() {
		if recover() == nil {
			t.Error("NewTable took a row type that marshals through a pointer method")
		}
	}()
	NewTable[string, holds](new(Kernel), "t")
}
