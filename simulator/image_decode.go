package simulator

// Reading a state image (image.go) back into a simulator.

import (
	"encoding"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"reflect"
	"time"
	"unsafe"
)

// imgDec reads an image into a simulator.
type imgDec struct {
	b    []byte
	ptrs []reflect.Value
	// types caches infoOf, asked for every value read.
	types map[reflect.Type]*typeInfo
	// tmp holds, by type, one value a map's keys and elements are read
	// into before SetMapIndex copies them into the map.
	tmp map[reflect.Type]reflect.Value
	// strs are strings read before, by a hash of their bytes: the same
	// short string read again (an asset, a status, a member's id) is
	// shared instead of allocated again.
	strs *[4096]string
	seed maphash.Seed
}

// str returns p as a string, shared with an equal one read before when
// the cache has it.
func (d *imgDec) str(p []byte) string {
	if len(p) == 0 {
		return ""
	}
	if len(p) > 64 {
		return string(p)
	}
	if d.strs == nil {
		d.strs, d.seed = new([4096]string), maphash.MakeSeed()
	}
	slot := &d.strs[maphash.Bytes(d.seed, p)%uint64(len(d.strs))]
	if *slot != string(p) {
		*slot = string(p)
	}
	return *slot
}

// info returns the typeInfo of t from the decoder's own cache.
func (d *imgDec) info(t reflect.Type) *typeInfo { return cachedInfo(&d.types, t) }

// scratch returns a scratch value of type t: a map nested in a key or
// element of a map of the same type gets a value of its own, not the one
// its parent is being read into.
func (d *imgDec) scratch(t reflect.Type) reflect.Value {
	v, ok := d.tmp[t]
	if !ok {
		return reflect.New(t).Elem()
	}
	delete(d.tmp, t)
	return v
}

// release gives back a scratch value, zeroed (it keeps nothing alive),
// for the next map.
func (d *imgDec) release(v reflect.Value) {
	if d.tmp == nil {
		d.tmp = map[reflect.Type]reflect.Value{}
	}
	d.tmp[v.Type()] = v
}

var errImageShort = fmt.Errorf("simulator: state image: truncated")

func (d *imgDec) uvarint() (uint64, error) {
	x, n := binary.Uvarint(d.b)
	if n <= 0 {
		return 0, errImageShort
	}
	d.b = d.b[n:]
	return x, nil
}

func (d *imgDec) varint() (int64, error) {
	x, n := binary.Varint(d.b)
	if n <= 0 {
		return 0, errImageShort
	}
	d.b = d.b[n:]
	return x, nil
}

