package catalogue

import (
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"

	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testCatalogue is the fixture catalogue plus a disabled asset.
func testCatalogue() *Catalogue {
	c := New(&cellCache{})
	for _, a := range Fixture() {
		c.Add(a)
	}
	c.Add(&Asset{Code: "OFF", Name: "Disabled", LedgerScale: 2, DisplayScale: 2})
	return c
}

// cellCache is a Cache in a plain variable, for tests that run without a
// kernel cell.
type cellCache struct {
	key, body string
	ok        bool
	sets      int
}

func (c *cellCache) Get(*kernel.Tx) (string, string, bool) { return c.key, c.body, c.ok }

func (c *cellCache) Set(_ *kernel.Tx, key, body string) {
	c.key, c.body, c.ok = key, body, true
	c.sets++
}

// TestCatalogueLookups holds every lookup of the catalogue to one table:
// the asset found, its ledger scale, and whether the merchant may use it
// with and without an allowlist.
func TestCatalogueLookups(t *testing.T) {
	t.Parallel()
	c := testCatalogue()
	only := map[string]bool{"USDC": true, "OFF": true}
	for _, tc := range []struct {
		code            string
		found           bool
		scale           int
		allowed, inOnly bool
	}{
		{code: "USDT", found: true, scale: 6, allowed: true},
		{code: "USDC", found: true, scale: 6, allowed: true, inOnly: true},
		{code: "BTC", found: true, scale: 8, allowed: true},
		{code: "ETH", found: true, scale: 18, allowed: true},
		{code: "OFF", found: true, scale: 2}, // in the catalogue, disabled: never allowed
		{code: "usdt"},                       // codes are exact: callers upper-case them
		{code: "XRP"},                        // unknown
		{code: ""},                           // empty
		{code: " USDT"},                      // not trimmed
	} {
		a := c.Lookup(tc.code)
		if (a != nil) != tc.found || (a != nil && a.Code != tc.code) {
			t.Errorf("lookup(%q) = %v, want found %v", tc.code, a, tc.found)
		}
		sc, ok := c.Scale(tc.code)
		if ok != tc.found || sc != tc.scale {
			t.Errorf("scale(%q) = %d, %v; want %d, %v", tc.code, sc, ok, tc.scale, tc.found)
		}
		for _, allow := range []map[string]bool{nil, {}} {
			if got := c.Allowed(tc.code, allow); got != tc.allowed {
				t.Errorf("allowed(%q, %v) = %v, want %v", tc.code, allow, got, tc.allowed)
			}
		}
		if got := c.Allowed(tc.code, only); got != tc.inOnly {
			t.Errorf("allowed(%q, USDC+OFF) = %v, want %v", tc.code, got, tc.inOnly)
		}
	}
	var order []string
	for _, a := range c.All() {
		order = append(order, a.Code)
	}
	if diff := cmp.Diff([]string{"USDT", "USDC", "BTC", "ETH", "OFF"}, order); diff != "" {
		t.Errorf("catalogue order (-want +got):\n%s", diff)
	}
}

// TestCatalogueListing: the GET /v1/assets answer lists the enabled assets
// in catalogue order, narrowed by the allowlist, with the withdrawal fields
// only on networks that withdraw; it is encoded once per allowlist.
func TestCatalogueListing(t *testing.T) {
	t.Parallel()
	c := testCatalogue()
	cache := c.cache.(*cellCache)
	k := new(kernel.Kernel)
	tx := k.BeginSetup()
	defer tx.End()
	codes := func(allow map[string]bool) []string {
		t.Helper()
		b, err := c.Listing(tx, allow)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Assets []struct {
				Code     string           `json:"code"`
				Networks []map[string]any `json:"networks"`
			} `json:"assets"`
		}
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range out.Assets {
			got = append(got, a.Code)
			for _, n := range a.Networks {
				_, fee := n["withdraw_fee_mode"]
				if fee != n["withdraw_enabled"].(bool) {
					t.Errorf("%s %v: withdraw_fee_mode present %v, withdraw_enabled %v", a.Code, n["network"], fee, n["withdraw_enabled"])
				}
			}
		}
		return got
	}
	for _, tc := range []struct {
		allow map[string]bool
		want  []string
	}{
		{nil, []string{"USDT", "USDC", "BTC", "ETH"}},
		{map[string]bool{}, []string{"USDT", "USDC", "BTC", "ETH"}},
		{map[string]bool{"ETH": true, "USDT": true}, []string{"USDT", "ETH"}},
		{map[string]bool{"OFF": true}, nil},
		{map[string]bool{"USDT": false, "BTC": true}, []string{"BTC"}},
	} {
		if diff := cmp.Diff(tc.want, codes(tc.allow)); diff != "" {
			t.Errorf("listing(%v) (-want +got):\n%s", tc.allow, diff)
		}
	}
	// Kept per allowlist: the same allowlist answers the same encoding
	// without building it again; another allowlist replaces it.
	first, _ := c.Listing(tx, map[string]bool{"BTC": true})
	sets := cache.sets
	again, _ := c.Listing(tx, map[string]bool{"BTC": true, "USDT": false})
	if cache.sets != sets || string(first) != string(again) {
		t.Errorf("the same allowlist was encoded again")
	}
	if _, err := c.Listing(tx, nil); err != nil || cache.sets != sets+1 {
		t.Errorf("another allowlist kept the earlier answer (%v)", err)
	}
}
