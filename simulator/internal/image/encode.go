// Package image writes the state image: the state of a simulator as the
// bytes its digest is the SHA-256 of (Sum). It is written by walking a
// value with reflection, every field of every object reached; the value is
// the projection of the state that recordings of versions 1 and 2 carry the
// digest of (the simulator builds it from the kernel's tables; the plain
// records of the projection are declared here, legacy.go). What is not
// state is left out by rule (Rules):
//
//   - locks (package sync), and fields tagged image:"-";
//   - functions and channels: a field of one that is set and not known to
//     be built by New (Rules.Built) makes the image fail, so that state
//     held in a closure is found by the tests instead of lost.
//
// Pointers keep their identity (an object reached twice is written once),
// maps are written in the order of their encoded keys and times as UTC
// instants, so two simulators in the same state have the same image.
// Values of other packages are written by their binary or text marshalers
// when they have them (money.Amount, apd.Decimal, rand.PCG), by their
// fields otherwise.
//
// Types of the simulator's packages (the simulator, this one, the kernel
// and the product lines under internal/) are walked by their fields; the
// image names them as the builds of those versions did (names.go).
//
// The walk reads exported fields only, by reflect alone, without unsafe:
// a struct type with an unexported field that is state is refused, naming
// the field. A data directory's snapshot is not this image: it is the
// state by name (kernel.WriteState).
package image

import (
	"bytes"
	"encoding"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Rules say what of a value the image leaves out and which types of the
// simulator the projection's types stand for. The zero Rules leave out
// only what the image always leaves out (locks, fields tagged image:"-").
// A Rules caches what it learns of each type: use one per projection.
type Rules struct {
	// Skip names the fields that are not state ("Type.field").
	Skip map[string]bool
	// Built names the function and channel fields that New sets or that
	// only the Go API sets: left out of the image without complaint.
	Built map[string]bool
	// Facade is a type whose exported fields are the public API, not
	// state (the simulator's *Simulator): they are left out.
	Facade reflect.Type
	// StandIns are types of the projection that stand for a type the
	// naming rule cannot give (names.go): the image names each, and its
	// fields, as the type it stands for.
	StandIns map[reflect.Type]reflect.Type

	infos sync.Map // reflect.Type -> *typeInfo
}

// Interfaces are the types an interface value of the state may hold, by
// their name, which the image writes before the value.
var Interfaces = func() map[string]reflect.Type {
	m := map[string]reflect.Type{}
	for _, v := range []any{
		"", false, int(0), int64(0), float64(0), json.Number(""), []any{}, []string{}, map[string]any{},
		map[string]string{}, []map[string]string{}, []map[string]any{}, &rand.PCG{}, &rand.ChaCha8{},
	} {
		t := reflect.TypeOf(v)
		m[t.String()] = t
	}
	return m
}()

var (
	timeType              = reflect.TypeOf(time.Time{})
	binaryMarshalerType   = reflect.TypeOf((*encoding.BinaryMarshaler)(nil)).Elem()
	binaryUnmarshalerType = reflect.TypeOf((*encoding.BinaryUnmarshaler)(nil)).Elem()
	textUnmarshalerType   = reflect.TypeFor[encoding.TextUnmarshaler]()
	textMarshalerType     = reflect.TypeOf((*encoding.TextMarshaler)(nil)).Elem()
)

// codec is how values of a type are written.
type codec int

const (
	codecFields codec = iota // by kind: the fields of a struct, the elements of a slice, ...
	codecTime                // time.Time as a UTC instant
	codecBinary              // MarshalBinary / UnmarshalBinary
	codecText                // MarshalText / UnmarshalText
)

// field is one field of a struct type as the image sees it.
type field struct {
	index int
	name  string        // "Type.field"
	step  func() string // ".field", for paths
	typ   reflect.Type
	skip  bool
	// must be nil: a function or channel field that New does not set
	// (Rules.Built): the image fails when it holds one.
	mustBeNil bool
}

type typeInfo struct {
	codec  codec
	fields []field
	// private, when set, says why the image refuses a struct type: a
	// field that is state is not exported.
	private string
}

// info returns what the image knows of the type t.
func (r *Rules) info(t reflect.Type) *typeInfo {
	if ti, ok := r.infos.Load(t); ok {
		return ti.(*typeInfo)
	}
	ti := &typeInfo{codec: codecOf(t)}
	if ti.codec == codecFields && t.Kind() == reflect.Struct {
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			fieldName := r.FieldName(t, sf)
			name := r.TypeName(t) + "." + fieldName
			step := "." + fieldName
			f := field{index: i, name: name, typ: sf.Type, step: func() string { return step }}
			switch {
			case r.Skip[name], r.Facade != nil && t == r.Facade && sf.IsExported(), sf.Tag.Get("image") == "-":
				f.skip = true
			case isSyncType(sf.Type):
				f.skip = true
			case sf.Type.Kind() == reflect.Func || sf.Type.Kind() == reflect.Chan:
				f.skip, f.mustBeNil = true, !r.Built[name]
			}
			if !f.skip && !sf.IsExported() && ti.private == "" {
				ti.private = fmt.Sprintf("%s (%s.%s) is not exported: the image reads exported fields only (export it, or tag it image:\"-\" if it is no state)", name, t, sf.Name)
			}
			ti.fields = append(ti.fields, f)
		}
	}
	v, _ := r.infos.LoadOrStore(t, ti)
	return v.(*typeInfo)
}

