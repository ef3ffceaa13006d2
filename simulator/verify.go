package simulator

import (
	"os"
	"testing"

	"github.com/mwallet/mwallet-go/simulator/internal/image"
)

// Verify mode: the kernel's proof that every input is all or nothing
// (internal/kernel, step.go). Each step (a business request's handler, a
// control transition, a timer falling due) is checked when it is refused:
// the kernel undoes its writes, then compares every table's checksum, and
// the image of the state held outside the tables (outsideImage), with what
// they were when the step began. A difference is a violation: the kernel
// panics with it where it happened (a business request is answered 500
// api_error naming the step), and CheckInvariants (and GET
// /_sim/invariants) lists it, so that a test that reaches one fails.
//
// It is on in every test of the repository (testing.Testing) and wherever
// MWALLET_SIM_VERIFY=1 (the CI walk); MWALLET_SIM_VERIFY=0 turns it off.
// In verify mode a table of the state written outside a step panics too:
// a route that forgets its step fails its first test.

// verifyEnv is the variable that turns verify mode on (1) or off (0).
const verifyEnv = "MWALLET_SIM_VERIFY"

// verifyMode reports whether a new simulator runs in verify mode.
func verifyMode() bool {
	switch os.Getenv(verifyEnv) {
	case "1":
		return true
	case "0":
		return false
	}
	return testing.Testing()
}

// outsideImage is the image of the state held outside the kernel's
// tables (image.Outside): what a refused step must leave as it was. It
// leaves out what the state image skips (legacyRules.Skip: the clock's
// owner).
func outsideImage(st *simState) func() []byte {
	return image.Outside(st, legacyRules.Skip)
}
