// Command deposits declares an on-chain deposit into a member's balance,
// posts it a second time to show that the reference protects it, and reads
// it back.
//
// The reference is the deposit's permanent identity: derive it from your
// own record (here the chain, transaction and output index) and never
// generate a new one for a retry.
//
//	go run ./examples/deposits
//
// Against a real environment (platform_hosted merchants only, with the
// restricted deposits:write scope approved) the same calls credit a real
// member; use a sandbox:
//
//	export MWALLET_CLIENT_ID=... MWALLET_API_KEY=... MWALLET_SIGNING_KEY=... MWALLET_MEMBER=...
//	go run ./examples/deposits -base-url https://sandbox.example -amount 1 -txid 0xabc...
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/examples/internal/exenv"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	exenv.Main(func(args []string) error { return run(ctx, os.Stdout, args) })
}

func run(ctx context.Context, stdout io.Writer, args []string) error {
	var asset, amount, network, txid string
	var vout int
	flags, err := exenv.Parse("deposits", stdout, args, func(fs *flag.FlagSet) {
		fs.StringVar(&asset, "asset", "USDT", "asset code")
		fs.StringVar(&amount, "amount", "250.5", "amount, at most the asset's ledger_scale decimals")
		fs.StringVar(&network, "network", "TRON", "chain network code")
		fs.StringVar(&txid, "txid", "0x9f2c5be1", "chain transaction id")
		fs.IntVar(&vout, "vout", 0, "output index of the deposit in the transaction")
	})
	if err != nil {
		return err
	}
	env, err := flags.Open()
	if err != nil {
		return err
	}
	defer env.Close()
	client, member := env.Client, env.Member

	// Amounts are parsed at the asset's ledger_scale from the catalogue; a
	// value needing rounding is refused, never rounded.
	amt, err := client.ParseAmount(ctx, asset, amount)
	if err != nil {
		return err
	}
	p := deposits.CreateParams{
		Asset: asset, Amount: amt, Network: network, TxID: txid,
		Reference: fmt.Sprintf("%s:%s:%d", network, txid, vout), // stable: the same chain output, the same reference
	}

	first, err := client.Deposits.Create(ctx, member, p)
	if err != nil {
		return fmt.Errorf("deposit: %w", err)
	}
	fmt.Fprintf(stdout, "deposit:  %s %s %s %s (HTTP %d, replayed: %v)\n",
		first.ID, first.Status, first.Amount, first.Asset, first.Response.StatusCode, first.Replayed)

	// Posting the same reference again, even days later and with a new
	// idempotency key, credits nothing: 200 with the first posting's values.
	again, err := client.Deposits.Create(ctx, member, p)
	if err != nil {
		return fmt.Errorf("deposit again: %w", err)
	}
	fmt.Fprintf(stdout, "again:    %s (HTTP %d, replayed: %v): nothing credited twice\n",
		again.ID, again.Response.StatusCode, again.Replayed)

	got, err := client.Deposits.Get(ctx, p.Reference)
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	fmt.Fprintf(stdout, "read:     %s %s %s for member %s on %s\n", got.ID, got.Amount, got.Asset, got.ExternalMemberID, got.Network)

	if env.Simulated() {
		available, _, err := env.Sim.Members.Balance(member, asset)
		if err != nil {
			return fmt.Errorf("balance: %w", err)
		}
		if err := env.Sim.CheckLedger(); err != nil {
			return fmt.Errorf("ledger: %w", err)
		}
		if err := env.Sim.CheckInvariants(); err != nil {
			return fmt.Errorf("invariants: %w", err)
		}
		fmt.Fprintf(stdout, "balance:  %s %s available; ledger balanced\n", available, got.Asset)
	}
	return nil
}
