package kernel

import (
	"os"
	"testing"
)

// Verify mode (SetVerify, step.go) is on in every test of the repository
// (testing.Testing) and wherever MWALLET_SIM_VERIFY=1 (the CI walk);
// MWALLET_SIM_VERIFY=0 turns it off. Each step is checked when it is
// refused: the kernel undoes its writes, then compares every table's
// checksum, and the image of the state held outside the tables
// (SetOutside), with what they were when the step began. A difference is a
// violation: the kernel panics with it where it happened (a business
// request is answered 500 api_error naming the step), and Violations lists
// it (the simulator's CheckInvariants and GET /_sim/invariants), so that a
// test that reaches one fails. In verify mode a table of the state written
// outside a step panics too: a route that forgets its step fails its first
// test.

// VerifyEnv is the environment variable that turns verify mode on (1) or
// off (0).
const VerifyEnv = "MWALLET_SIM_VERIFY"

// VerifyMode reports whether a new simulator runs in verify mode: as
// VerifyEnv says, and otherwise only inside a test binary.
func VerifyMode() bool {
	switch os.Getenv(VerifyEnv) {
	case "1":
		return true
	case "0":
		return false
	}
	return testing.Testing()
}