// Field is a field of a struct type as the image sees it.
type Field struct {
	Name string // "Type.field", as the image names it
	Type reflect.Type
	Skip bool // not state: left out
}

// Fields returns the fields of the struct type t as the image sees them,
// in their order.
func (r *Rules) Fields(t reflect.Type) []Field {
	var out []Field
	for _, f := range r.info(t).fields {
		out = append(out, Field{Name: f.name, Type: f.typ, Skip: f.skip})
	}
	return out
}

// ByFields reports whether the image writes values of t by their fields
// (or elements), not by a marshaler or as a time.
func (r *Rules) ByFields(t reflect.Type) bool { return r.info(t).codec == codecFields }

// Refused says why the image refuses the struct type t (a field that is
// state is not exported), or is "".
func (r *Rules) Refused(t reflect.Type) string { return r.info(t).private }

func isSyncType(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	p := t.PkgPath()
	return p == "sync" || p == "sync/atomic"
}

func codecOf(t reflect.Type) codec {
	if t == timeType {
		return codecTime
	}
	if ownType(t) || t.PkgPath() == "" || t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface {
		return codecFields
	}
	pt := reflect.PointerTo(t)
	if pt.Implements(binaryMarshalerType) && pt.Implements(binaryUnmarshalerType) {
		return codecBinary
	}
	if pt.Implements(textMarshalerType) && pt.Implements(textUnmarshalerType) {
		return codecText
	}
	return codecFields
}

// addressable returns v, or an addressable copy of it.
func addressable(v reflect.Value) reflect.Value {
	if v.CanAddr() {
		return v
	}
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	return c
}

type ptrKey struct {
	p uintptr
	t reflect.Type
}

// imgEnc writes an image.
type imgEnc struct {
	rules *Rules
	b     []byte
	ptrs  map[ptrKey]uint64
	next  uint64
	path  []string
	noPt  bool // map keys: pointers are refused
	// lines, when set, receives one "path = value" line per value written
	// (Dump).
	lines *[]string
	types map[reflect.Type]*typeInfo
	// leave names fields left out of this image beyond Rules.Skip (the
	// state digest leaves out the clock reading).
	leave map[string]bool
	// keyEncs are the encoders of map keys not in use, kept with their
	// buffers for the next map.
	keyEncs []*imgEnc
}

// line adds a line to a dump (when e.lines is set). A call's arguments
// are made (a time formatted, a value boxed) whether it writes a line or
// not: a call with arguments checks e.lines first.
func (e *imgEnc) line(format string, args ...any) {
	if e.lines != nil {
		*e.lines = append(*e.lines, strings.Join(e.path, "")+" = "+fmt.Sprintf(format, args...))
	}
}

func (e *imgEnc) uvarint(x uint64) { e.b = binary.AppendUvarint(e.b, x) }
func (e *imgEnc) varint(x int64)   { e.b = binary.AppendVarint(e.b, x) }
func (e *imgEnc) bytes(p []byte)   { e.uvarint(uint64(len(p))); e.b = append(e.b, p...) }

// Error is a value the image cannot keep; at is where, built on the way
// out of the walk.
type Error struct {
	at  []string
	msg string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("Simulator")
	for i := len(e.at) - 1; i >= 0; i-- {
		b.WriteString(e.at[i])
	}
	return "simulator: state image: " + b.String() + ": " + e.msg
}

// at adds a step of the path to an Error.
func at(err error, step func() string) error {
	if ie, ok := err.(*Error); ok {
		ie.at = append(ie.at, step())
	}
	return err
}

func (e *imgEnc) fail(format string, args ...any) error {
	return &Error{msg: fmt.Sprintf(format, args...)}
}

// push and pop keep the path of the value being written, for the lines
// of a dump only.
func (e *imgEnc) push(step func() string) {
	if e.lines != nil {
		e.path = append(e.path, step())
	}
}

