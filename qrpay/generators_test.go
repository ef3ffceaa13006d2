package qrpay_test

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/emvqr"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// generatorFixture is the file internal/qrgen/generate.js writes: codes made
// by independent open-source generators from the npm registry, each with the
// answers the service must give.
type generatorFixture struct {
	Generators map[string]string `json:"generators"`
	Codes      []struct {
		Generator string    `json:"generator"`
		Version   string    `json:"version"`
		Scheme    string    `json:"scheme"`
		Variant   string    `json:"variant"`
		Code      string    `json:"code"`
		Amount    string    `json:"amount"`
		Pay       bool      `json:"pay"`
		Deviation string    `json:"deviation"`
		Want      qrOutcome `json:"want"`
	} `json:"codes"`
}

func (o *qrOutcome) UnmarshalJSON(b []byte) error {
	var w struct{ Decode, Quote, Pay string }
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*o = qrOutcome(w)
	return nil
}

// TestIndependentGeneratorCodes decodes and quotes, through the SDK against
// the simulator, every code of the independent-generator fixture, and pays
// the sample the fixture marks. CI regenerates the fixture with the pinned
// generators (.ci/qr-generators) and names it in MWALLET_QR_GENERATORS; the
// committed copy in testdata is used otherwise.
func TestIndependentGeneratorCodes(t *testing.T) {
	t.Parallel()
	file := os.Getenv("MWALLET_QR_GENERATORS")
	if file == "" {
		file = "testdata/qr_generators.json"
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var fx generatorFixture
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	if len(fx.Generators) == 0 || len(fx.Codes) == 0 {
		t.Fatalf("%s holds no generator codes", file)
	}
	counts := map[string]int{}
	for _, r := range fx.Codes {
		counts[r.Generator+"@"+r.Version+" "+r.Scheme]++
	}
	var lines []string
	for k, n := range counts {
		lines = append(lines, k+": "+itoa(n))
	}
	sort.Strings(lines)
	t.Logf("%s: %d codes\n%s", file, len(fx.Codes), strings.Join(lines, "\n"))
	for _, r := range fx.Codes {
		t.Run(r.Generator+"/"+r.Scheme+"/"+r.Variant, func(t *testing.T) {
			t.Parallel()
			if fx.Generators[r.Generator] != r.Version {
				t.Fatalf("version %s, the fixture pins %s", r.Version, fx.Generators[r.Generator])
			}
			if !strings.HasPrefix(r.Want.Decode, "error ") {
				p, err := emvqr.Decode(r.Code)
				if err != nil {
					t.Fatalf("decode: %v", err)
				}
				if s, _ := p.Scheme(); s.ID != r.Scheme {
					t.Fatalf("scheme %q, the generator made %q", s.ID, r.Scheme)
				}
			}
			sim, c := simtest.New(t)
			got := walkCode(t, sim, c, r.Code, r.Amount, r.Pay)
			if diff := cmp.Diff(r.Want, got); diff != "" {
				t.Errorf("%s (deviation: %q)\ndecode, quote, payment (-want +got):\n%s", r.Code, r.Deviation, diff)
			}
		})
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
