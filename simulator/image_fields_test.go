package simulator

import (
	"errors"
	"fmt"
	"os"
	"path"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// imageFields lists every field the state image of the digest encodes
// (legacyState, under the names of the image of recordings of version 1),
// as "Type.field type", sorted; the fields inside a field listed in
// imageFieldsSince come with it and are not listed.
func imageFields() []string {
	seen := map[reflect.Type]bool{}
	out := []string{"Simulator.st simulator.simState"}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			if t.Kind() == reflect.Map {
				walk(t.Key())
			}
			t = t.Elem()
		}
		if seen[t] {
			return
		}
		seen[t] = true
		for _, f := range infoOf(t).fields {
			if f.skip {
				continue
			}
			out = append(out, fmt.Sprintf("%s %s", f.name, legacyTypeString(f.typ)))
			if imageFieldsSince[f.name] == 0 {
				walk(f.typ)
			}
		}
	}
	walk(reflect.TypeOf(legacyState{}))
	sort.Strings(out)
	return out
}

// legacyTypeString is t as reflect writes it, with the types of the
// projection under the names they stand for (legacyName).
func legacyTypeString(t reflect.Type) string {
	if t.Name() != "" {
		if st, ok := legacyStandIn(t); ok {
			return st.String()
		}
		if n, ok := legacyName(t); ok {
			return path.Base(t.PkgPath()) + "." + n
		}
		return t.String()
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + legacyTypeString(t.Elem())
	case reflect.Slice:
		return "[]" + legacyTypeString(t.Elem())
	case reflect.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), legacyTypeString(t.Elem()))
	case reflect.Map:
		return "map[" + legacyTypeString(t.Key()) + "]" + legacyTypeString(t.Elem())
	}
	return t.String()
}

// TestImageFieldsAreListed holds the state image to the fields recordings
// of version 1 were written with (testdata/image-fields-v1.txt, read off
// the build that wrote the recordings of testdata/recordings) plus the
// fields listed in imageFieldsSince. The image has no schema: a field
// added without its entry would make every earlier recording fail its
// digest, and a version 1 field removed or retyped makes them unreadable as
// the same state. Either needs a deliberate decision here.
func TestImageFieldsAreListed(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/image-fields-v1.txt")
	if err != nil {
		t.Fatal(err)
	}
	v1 := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		v1[l] = true
	}
	var added, gone []string
	now := map[string]bool{}
	for _, f := range imageFields() {
		now[f] = true
		name, _, _ := strings.Cut(f, " ")
		if !v1[f] && imageFieldsSince[name] == 0 {
			added = append(added, f)
		}
	}
	for f := range v1 {
		if !now[f] {
			gone = append(gone, f)
		}
	}
	sort.Strings(gone)
	if diff := cmp.Diff([]string(nil), added); diff != "" {
		t.Errorf("state fields not in image-fields-v1.txt nor in imageFieldsSince (list each with the recording version that carries it):\n%s", diff)
	}
	if diff := cmp.Diff([]string(nil), gone); diff != "" {
		t.Errorf("fields of version 1 images removed or retyped (recordings of version 1 no longer replay to their digest):\n%s", diff)
	}
	for name := range imageFieldsSince {
		found := false
		for f := range now {
			if strings.HasPrefix(f, name+" ") {
				found = true
			}
		}
		if !found {
			t.Errorf("imageFieldsSince lists %s, which the image does not have", name)
		}
	}
}

// TestImageRulesNameFields: every field an image rule names (imageSkip,
// imageBuilt, digestLeaves, imageFieldsSince) is a field of a type the
// image walks, so that moving or renaming state cannot silently drop a rule
// (a rule naming no field would leave the field it meant in the image).
func TestImageRulesNameFields(t *testing.T) {
	t.Parallel()
	known := map[string]bool{}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			if t.Kind() == reflect.Map {
				walk(t.Key())
			}
			t = t.Elem()
		}
		if seen[t] || t.Kind() != reflect.Struct {
			return
		}
		seen[t] = true
		for _, f := range infoOf(t).fields {
			known[f.name] = true
			if !f.skip {
				walk(f.typ)
			}
		}
	}
	walk(reflect.TypeOf(Simulator{}))
	walk(reflect.TypeOf(legacyState{}))
	// The skipped wiring's types are walked too: the rules may name them.
	walk(reflect.TypeOf(wiring{}))
	var missing []string
	for _, rules := range []map[string]bool{imageSkip, imageBuilt, digestLeaves} {
		for name := range rules {
			if !known[name] {
				missing = append(missing, name)
			}
		}
	}
	for name := range imageFieldsSince {
		if !known[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if diff := cmp.Diff([]string(nil), missing); diff != "" {
		t.Errorf("image rules naming no field (renamed or moved?):\n%s", diff)
	}
}

// digestTypes returns every struct type the state digest's image may walk
// (legacyState, and what an interface of it may hold), by the types of
// their fields.
func digestTypes() []reflect.Type {
	seen := map[reflect.Type]bool{}
	var out []reflect.Type
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			if t.Kind() == reflect.Map {
				walk(t.Key())
			}
			t = t.Elem()
		}
		if seen[t] || t.Kind() != reflect.Struct || infoOf(t).codec != codecFields {
			return
		}
		seen[t] = true
		out = append(out, t)
		for _, f := range infoOf(t).fields {
			if !f.skip {
				walk(f.typ)
			}
		}
	}
	walk(reflect.TypeOf(legacyState{}))
	for _, t := range imageTypes {
		walk(t)
	}
	return out
}

