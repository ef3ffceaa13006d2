package simulator

import "net/http"

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
