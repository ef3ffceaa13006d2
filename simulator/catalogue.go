package simulator

import (
	"encoding/json"
	"net/http"

	assetcat "github.com/mwallet/mwallet-go/simulator/internal/catalogue"
	"github.com/mwallet/mwallet-go/simulator/internal/image"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// catalogue is the asset catalogue (internal/catalogue) with the kernel
// cell that keeps its encoded GET /v1/assets answer (assetcat.CellCache).
//
// The digest's projection (legacyCatalogue, image_legacy.go) writes it as
// the three Simulator fields it replaced, so digests and recordings of
// earlier builds are unchanged; a snapshot holds only its cache, a kernel
// cell.
type catalogue struct {
	*assetcat.Catalogue
	cache assetcat.CellCache
}

// newCatalogue returns an empty catalogue and registers its cache's cell.
func newCatalogue(k *kernel.Kernel) catalogue {
	cache := assetcat.NewCellCache(k)
	return catalogue{Catalogue: assetcat.New(cache), cache: cache}
}

// legacyCatalogue is the catalogue as the state image of recordings of
// versions 1 and 2 held it.
type legacyCatalogue struct {
	Assets []*asset
	ByCode map[string]*asset
	Cache  *image.AssetsCache
}

// asset and network are the catalogue's entries as the state image names
// them: the digest's field names are the types' names, so these stay in
// this package, same-named copies of assetcat.Asset and assetcat.Network.
type asset struct {
	Code         string
	Name         string
	LedgerScale  int
	DisplayScale int
	Enabled      bool
	Networks     []network
}

type network assetcat.Network

func (c *catalogue) legacy(tx *kernel.Tx) legacyCatalogue {
	out := legacyCatalogue{ByCode: map[string]*asset{}}
	for _, a := range c.All() {
		la := &asset{Code: a.Code, Name: a.Name, LedgerScale: a.LedgerScale, DisplayScale: a.DisplayScale, Enabled: a.Enabled}
		if a.Networks != nil {
			la.Networks = make([]network, len(a.Networks))
			for i, n := range a.Networks {
				la.Networks[i] = network(n)
			}
		}
		out.Assets = append(out.Assets, la)
		out.ByCode[a.Code] = la
	}
	if key, body, ok := c.cache.Get(tx); ok {
		out.Cache = &image.AssetsCache{Key: key, Body: json.RawMessage(body)}
	}
	return out
}

// assetsEndpoint is GET /v1/assets: every enabled asset of the catalogue
// in st, narrowed by the merchant's allowlist when it has one
// (assetcat.Catalogue.Listing).
func assetsEndpoint(st *simState) endpoint {
	return endpoint{Method: http.MethodGet, Pattern: "/v1/assets", Scope: "merchant:read", Handle: func(c *rc) (int, any, error) {
		b, err := st.cat.Listing(c.Tx, st.merchant.AssetAllowlist(c.Tx))
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, b, nil
	}}
}