// TestImageReadsExportedFieldsOnly: every field of every type the state
// digest's image walks is exported or left out (infoOf refuses the type
// otherwise), so the image is read by reflection alone.
func TestImageReadsExportedFieldsOnly(t *testing.T) {
	t.Parallel()
	types := digestTypes()
	if len(types) < 50 {
		t.Fatalf("the digest walks %d struct types: expected every line's projection", len(types))
	}
	var private []string
	for _, ty := range types {
		if why := infoOf(ty).private; why != "" {
			private = append(private, why)
		}
	}
	sort.Strings(private)
	if diff := cmp.Diff([]string(nil), private); diff != "" {
		t.Errorf("types of the digest's image with unexported fields:\n%s", diff)
	}
}

// legacyProbe is a type of the projection with a field that is state and
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
	e := &imgEnc{ptrs: map[ptrKey]uint64{}}
	err := e.value(reflect.ValueOf(struct{ P *legacyProbe }{p}))
	var ie *imageError
	if !errors.As(err, &ie) {
		t.Fatalf("image of a type with an unexported field: %v, want an *imageError", err)
	}
	for _, want := range []string{"simulator.legacyProbe.hidden", "probe.hidden", "not exported"} {
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

// TestLegacyStandInsHaveTheirShape: the stand-ins of types that still have
// the fields they had (OutcomeMode, rand.Rand) have those fields, in their
// order, with their types, named as they were.
func TestLegacyStandInsHaveTheirShape(t *testing.T) {
	t.Parallel()
	for _, standIn := range []reflect.Type{reflect.TypeFor[legacyOutcomeMode](), reflect.TypeFor[legacyRand]()} {
		of, ok := legacyStandIn(standIn)
		if !ok {
			t.Fatalf("%s is not in legacyStandIns", standIn)
		}
		if standIn.NumField() != of.NumField() {
			t.Errorf("%s has %d fields, %s %d", standIn, standIn.NumField(), of, of.NumField())
			continue
		}
		for i := range standIn.NumField() {
			sf, want := standIn.Field(i), of.Field(i)
			if got := imageFieldName(standIn, sf); got != want.Name || sf.Type != want.Type {
				t.Errorf("%s field %d: %s %s (image name %s), want %s %s", standIn, i, sf.Name, sf.Type, got, want.Name, want.Type)
			}
		}
	}
}

// TestLegacyNamingListsNameFields: every entry of legacyRecords names a
// type of the digest's image, and every entry of legacyFieldNames a field
// of one (by its Go name), so the lists the naming rule leans on cannot
// outlive what they name.
func TestLegacyNamingListsNameFields(t *testing.T) {
	t.Parallel()
	typeNames, fieldNames := map[string]bool{}, map[string]bool{}
	for _, ty := range digestTypes() {
		typeNames[imageTypeName(ty)] = true
		for i := range ty.NumField() {
			fieldNames[imageTypeName(ty)+"."+ty.Field(i).Name] = true
		}
	}
	var missing []string
	for name := range legacyRecords {
		if !typeNames[name] {
			missing = append(missing, "legacyRecords: "+name)
		}
	}
	for name := range legacyFieldNames {
		if !fieldNames[name] {
			missing = append(missing, "legacyFieldNames: "+name)
		}
	}
	sort.Strings(missing)
	if diff := cmp.Diff([]string(nil), missing); diff != "" {
		t.Errorf("naming lists naming nothing the digest's image walks:\n%s", diff)
	}
}
