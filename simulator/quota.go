package simulator

import (
	"net/http"
	"strconv"
	"time"

	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// takeWriteQuota applies the merchant-level write quota (windows.Quota) to
// a business write that passed authentication and its signature: with a
// quota of n per minute, the n+1th write within a minute of the simulator
// clock answers 429 rate_limited with retry_after and Retry-After (seconds
// until the oldest counted write leaves the window). Refused writes are not
// counted, reads never are, and the contract shows no number: the quota is
// off (0) until set.
func (g *gateway) takeWriteQuota(tx *kernel.Tx, r *http.Request, now time.Time) *apiError {
	if !pipeline.IsWrite(r.Method) {
		return nil
	}
	wait, ok := g.st.gw.Quota.Take(tx, now)
	if ok {
		return nil
	}
	ae := newErr("rate_limited", "the merchant-level write quota is exhausted").With("retry_after", wait)
	ae.Header = map[string]string{"Retry-After": strconv.FormatInt(wait, 10)}
	return ae
}

// setWriteQuota sets the merchant-level write quota per minute; 0 removes it.
func (g *gateway) setWriteQuota(tx *kernel.Tx, perMinute int) error {
	if perMinute < 0 {
		return errInvalidRequest("per_minute must be 0 (no quota) or more")
	}
	g.st.gw.Quota.Set(tx, perMinute)
	return nil
}
