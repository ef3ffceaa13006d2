package simulator

import (
	"fmt"
	"os"
	"strconv"
)

// rulesEnv names the rules a simulator runs its own inputs under:
// unset (or 5), every input all or nothing and a remittance's
// idempotency record swept when its window has passed; 4, the same
// without that sweep, as in the builds before it; 3, a refused business
// request's writes stand, as in the builds before the kernel undid them
// (an id drawn, a challenge used up), with this build's control argument
// checks. It is for the differential walk against such a build
// (.ci/walk), whose answers it reproduces; the inputs are logged with
// those rules, so the recording replays as it ran.
const rulesEnv = "MWALLET_SIM_RULES"

// rulesFromEnv reads rulesEnv.
func rulesFromEnv() (int, error) {
	switch v := os.Getenv(rulesEnv); v {
	case "", strconv.Itoa(sweepRules):
		return sweepRules, nil
	case strconv.Itoa(allOrNothingRules):
		return allOrNothingRules, nil
	case strconv.Itoa(controlRules):
		return controlRules, nil
	default:
		return 0, fmt.Errorf("simulator: %s=%q: the rules are 5 (every input all or nothing, expired remittance idempotency records swept: the default), 4 (the same without that sweep, as builds before) or 3 (a refused business request's writes stand, as builds before that)", rulesEnv, v)
	}
}

// sweepRules is the version of the rules this build runs every input under
// by default: 5, the rules of allOrNothingRules and, in addition, a
// remittance's idempotency record leaves the state when its window (24
// hours) has passed, as every other window store's records do
// (gateway_expiry.go). An input of an earlier build is replayed as it ran:
// the records it made stay, so its recording replays to its digest.
const sweepRules = 5
