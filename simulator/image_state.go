package simulator

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// stateImage writes and reads the state image of one simulator and hashes
// it into the state digest (digest.go). The image is positional over the
// Simulator's fields, walked by reflection from the Simulator value, so
// the component holds the *Simulator it images (root) and reads nothing
// of it but what the walk reaches (imageSkip leaves out the kernel and the
// wiring, this component included). It also holds the kernel, whose state
// lock a dump or a decode takes, and the sizes of the last image written.
type stateImage struct {
	root *Simulator
	k    *kernel.Kernel
	// lastSize and lastPtrs size the next image.
	lastSize, lastPtrs atomic.Int64
	// onCapture, set by tests, runs when a capture is read or encoded,
	// without the state lock.
	onCapture func()
}

// encodeNow writes the image of the simulator now, without the fields of
// leave: from a capture, so the state lock is held for the capture only.
func (im *stateImage) encodeNow(leave map[string]bool) ([]byte, error) {
	c := im.capture(false)
	defer c.Release()
	return im.encodeWith(c, leave)
}

// capture takes a capture of the state (kernel.Capture), holding the
// state lock for the capture only (and the input order, with input).
// The caller releases it.
func (im *stateImage) capture(input bool) *kernel.Capture { return im.captureWith(input, nil) }

// captureWith is capture, running at (when set) under the same hold of
// the lock: what must be read at the instant of the capture.
func (im *stateImage) captureWith(input bool, at func(tx *kernel.Tx)) *kernel.Capture {
	tx := im.k.BeginCapture(input)
	defer tx.End()
	if at != nil {
		at(tx)
	}
	return im.k.Capture(tx)
}

// captured takes a capture of the state and begins the transaction that
// reads it; its End releases the capture.
func (im *stateImage) captured() *kernel.Tx { return im.read(im.capture(false)) }

// read begins the one transaction that reads the capture c, whose End
// releases it: every read of the whole state (the digest, the ledger, the
// state dump, a recording's end line) reads through one, without the
// state lock.
func (im *stateImage) read(c *kernel.Capture) *kernel.Tx {
	tx := c.ReadOnce()
	if im.onCapture != nil {
		im.onCapture()
	}
	return tx
}

// encodeCapture writes the image of the state c captured, without the
// state lock: the image of the simulator at the instant of the capture,
// byte for byte.
func (im *stateImage) encodeCapture(c *kernel.Capture) ([]byte, error) {
	if im.onCapture != nil {
		im.onCapture()
	}
	return im.encodeWith(c, nil)
}

// encodeWith writes the image of the simulator, or of the capture c,
// without the fields of leave.
func (im *stateImage) encodeWith(c *kernel.Capture, leave map[string]bool) ([]byte, error) {
	// The image is about as large as the last one: start there.
	size, ptrs := im.lastSize.Load(), im.lastPtrs.Load()
	e := &imgEnc{ptrs: make(map[ptrKey]uint64, ptrs), b: make([]byte, 0, size+size/8), leave: leave, cap: c, unexported: fieldOf}
	defer func() { im.lastSize.Store(int64(len(e.b))); im.lastPtrs.Store(int64(len(e.ptrs))) }()
	root := reflect.ValueOf(im.root)
	e.ptrs[ptrKey{root.Pointer(), root.Type()}] = 0
	e.next = 1
	if err := e.value(root.Elem()); err != nil {
		return nil, err
	}
	return e.b, nil
}

// dump returns the image the state digest is taken over (legacyState) as
// text, one "path = value" line per value, for finding where two states
// differ.
func (im *stateImage) dump() ([]string, error) {
	var lines []string
	e := &imgEnc{ptrs: map[ptrKey]uint64{}, path: []string{"Simulator.st"}, lines: &lines}
	e.next = 1
	tx := im.captured()
	defer tx.End()
	if err := e.value(reflect.ValueOf(im.legacy(tx)).Elem()); err != nil {
		return nil, err
	}
	return lines, nil
}

// imageSchema is a hash of the shape of the types the image walks: an image
// is read only by a simulator whose schema is the same.
var imageSchema = sync.OnceValue(func() string {
	h := sha256.New()
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		fmt.Fprintf(h, "%s|%d|", t, t.Kind())
		if seen[t] {
			return
		}
		seen[t] = true
		ti := infoOf(t)
		fmt.Fprintf(h, "codec%d|", ti.codec)
		if ti.codec != codecFields {
			return
		}
		switch t.Kind() {
		case reflect.Struct:
			for _, f := range ti.fields {
				fmt.Fprintf(h, "{%s:%v}", f.name, f.skip)
				if !f.skip {
					walk(f.typ)
				}
			}
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		}
	}
	walk(reflect.TypeOf(Simulator{}))
	names := make([]string, 0, len(imageTypes))
	for n := range imageTypes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		walk(imageTypes[n])
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
})
