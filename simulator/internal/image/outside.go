package image

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Outside returns the outside image of the state st points to: the image,
// in verify mode, of the state held outside the kernel's tables, which a
// refused step must leave as it was (the kernel compares it before and
// after). It walks st by reflection, every field but the kernel's tables,
// indexes and cells (the kernel checks those itself), interfaces (the
// hosts the lines are given: wiring, not state), functions, locks, HTTP
// transports and the fields skip names ("Type.field"); a pointer is walked
// once. It is text, a line per value named by its path, so that a
// difference says where. Unlike the state image it reads unexported fields
// too (by kind, never by unsafe): it is compared, never kept.
func Outside(st any, skip map[string]bool) func() []byte {
	return func() []byte {
		w := outsideWriter{seen: map[uintptr]bool{}, skip: skip}
		w.value("st", reflect.ValueOf(st).Elem())
		return w.b
	}
}

// outsideWriter writes the outside image.
type outsideWriter struct {
	b    []byte
	seen map[uintptr]bool
	skip map[string]bool
}

// kernelPkg is the import path of the kernel, whose types the outside
// image skips.
var kernelPkg = simPkg + "/internal/kernel"

func skipOutside(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.PkgPath() == kernelPkg && !strings.HasPrefix(t.Name(), "List["):
		return true
	case t.PkgPath() == "sync", t.PkgPath() == "net/http", t.PkgPath() == "crypto/tls":
		return true // locks, and the webhook line's HTTP transport: wiring
	}
	switch t.Kind() {
	case reflect.Func, reflect.Chan, reflect.Interface, reflect.UnsafePointer:
		return true
	}
	return false
}

func (w *outsideWriter) line(path string, v any) {
	w.b = fmt.Appendf(w.b, "%s = %v\n", path, v)
}

func (w *outsideWriter) value(path string, v reflect.Value) {
	if !v.IsValid() {
		w.line(path, "<invalid>")
		return
	}
	t := v.Type()
	if skipOutside(t) {
		return
	}
	if t == reflect.TypeFor[time.Time]() {
		// Its wall and ext fields: the instant and the monotonic reading
		// (read by kind: the value may be an unexported field's).
		w.line(path, fmt.Sprintf("time %d %d", v.Field(0).Uint(), v.Field(1).Int()))
		return
	}
	switch t.Kind() {
	case reflect.Bool:
		w.line(path, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.line(path, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		w.line(path, v.Uint())
	case reflect.Float32, reflect.Float64:
		w.line(path, math.Float64bits(v.Float()))
	case reflect.String:
		w.line(path, strconv.Quote(v.String()))
	case reflect.Array, reflect.Slice:
		if t.Kind() == reflect.Slice {
			w.line(path+".len", v.Len())
		}
		for i := range v.Len() {
			w.value(path+"["+strconv.Itoa(i)+"]", v.Index(i))
		}
	case reflect.Map:
		w.line(path+".len", v.Len())
		type entry struct {
			shown string
			v     reflect.Value
		}
		var entries []entry
		for it := v.MapRange(); it.Next(); {
			entries = append(entries, entry{fmt.Sprint(it.Key()), it.Value()})
		}
		sort.Slice(entries, func(a, b int) bool { return entries[a].shown < entries[b].shown })
		for _, e := range entries {
			w.value(path+"["+strconv.Quote(e.shown)+"]", e.v)
		}
	case reflect.Pointer:
		if v.IsNil() {
			w.line(path, "nil")
			return
		}
		if w.seen[v.Pointer()] {
			return
		}
		w.seen[v.Pointer()] = true
		w.value(path, v.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if w.skip[t.Name()+"."+t.Field(i).Name] {
				continue // not state: the clock's owner
			}
			w.value(path+"."+t.Field(i).Name, v.Field(i))
		}
	}
}
