package simulator

import (
	"time"
)

// Advance moves the simulator clock forward by d and runs everything that
// falls due on the way (upstream outcomes, webhook retries, expiries), in time
// order.
func (c *Clock) Advance(d time.Duration) {
	c.owner.advance(d)
}
