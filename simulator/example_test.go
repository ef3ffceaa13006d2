package simulator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator"
)

// A test starts its own simulator, drives it through the SDK, and ends by
// checking that the books balance.
func Example() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client()
	ctx := context.Background()

	dep, err := client.Deposits.Create(ctx, "member-1", deposits.CreateParams{
		Asset: "USDT", Amount: money.MustParse("25", 6), Reference: "order-1001",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	available, locked, err := sim.Members.Balance("member-1", "USDT")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(dep.ID, dep.Response.StatusCode)
	fmt.Println("available", available, "locked", locked)
	fmt.Println("ledger:", sim.CheckLedger())
	fmt.Println("invariants:", sim.CheckInvariants())
	// Output:
	// dep_order-1001 201
	// available 1025.000000 locked 0.000000
	// ledger: <nil>
	// invariants: <nil>
}

// A drop_after fault executes the request and then closes the connection
// without an answer; the SDK retries with the same idempotency key and gets
// the stored answer as a replay, so the member is credited once.
func ExampleFaultsControl_Inject() {
	sim := simulator.MustNew()
	defer sim.Close()
	client := sim.Client(mwallet.WithRetryBackoff(time.Millisecond, 10*time.Millisecond))

	_ = sim.Faults.Inject(simulator.Fault{Method: "POST", Path: "/v1/deposits", Kind: simulator.FaultDropAfter})
	dep, err := client.Deposits.Create(context.Background(), "member-1", deposits.CreateParams{
		Asset: "USDT", Amount: money.MustParse("5", 6), Reference: "order-1002",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	available, _, err := sim.Members.Balance("member-1", "USDT")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("replayed:", dep.Response.Replayed)
	fmt.Println("available:", available)
	// Output:
	// replayed: true
	// available: 1005.000000
}

// The control API drives the simulator from any language: here, advancing
// the clock.
func ExampleSimulator_control() {
	sim := simulator.MustNew()
	defer sim.Close()

	resp, err := http.Post(sim.URL()+"/_sim/clock", "application/json", strings.NewReader(`{"advance_seconds": 90}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var clock struct {
		Now string `json:"now"`
	}
	_ = json.Unmarshal(b, &clock)
	fmt.Println(resp.StatusCode, clock.Now)
	// Output:
	// 200 2026-01-01T00:01:30Z
}
