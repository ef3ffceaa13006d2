package simtest_test

import (
	"context"
	"fmt"

	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// recorder stands in for the *testing.T a test passes, so that the examples
// can show what simtest reports.
type recorder struct {
	cleanups []func()
	failed   bool
}

func (r *recorder) Helper()          {}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	fmt.Printf("Errorf: "+format+"\n", args...)
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = true
	fmt.Printf("Fatalf: "+format+"\n", args...)
}

// end runs the cleanups, the last registered first, as the testing package
// does when a test returns.
func (r *recorder) end() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// A test starts its own simulator and client; when it returns, the books are
// checked and the simulator is closed.
func Example() {
	t := new(recorder) // in a test: its *testing.T
	sim, client := simtest.New(t)

	dep, err := client.Deposits.Create(context.Background(), "member-1", deposits.CreateParams{
		Asset: "USDT", Amount: money.MustParse("25", 6), Reference: "bank-transfer-42",
	})
	if err != nil {
		t.Fatalf("deposit: %v", err)
	}
	fmt.Println(dep.Status, simtest.Available(t, sim, "member-1", "USDT"))

	t.end() // the test returns
	fmt.Println("failed:", t.failed)
	// Output:
	// credited 1025.000000
	// failed: false
}

// An invalid option fails the test before it starts.
func ExampleStart_invalidOption() {
	t := new(recorder)
	// member-1 is the fixture member: a second member-1 cannot be created.
	sim := simtest.Start(t, simulator.WithMember(simulator.MemberSeed{ExternalID: "member-1"}))
	fmt.Println(sim == nil, t.failed)
	// Output:
	// Fatalf: simtest: simulator: WithMember "member-1": duplicate_resource: external_member_id "member-1" already exists
	// true true
}
