package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// setWriteQuota sets the merchant-level write quota per minute; 0 removes it.
func (g *gateway) setWriteQuota(tx *kernel.Tx, perMinute int) error {
	if perMinute < 0 {
		return errInvalidRequest("per_minute must be 0 (no quota) or more")
	}
	g.st.gw.Quota.Set(tx, perMinute)
	return nil
}
