package image

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// legacyProbe is a type of a projection with a field that is state and
// not exported.
type legacyProbe struct {
	Kept   string
	hidden int
}

// TestImageRefusesUnexportedFields: a type of the projection with an
// unexported field makes the image fail with an error that names the
// field, before any of the type's fields is written.
func TestImageRefusesUnexportedFields(t *testing.T) {
	t.Parallel()
	p := &legacyProbe{Kept: "k", hidden: 7}
	e := &imgEnc{rules: &Rules{}, ptrs: map[ptrKey]uint64{}}
	err := e.value(reflect.ValueOf(struct{ P *legacyProbe }{p}))
	var ie *Error
	if !errors.As(err, &ie) {
		t.Fatalf("image of a type with an unexported field: %v, want an *Error", err)
	}
	for _, want := range []string{"image.legacyProbe.hidden", "probe.hidden", "not exported"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if !strings.HasPrefix(err.Error(), "simulator: state image: Simulator.P: ") {
		t.Errorf("error %q does not say where", err)
	}
	if len(e.b) > 2 {
		t.Errorf("the failed image wrote %d bytes of the type's fields", len(e.b))
	}
}
