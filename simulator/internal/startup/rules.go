package startup

import (
	"fmt"
	"strconv"

	"github.com/mwallet/mwallet-go/simulator/internal/inputlog"
)

// RulesEnv names the rules a simulator runs its own inputs under:
// unset (or 5), every input all or nothing and a remittance's
// idempotency record swept when its window has passed; 4, the same
// without that sweep, as in the builds before it; 3, a refused business
// request's writes stand, as in the builds before the kernel undid them
// (an id drawn, a challenge used up), with this build's control argument
// checks. It is for the differential walk against such a build
// (.ci/walk), whose answers it reproduces; the inputs are logged with
// those rules, so the recording replays as it ran.
const RulesEnv = "MWALLET_SIM_RULES"

// SweepRules is the version of the rules this build runs every input under
// by default: 5, the rules of inputlog.AllOrNothingRules and, in addition,
// a remittance's idempotency record leaves the state when its window (24
// hours) has passed, as every other window store's records do. An input
// of an earlier build is replayed as it ran: the records it made stay, so
// its recording replays to its digest.
const SweepRules = 5

// Rules reads v, the value of RulesEnv ("" when unset), as the version of
// the rules it names.
func Rules(v string) (int, error) {
	switch v {
	case "", strconv.Itoa(SweepRules):
		return SweepRules, nil
	case strconv.Itoa(inputlog.AllOrNothingRules):
		return inputlog.AllOrNothingRules, nil
	case strconv.Itoa(inputlog.ControlRules):
		return inputlog.ControlRules, nil
	default:
		return 0, fmt.Errorf("simulator: %s=%q: the rules are 5 (every input all or nothing, expired remittance idempotency records swept: the default), 4 (the same without that sweep, as builds before) or 3 (a refused business request's writes stand, as builds before that)", RulesEnv, v)
	}
}
