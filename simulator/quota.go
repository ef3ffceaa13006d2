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
func (g *gateway) takeWriteQuota(tx *kernel.Tx, r *http.Request, now time.Time) *apiError {
	ws := g.st.gw
	quota := ws.writeQuota.Get(tx)
	if quota <= 0 || !isWrite(r.Method) {
		return nil
	}
	w := ws.writes.Get(tx)
	cut := 0
	for cut < w.Times.Len() && !now.Before(w.Times.At(cut).Add(writeQuotaWindow)) {
		cut++
	}
	if cut > 0 {
		w.Times, w.Held = w.Times.From(cut), true
		ws.writes.Set(tx, w)
	}
	if w.Times.Len() >= quota {
		wait := int64((w.Times.At(0).Add(writeQuotaWindow).Sub(now) + time.Second - 1) / time.Second)
		if wait < 1 {
			wait = 1
		}
		ae := newErr("rate_limited", "the merchant-level write quota is exhausted").With("retry_after", wait)
		ae.Header = map[string]string{"Retry-After": strconv.FormatInt(wait, 10)}
		return ae
	}
	w.Times, w.Held = w.Times.Append(now), true
	ws.writes.Set(tx, w)
	return nil
}

// setWriteQuota sets the merchant-level write quota per minute; 0 removes it.
func (g *gateway) setWriteQuota(tx *kernel.Tx, perMinute int) error {
	if perMinute < 0 {
		return errInvalidRequest("per_minute must be 0 (no quota) or more")
	}
	ws := g.st.gw
	ws.writeQuota.Set(tx, perMinute)
	w := ws.writes.Get(tx)
	if perMinute == 0 {
		ws.writes.Set(tx, windowRow{})
	} else if w.Times.Len() > perMinute {
		ws.writes.Set(tx, windowRow{Times: w.Times.From(w.Times.Len() - perMinute), Held: true})
	}
	return nil
}