func (e *imgEnc) pop() {
	if e.lines != nil {
		e.path = e.path[:len(e.path)-1]
	}
}

// info returns the typeInfo of t from the encoder's own cache.
func (e *imgEnc) info(t reflect.Type) *typeInfo { return e.rules.cachedInfo(&e.types, t) }

// cachedInfo returns the typeInfo of t from the cache *m of one walk
// (made when first needed): a plain map, cheaper than the shared sync.Map
// of info for the lookup every value makes.
func (r *Rules) cachedInfo(m *map[reflect.Type]*typeInfo, t reflect.Type) *typeInfo {
	if ti, ok := (*m)[t]; ok {
		return ti
	}
	ti := r.info(t)
	if *m == nil {
		*m = map[reflect.Type]*typeInfo{}
	}
	(*m)[t] = ti
	return ti
}

func (e *imgEnc) value(v reflect.Value) error {
	t := v.Type()
	ti := e.info(t)
	switch ti.codec {
	case codecTime:
		// Through a pointer when v is addressable: the time is not
		// copied to the heap.
		var tm time.Time
		if v.CanAddr() {
			tm = *v.Addr().Interface().(*time.Time)
		} else {
			tm = v.Interface().(time.Time)
		}
		if e.lines != nil {
			e.line("%s", tm.UTC().Format(time.RFC3339Nano))
		}
		if tm.IsZero() {
			e.uvarint(0)
			return nil
		}
		e.uvarint(1)
		e.varint(tm.Unix())
		e.uvarint(uint64(tm.Nanosecond()))
		return nil
	case codecBinary, codecText:
		// Marshaled in place when v is addressable (a pointer in an
		// interface is not allocated).
		p := addressable(v).Addr()
		var b []byte
		var err error
		if ti.codec == codecBinary {
			b, err = p.Interface().(encoding.BinaryMarshaler).MarshalBinary()
		} else {
			b, err = p.Interface().(encoding.TextMarshaler).MarshalText()
		}
		if err != nil {
			return e.fail("%v", err)
		}
		if e.lines != nil {
			e.line("%q", b)
		}
		e.bytes(b)
		return nil
	}
	if e.lines != nil {
		switch t.Kind() {
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
			reflect.Float32, reflect.Float64:
			e.line("%v", v)
		case reflect.String:
			e.line("%q", v.String())
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		if v.Bool() {
			e.b = append(e.b, 1)
		} else {
			e.b = append(e.b, 0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.varint(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.uvarint(v.Uint())
	case reflect.Float32, reflect.Float64:
		e.uvarint(math.Float64bits(v.Float()))
	case reflect.String:
		e.uvarint(uint64(v.Len()))
		e.b = append(e.b, v.String()...)
	case reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			a := addressable(v)
			if e.lines != nil {
				e.line("%x", a.Slice(0, a.Len()).Bytes())
			}
			e.b = append(e.b, a.Slice(0, a.Len()).Bytes()...)
			return nil
		}
		for i := 0; i < v.Len(); i++ {
			if err := e.value(v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if v.IsNil() {
			e.line("nil")
			e.uvarint(0)
			return nil
		}
		e.uvarint(uint64(v.Len()) + 1)
		if t.Elem().Kind() == reflect.Uint8 {
			if e.lines != nil {
				e.line("%q", v.Bytes())
			}
			e.b = append(e.b, v.Bytes()...)
			return nil
		}
		if e.lines != nil {
			e.line("len %d", v.Len())
		}
		for i := 0; i < v.Len(); i++ {
			e.push(func() string { return "[" + strconv.Itoa(i) + "]" })
			err := e.value(v.Index(i))
			e.pop()
			if err != nil {
				return at(err, func() string { return "[" + strconv.Itoa(i) + "]" })
			}
		}
	case reflect.Map:
		return e.mapValue(v)
	case reflect.Pointer:
		if v.IsNil() {
			e.line("nil")
			e.uvarint(0)
			return nil
		}
		if e.noPt {
			return e.fail("a map key holds a pointer")
		}
		k := ptrKey{v.Pointer(), t}
		if id, ok := e.ptrs[k]; ok {
			if e.lines != nil {
				e.line("ref #%d", id)
			}
			e.uvarint(1)
			e.uvarint(id)
			return nil
		}
		if e.lines != nil {
			e.line("#%d", e.next)
		}
		e.ptrs[k] = e.next
		e.next++
		e.uvarint(2)
		return e.value(v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			e.line("nil")
			e.uvarint(0)
			return nil
		}
		c := v.Elem()
		name := c.Type().String()
		if Interfaces[name] != c.Type() {
			return e.fail("an interface holds a %s, which the image does not know (add it to Interfaces)", name)
		}
		e.uvarint(1)
		e.uvarint(uint64(len(name)))
		e.b = append(e.b, name...)
		return e.value(c)
	case reflect.Struct:
		if ti.private != "" {
			return e.fail("%s", ti.private)
		}
		for _, f := range ti.fields {
			if f.skip || e.leave[f.name] {
				if f.mustBeNil && !v.Field(f.index).IsNil() {
					return at(e.fail("%s holds a %s, which cannot be kept (make it data, or list it in Rules.Skip or Rules.Built)", f.name, f.typ), f.step)
				}
				continue
			}
			fv := v.Field(f.index)
			e.push(f.step)
			err := e.value(fv)
			e.pop()
			if err != nil {
				return at(err, f.step)
			}
		}
	default:
		return e.fail("cannot keep a %s", t)
	}
	return nil
}

// mapValue writes a map in the order of its encoded keys.
func (e *imgEnc) mapValue(v reflect.Value) error {
	if v.IsNil() {
		e.line("nil")
		e.uvarint(0)
		return nil
	}
	if e.lines != nil {
		e.line("len %d", v.Len())
	}
	// The keys and elements are copied out of the map into two slices
	// (SetIterKey and SetIterValue copy without allocating), where each is
	// addressable and written without a copy of its own; the encoded keys
	// share one buffer (key i ends at ends[i]).
	n := v.Len()
	t := v.Type()
	keys := reflect.MakeSlice(reflect.SliceOf(t.Key()), n, n)
	vals := reflect.MakeSlice(reflect.SliceOf(t.Elem()), n, n)
	ends := make([]int, n)
	ke := e.keyEnc()
	defer e.putKeyEnc(ke)
	it := v.MapRange()
	for i := 0; i < n && it.Next(); i++ {
		k := keys.Index(i)
		k.SetIterKey(it)
		vals.Index(i).SetIterValue(it)
		if err := ke.value(k); err != nil {
			return at(err, func() string { return "[key]" })
		}
		ends[i] = len(ke.b)
		if i == 0 {
			// The keys of a map are alike: room for n of the first.
			ke.b = slices.Grow(ke.b, (n-1)*(ends[0]+1))
		}
	}
	key := func(i int32) []byte {
		if i == 0 {
			return ke.b[:ends[0]]
		}
		return ke.b[ends[i-1]:ends[i]]
	}
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return bytes.Compare(key(a), key(b)) })
	e.uvarint(uint64(n) + 1)
	for _, i := range order {
		e.b = append(e.b, key(i)...)
		name := "[key]"
		if e.lines != nil {
			name = fmt.Sprintf("[%q]", fmt.Sprint(keys.Index(int(i))))
		}
		e.push(func() string { return name })
		err := e.value(vals.Index(int(i)))
		e.pop()
		if err != nil {
			return at(err, func() string { return name })
		}
	}
	return nil
}

// keyEnc returns an encoder for the keys of a map, with a buffer that
// earlier maps grew; a map in an element of the map gets another.
func (e *imgEnc) keyEnc() *imgEnc {
	if n := len(e.keyEncs); n > 0 {
		ke := e.keyEncs[n-1]
		e.keyEncs = e.keyEncs[:n-1]
		return ke
	}
	return &imgEnc{rules: e.rules, noPt: true, types: e.types}
}

// putKeyEnc gives back an encoder of keys once its map is written.
func (e *imgEnc) putKeyEnc(ke *imgEnc) {
	ke.b = ke.b[:0]
	e.keyEncs = append(e.keyEncs, ke)
}

// Encode writes the image of v (a pointer to the projection's root, a
// struct) without the fields of leave. The image of the builds of
// recording versions 1 and 2 started at the simulator, object 0, whose one
// field in the image was its state: the objects reached are numbered from
// 1.
func (r *Rules) Encode(v any, leave map[string]bool) ([]byte, error) {
	e := &imgEnc{rules: r, ptrs: map[ptrKey]uint64{}, leave: leave, next: 1}
	if err := e.value(reflect.ValueOf(v).Elem()); err != nil {
		return nil, err
	}
	return e.b, nil
}

// Dump returns the image of v (as Encode) as text, one "path = value"
// line per value, each path starting with root: for finding where two
// states differ.
func (r *Rules) Dump(v any, root string) ([]string, error) {
	var lines []string
	e := &imgEnc{rules: r, ptrs: map[ptrKey]uint64{}, path: []string{root}, lines: &lines, next: 1}
	if err := e.value(reflect.ValueOf(v).Elem()); err != nil {
		return nil, err
	}
	return lines, nil
}
