package simulator

import (
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/members"
	"github.com/mwallet/mwallet-go/simulator/internal/merchant"
	"github.com/mwallet/mwallet-go/simulator/internal/startup"
	hookline "github.com/mwallet/mwallet-go/simulator/internal/webhooks"
)

// TestControlInputsCarryEveryField checks the conversions between the public
// control types and the inputs their ops are declared over: the two sides
// have the same fields, and a value with every field set survives the round
// trip. A field added to one side and forgotten in the conversion fails here,
// where the compiler no longer sees it.
func TestControlInputsCarryEveryField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		public, input any
		renamed       map[string]string // an input's field name -> the public one
		roundTrip     func(public any) any
	}{
		{"Fault", Fault{}, control.FaultIn{}, nil, func(p any) any { return faultOfInput(*p.(Fault).faultIn()) }},
		{"KeySettings", KeySettings{}, merchant.KeySettingsIn{}, nil, func(p any) any { return keySettingsOf(p.(KeySettings).keySettingsIn()) }},
		{"MerchantSettings", MerchantSettings{}, merchant.SettingsIn{}, nil, func(p any) any { return merchantSettingsOf(*p.(MerchantSettings).settingsIn()) }},
		{"MemberSeed", MemberSeed{}, members.SeedIn{}, map[string]string{"ExternalMemberID": "ExternalID"}, func(p any) any { return memberSeedOf(p.(MemberSeed).seedIn()) }},
		{"WebhookEndpointConfig", WebhookEndpointConfig{}, hookline.EndpointIn{}, nil, func(p any) any { return webhookEndpointConfigOf(*webhookEndpointIn(p.(WebhookEndpointConfig))) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(exportedFields(tt.public, nil), exportedFields(tt.input, tt.renamed)); diff != "" {
				t.Errorf("fields of the public type and of the input differ (-public +input):\n%s", diff)
			}
			v := reflect.New(reflect.TypeOf(tt.public)).Elem()
			fillEveryField(v)
			want := v.Interface()
			if diff := cmp.Diff(want, tt.roundTrip(want)); diff != "" {
				t.Errorf("round trip through the input lost a field (-want +got):\n%s", diff)
			}
		})
	}
}

func exportedFields(v any, renamed map[string]string) []string {
	var names []string
	for _, f := range reflect.VisibleFields(reflect.TypeOf(v)) {
		if f.IsExported() && !f.Anonymous {
			name := f.Name
			if to, ok := renamed[name]; ok {
				name = to
			}
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// fillEveryField sets every exported field of the struct v to a value that
// is not its zero value, distinct per field.
func fillEveryField(v reflect.Value) {
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).IsExported() {
			fillValue(v.Field(i), i+1)
		}
	}
}

func fillValue(f reflect.Value, n int) {
	switch f.Kind() {
	case reflect.String:
		f.SetString("v" + string(rune('a'+n)))
	case reflect.Int, reflect.Int64, reflect.Int32:
		f.SetInt(int64(n))
	case reflect.Bool:
		f.SetBool(true)
	case reflect.Pointer:
		p := reflect.New(f.Type().Elem())
		fillValue(p.Elem(), n)
		f.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(f.Type(), 1, 1)
		fillValue(s.Index(0), n)
		f.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(f.Type())
		k, e := reflect.New(f.Type().Key()).Elem(), reflect.New(f.Type().Elem()).Elem()
		fillValue(k, n)
		fillValue(e, n)
		m.SetMapIndex(k, e)
		f.Set(m)
	case reflect.Chan:
		c := reflect.MakeChan(reflect.ChanOf(reflect.BothDir, f.Type().Elem()), 0)
		f.Set(c.Convert(f.Type()))
	case reflect.Struct:
		if f.Type() == reflect.TypeOf(time.Time{}) {
			f.Set(reflect.ValueOf(time.Date(2026, 1, n, 0, 0, 0, 0, time.UTC)))
			return
		}
		fillEveryField(f)
	default:
		panic("fillValue: no value for kind " + f.Kind().String())
	}
}

// TestModelAndEnvironmentValuesMatchTheInternalOnes holds the public Model
// and Environment constants to the plain strings the internal packages
// compare them with (startup's checks, the kernel's custody): a value
// changed on one side only would make New refuse its own default.
func TestModelAndEnvironmentValuesMatchTheInternalOnes(t *testing.T) {
	t.Parallel()
	got := []string{string(PlatformHosted), string(MerchantHosted), string(Sandbox), string(Production), string(PlatformHosted), string(MerchantHosted)}
	want := []string{startup.PlatformHosted, startup.MerchantHosted, startup.Sandbox, startup.Production, kernel.PlatformHosted, kernel.MerchantHosted}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("public values (-internal +public):\n%s", diff)
	}
}
