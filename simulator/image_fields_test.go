package simulator

import (
	"fmt"
	"os"
	"path"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/simulator/internal/image"
)

// imageFields lists every field the state image of the digest encodes
// (legacyState, under the names of the image of recordings of version 1),
// as "Type.field type", sorted; the fields inside a field listed in
// image.FieldsSince come with it and are not listed.
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
		for _, f := range legacyRules.Fields(t) {
			if f.Skip {
				continue
			}
			out = append(out, fmt.Sprintf("%s %s", f.Name, legacyTypeString(f.Type)))
			if image.FieldsSince[f.Name] == 0 {
				walk(f.Type)
			}
		}
	}
	walk(reflect.TypeOf(legacyState{}))
	sort.Strings(out)
	return out
}

// imagePkg is the import path of the state image's package.
var imagePkg = reflect.TypeFor[image.Rules]().PkgPath()

// legacyTypeString is t as reflect writes it, with the types of the
// projection under the names they stand for (legacyName).
func legacyTypeString(t reflect.Type) string {
	if t.Name() != "" {
		if st, ok := legacyRules.StandIn(t); ok {
			return st.String()
		}
		if n, ok := legacyRules.LegacyName(t); ok {
			pkg := path.Base(t.PkgPath())
			if t.PkgPath() == imagePkg {
				pkg = "simulator" // the image's records stand for the simulator's types
			}
			return pkg + "." + n
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
// fields listed in image.FieldsSince. The image has no schema: a field
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
		if !v1[f] && image.FieldsSince[name] == 0 {
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
		t.Errorf("state fields not in image-fields-v1.txt nor in image.FieldsSince (list each with the recording version that carries it):\n%s", diff)
	}
	if diff := cmp.Diff([]string(nil), gone); diff != "" {
		t.Errorf("fields of version 1 images removed or retyped (recordings of version 1 no longer replay to their digest):\n%s", diff)
	}
	for name := range image.FieldsSince {
		found := false
		for f := range now {
			if strings.HasPrefix(f, name+" ") {
				found = true
			}
		}
		if !found {
			t.Errorf("image.FieldsSince lists %s, which the image does not have", name)
		}
	}
}

// TestImageRulesNameFields: every field an image rule names (Skip and
// Built of legacyRules, image.DigestLeaves, image.FieldsSince) is a field of a type the
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
		for _, f := range legacyRules.Fields(t) {
			known[f.Name] = true
			if !f.Skip {
				walk(f.Type)
			}
		}
	}
	walk(reflect.TypeOf(Simulator{}))
	walk(reflect.TypeOf(legacyState{}))
	// The skipped wiring's types are walked too: the rules may name them.
	walk(reflect.TypeOf(wiring{}))
	var missing []string
	for _, rules := range []map[string]bool{legacyRules.Skip, legacyRules.Built, image.DigestLeaves} {
		for name := range rules {
			if !known[name] {
				missing = append(missing, name)
			}
		}
	}
	for name := range image.FieldsSince {
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
		if seen[t] || t.Kind() != reflect.Struct || !legacyRules.ByFields(t) {
			return
		}
		seen[t] = true
		out = append(out, t)
		for _, f := range legacyRules.Fields(t) {
			if !f.Skip {
				walk(f.Type)
			}
		}
	}
	walk(reflect.TypeOf(legacyState{}))
	for _, t := range image.Interfaces {
		walk(t)
	}
	return out
}

// TestImageReadsExportedFieldsOnly: every field of every type the state
// digest's image walks is exported or left out (the image refuses the type
// otherwise), so the image is read by reflection alone.
func TestImageReadsExportedFieldsOnly(t *testing.T) {
	t.Parallel()
	types := digestTypes()
	if len(types) < 50 {
		t.Fatalf("the digest walks %d struct types: expected every line's projection", len(types))
	}
	var private []string
	for _, ty := range types {
		if why := legacyRules.Refused(ty); why != "" {
			private = append(private, why)
		}
	}
	sort.Strings(private)
	if diff := cmp.Diff([]string(nil), private); diff != "" {
		t.Errorf("types of the digest's image with unexported fields:\n%s", diff)
	}
}

// TestLegacyStandInsHaveTheirShape: the stand-ins of types that still have
// the fields they had (OutcomeMode, rand.Rand) have those fields, in their
// order, with their types, named as they were.
func TestLegacyStandInsHaveTheirShape(t *testing.T) {
	t.Parallel()
	for _, standIn := range []reflect.Type{reflect.TypeFor[image.OutcomeMode](), reflect.TypeFor[image.Rand]()} {
		of, ok := legacyRules.StandIn(standIn)
		if !ok {
			t.Fatalf("%s is not in legacyStandIns", standIn)
		}
		if standIn.NumField() != of.NumField() {
			t.Errorf("%s has %d fields, %s %d", standIn, standIn.NumField(), of, of.NumField())
			continue
		}
		for i := range standIn.NumField() {
			sf, want := standIn.Field(i), of.Field(i)
			if got := legacyRules.FieldName(standIn, sf); got != want.Name || sf.Type != want.Type {
				t.Errorf("%s field %d: %s %s (image name %s), want %s %s", standIn, i, sf.Name, sf.Type, got, want.Name, want.Type)
			}
		}
	}
}

// TestLegacyNamingListsNameFields: every entry of image.Records names a
// type of the digest's image, and every entry of image.FieldNames a field
// of one (by its Go name), so the lists the naming rule leans on cannot
// outlive what they name.
func TestLegacyNamingListsNameFields(t *testing.T) {
	t.Parallel()
	typeNames, fieldNames := map[string]bool{}, map[string]bool{}
	for _, ty := range digestTypes() {
		typeNames[legacyRules.TypeName(ty)] = true
		for i := range ty.NumField() {
			fieldNames[legacyRules.TypeName(ty)+"."+ty.Field(i).Name] = true
		}
	}
	var missing []string
	for name := range image.Records {
		if !typeNames[name] {
			missing = append(missing, "image.Records: "+name)
		}
	}
	for name := range image.FieldNames {
		if !fieldNames[name] {
			missing = append(missing, "image.FieldNames: "+name)
		}
	}
	sort.Strings(missing)
	if diff := cmp.Diff([]string(nil), missing); diff != "" {
		t.Errorf("naming lists naming nothing the digest's image walks:\n%s", diff)
	}
}