func (d *imgDec) take(n uint64) ([]byte, error) {
	if n > uint64(len(d.b)) {
		return nil, errImageShort
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p, nil
}

func (d *imgDec) bytes() ([]byte, error) {
	n, err := d.uvarint()
	if err != nil {
		return nil, err
	}
	return d.take(n)
}

// value reads into v, which is addressable and settable. A pointer that
// v already holds is read into in place, so that what New built and the
// image leaves out (the clock's owner, the ledger's scales) stays.
func (d *imgDec) value(v reflect.Value) error {
	t := v.Type()
	ti := d.info(t)
	switch ti.codec {
	case codecTime:
		tag, err := d.uvarint()
		if err != nil {
			return err
		}
		// v is addressable: a pointer in an interface is not allocated.
		tp := v.Addr().Interface().(*time.Time)
		if tag == 0 {
			*tp = time.Time{}
			return nil
		}
		sec, err := d.varint()
		if err != nil {
			return err
		}
		nsec, err := d.uvarint()
		if err != nil {
			return err
		}
		*tp = time.Unix(sec, int64(nsec)).UTC()
		return nil
	case codecBinary, codecText:
		b, err := d.bytes()
		if err != nil {
			return err
		}
		// Into the zero value, as into a new one.
		v.SetZero()
		p := v.Addr()
		if ti.codec == codecBinary {
			err = p.Interface().(encoding.BinaryUnmarshaler).UnmarshalBinary(b)
		} else {
			err = p.Interface().(encoding.TextUnmarshaler).UnmarshalText(b)
		}
		if err != nil {
			return fmt.Errorf("simulator: state image: %s: %w", t, err)
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Bool:
		p, err := d.take(1)
		if err != nil {
			return err
		}
		v.SetBool(p[0] == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x, err := d.varint()
		if err != nil {
			return err
		}
		v.SetInt(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		x, err := d.uvarint()
		if err != nil {
			return err
		}
		v.SetUint(x)
	case reflect.Float32, reflect.Float64:
		x, err := d.uvarint()
		if err != nil {
			return err
		}
		v.SetFloat(math.Float64frombits(x))
	case reflect.String:
		p, err := d.bytes()
		if err != nil {
			return err
		}
		v.SetString(d.str(p))
	case reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			p, err := d.take(uint64(v.Len()))
			if err != nil {
				return err
			}
			reflect.Copy(v, reflect.ValueOf(p))
			return nil
		}
		for i := 0; i < v.Len(); i++ {
			if err := d.value(v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		n, err := d.uvarint()
		if err != nil {
			return err
		}
		if n == 0 {
			v.Set(reflect.Zero(t))
			return nil
		}
		n--
		if n > uint64(len(d.b)) {
			return errImageShort
		}
		if t.Elem().Kind() == reflect.Uint8 {
			p, err := d.take(n)
			if err != nil {
				return err
			}
			s := reflect.MakeSlice(t, int(n), int(n))
			reflect.Copy(s, reflect.ValueOf(p))
			v.Set(s)
			return nil
		}
		s := reflect.MakeSlice(t, int(n), int(n))
		for i := 0; i < int(n); i++ {
			if err := d.value(s.Index(i)); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Map:
		n, err := d.uvarint()
		if err != nil {
			return err
		}
		if n == 0 {
			v.Set(reflect.Zero(t))
			return nil
		}
		n--
		if n > uint64(len(d.b)) {
			return errImageShort
		}
		m := reflect.MakeMapWithSize(t, int(n))
		// SetMapIndex copies the key and the element: one scratch value
		// of each serves every entry.
		k, e := d.scratch(t.Key()), d.scratch(t.Elem())
		for i := 0; i < int(n); i++ {
			k.SetZero()
			if err := d.value(k); err != nil {
				return err
			}
			e.SetZero()
			if err := d.value(e); err != nil {
				return err
			}
			m.SetMapIndex(k, e)
		}
		k.SetZero()
		e.SetZero()
		d.release(k)
		d.release(e)
		v.Set(m)
	case reflect.Pointer:
		tag, err := d.uvarint()
		if err != nil {
			return err
		}
		switch tag {
		case 0:
			v.Set(reflect.Zero(t))
		case 1:
			id, err := d.uvarint()
			if err != nil {
				return err
			}
			if id >= uint64(len(d.ptrs)) || d.ptrs[id].Type() != t {
				return fmt.Errorf("simulator: state image: bad reference %d to a %s", id, t)
			}
			v.Set(d.ptrs[id])
		case 2:
			p := v
			if v.IsNil() {
				p = reflect.New(t.Elem())
			}
			d.ptrs = append(d.ptrs, p)
			if err := d.value(p.Elem()); err != nil {
				return err
			}
			v.Set(p)
		default:
			return fmt.Errorf("simulator: state image: bad pointer tag %d", tag)
		}
	case reflect.Interface:
		tag, err := d.uvarint()
		if err != nil {
			return err
		}
		if tag == 0 {
			v.Set(reflect.Zero(t))
			return nil
		}
		name, err := d.bytes()
		if err != nil {
			return err
		}
		ct := imageTypes[string(name)]
		if ct == nil {
			return fmt.Errorf("simulator: state image: unknown type %q", name)
		}
		c := reflect.New(ct).Elem()
		if err := d.value(c); err != nil {
			return err
		}
		v.Set(c)
	case reflect.Struct:
		for _, f := range ti.fields {
			if f.skip {
				continue
			}
			if err := d.value(fieldOf(v, f)); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("simulator: state image: cannot read a %s", t)
	}
	return nil
}

// decode replaces the state of the simulator, just built with the
// configuration the image was taken with, by the image's.
func (im *stateImage) decode(b []byte) error {
	root := reflect.ValueOf(im.root)
	d := &imgDec{b: b, ptrs: []reflect.Value{root}}
	tx := im.k.BeginSetup()
	defer tx.End()
	if err := d.value(root.Elem()); err != nil {
		return err
	}
	if len(d.b) != 0 {
		return fmt.Errorf("simulator: state image: %d bytes after the end", len(d.b))
	}
	// The image holds the tables' rows: their keys, indexes and checksums
	// are built again from them.
	im.k.Rebuilt(tx)
	// The next image written (the first snapshot after a restart) is
	// about as large as this one.
	im.lastSize.Store(int64(len(b)))
	im.lastPtrs.Store(int64(len(d.ptrs)))
	return nil
}

// fieldOf returns the field f of the addressable struct v, readable and
// settable whether exported or not: the positional snapshot of the
// Simulator value reads and sets the unexported fields of its state.
func fieldOf(v reflect.Value, f field) reflect.Value {
	return reflect.NewAt(f.typ, unsafe.Add(unsafe.Pointer(v.UnsafeAddr()), v.Type().Field(f.index).Offset)).Elem()
}
