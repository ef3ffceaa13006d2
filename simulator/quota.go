package simulator

import (
	"net/http"
	"strconv"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// writeQuotaWindow is the window of the merchant-level write quota.
const writeQuotaWindow = time.Minute

// takeWriteQuota applies the merchant-level write quota to a business write
// that passed authentication and its signature: with a quota of n per
// minute, the n+1th write within a minute of the simulator clock answers 429
// rate_limited with retry_after and Retry-After (seconds until the oldest
// counted write leaves the window). Refused writes are not counted, reads
// never are, and the contract shows no number: the quota is off (0) until
// set.
func (g *gateway) takeWriteQuota(r *http.Request, now time.Time) *apiError {
	ws := g.st.gw
	if ws.writeQuota <= 0 || !isWrite(r.Method) {
		return nil
	}
	for len(ws.writes) > 0 && !now.Before(ws.writes[0].Add(writeQuotaWindow)) {
		ws.writes = ws.writes[1:]
	}
	if len(ws.writes) >= ws.writeQuota {
		wait := int64((ws.writes[0].Add(writeQuotaWindow).Sub(now) + time.Second - 1) / time.Second)
		if wait < 1 {
			wait = 1
		}
		ae := newErr("rate_limited", "the merchant-level write quota is exhausted").With("retry_after", wait)
		ae.Header = map[string]string{"Retry-After": strconv.FormatInt(wait, 10)}
		return ae
	}
	ws.writes = append(ws.writes, now)
	return nil
}

// setWriteQuota sets the merchant-level write quota per minute; 0 removes it.
func (g *gateway) setWriteQuota(tx *kernel.Tx, perMinute int) error {
	if perMinute < 0 {
		return errInvalidRequest("per_minute must be 0 (no quota) or more")
	}
	g.st.gw.writeQuota = perMinute
	if perMinute == 0 {
		g.st.gw.writes = nil
	} else if len(g.st.gw.writes) > perMinute {
		g.st.gw.writes = g.st.gw.writes[len(g.st.gw.writes)-perMinute:]
	}
	return nil
}
