package catalogue

import "github.com/mwallet/mwallet-go/simulator/internal/kernel"

// CacheRow is the cached GET /v1/assets answer (Set: there is one), the
// row of the kernel cell catalogue.assets_cache.
type CacheRow struct {
	Key  string
	Body string
	Set  bool
}

// CellCache is the catalogue's Cache in its kernel cell.
type CellCache struct{ cell *kernel.Cell[CacheRow] }

var _ Cache = CellCache{}

// NewCellCache registers the cache's cell, catalogue.assets_cache, with k.
func NewCellCache(k *kernel.Kernel) CellCache {
	return CellCache{kernel.NewCell(k, "catalogue.assets_cache", CacheRow{})}
}

// Get returns the kept answer; ok is false when none is kept.
func (c CellCache) Get(tx *kernel.Tx) (key, body string, ok bool) {
	r := c.cell.Get(tx)
	return r.Key, r.Body, r.Set
}

// Set keeps body as the answer for key.
func (c CellCache) Set(tx *kernel.Tx, key, body string) {
	c.cell.Set(tx, CacheRow{Key: key, Body: body, Set: true})
}
