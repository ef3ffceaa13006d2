package control

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func standardLookups() Lookups[*run] {
	return Lookups[*run]{
		BusinessPath:  func(_ *run, p string) bool { return p == "/v1/assets" },
		OutcomeMode:   func(s string) bool { return s == "manual" },
		MaxAdvance:    time.Hour,
		MaxInProgress: time.Minute,
		MaxDelayMS:    100,
	}
}

// TestStandardDomains: each standard domain takes a value inside it and
// refuses its own bad values; the bounds and lookups given are the ones
// applied.
func TestStandardDomains(t *testing.T) {
	reg, _ := Domains(Standard(standardLookups()))
	tests := []struct {
		key  string
		good any
	}{
		{"currency", "thb"}, {"country", " sg"}, {"business_path", "/v1/assets"}, {"business_target", "/v1/assets?x=1"},
		{"idempotency_key", "0f8fad5b-d9cb-469f-a165-70867728950e"}, {"decimal", "12.5"}, {"positive_decimal", "0.1"},
		{"minor_amount", "100"}, {"url", "https://example.com/hook"}, {"go_duration", "59m"}, {"outcome_mode", "manual"},
		{"event_extra", map[string]any{"a_b": "x"}}, {"member_ref", "ext-1"}, {"snake_code", "payout_rejected"},
		{"step", "3"}, {"bin", "411111"}, {"seconds_advance", 3600.0}, {"seconds_in_progress", 60.0},
		{"fault_status", int64(0)}, {"boolean", true},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			d := reg[tt.key]
			if d == nil || d.OK == nil {
				t.Fatalf("no format domain %q", tt.key)
			}
			if !d.OK(&run{}, tt.good) {
				t.Errorf("%v refused", tt.good)
			}
			for _, b := range d.Bad {
				if v := badValue(b); d.OK(&run{}, v) {
					t.Errorf("bad value %#v taken", v)
				}
			}
		})
	}
	if got := reg["go_duration"].OK(&run{}, "2h"); got {
		t.Errorf("go_duration 2h over MaxAdvance 1h taken")
	}
	if d := reg["delay_ms"]; d.Want != "an integer from 0 to 100" {
		t.Errorf("delay_ms wants %q", d.Want)
	}
}

// badValue is a Bad value as the decoder gives it: an integer as int64.
func badValue(b any) any {
	if n, ok := b.(int); ok {
		return int64(n)
	}
	return b
}

// TestDomainsMergesAndAppliesLegacy: tables merge, a key given twice
// and a rule of earlier builds for a key no table gives are reported, and the arguments whose domain came later replay under the
// weaker rules of earlier builds.
func TestDomainsMergesAndAppliesLegacy(t *testing.T) {
	own := map[string]*Domain[*run]{"http_method": OneOf[*run]("HTTP method", "PSOT", "GET")}
	reg, _ := Domains(own, Standard(standardLookups()))
	legacy := map[string]bool{}
	for _, key := range []string{"http_method", "currency", "card_limit", "seconds_in_progress", "go_duration"} {
		legacy[key] = reg[key].Legacy != nil
	}
	if diff := cmp.Diff(map[string]bool{"http_method": true, "currency": true, "card_limit": true, "seconds_in_progress": true, "go_duration": true}, legacy); diff != "" {
		t.Errorf("legacy rules (-want +got):\n%s", diff)
	}
	if reg["kyc_level"].Legacy != nil {
		t.Errorf("kyc_level has a legacy rule")
	}
	if !reg["currency"].Legacy(&run{}, "QQQ") || reg["card_limit"].Legacy(&run{}, -1.0) || !reg["card_limit"].Legacy(&run{}, 5e6) {
		t.Errorf("legacy rules: currency takes anything, card_limit any non-negative number")
	}
	_, problems := Domains(own, map[string]*Domain[*run]{"http_method": own["http_method"]})
	for _, want := range []string{`control domain "http_method" registered twice`,
		`control domain "card_limit" has a rule of earlier builds but is not registered`} {
		if !slices.Contains(problems, want) {
			t.Errorf("problems %q lack %q", problems, want)
		}
	}
	if _, problems := Domains(Names[*run](), Standard(standardLookups())); len(problems) != 0 {
		t.Errorf("the standard tables and the names: problems %q", problems)
	}
}
