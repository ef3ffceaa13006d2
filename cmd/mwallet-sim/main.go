// Command mwallet-sim runs the contract simulator of the Merchant Wallet,
// Card, Remittance and QR-Payment service as a standalone HTTP server, for
// integrators who test from another language or process.
//
// Usage:
//
//	mwallet-sim [serve] [flags]
//
// serve (the default command) listens on 127.0.0.1:8080, prints the base
// URL and the credentials, and serves the business API (/v1/...) and the
// control API (/_sim/...) until interrupted (SIGINT or SIGTERM), then stops
// gracefully. Run "mwallet-sim help" for the flags.
//
// Secrets may come from the environment instead of flags:
// MWALLET_SIM_API_KEY, MWALLET_SIM_SIGNING_KEY and MWALLET_SIM_WEBHOOK_SECRET.
//
// By default the simulator clock follows the wall clock (-clock wall), so
// clients that sign with their own clock stay within the signature
// tolerance; POST /_sim/clock still moves it ahead. With -clock manual it
// starts at -start and only moves through the control API.
//
// With -data DIR the simulator keeps its state in DIR: every input is
// logged and synced before it is answered, so a restart on DIR, after a
// stop or a kill -9, continues with everything that was answered. With
// -replay FILE it starts from a recording (GET /_sim/recording, or the file
// a failed simtest test leaves) and reaches the state the recording ended
// in; its clock then stays there unless -clock wall is given.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/mwallet/mwallet-go/simulator"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "mwallet-sim:", err)
		}
		os.Exit(2)
	}
}

// command is one subcommand. ready, when not nil, receives the base URL once
// a server listens (tests use it).
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(baseURL string)) error
}

// commands lists the subcommands; serve is the default.
var commands = map[string]command{
	"serve": {summary: "serve the simulator over HTTP (default)", run: serve},
}

// run dispatches to a subcommand: the first argument when it names one,
// otherwise serve with all the arguments as its flags.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(string)) error {
	name := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if name == "help" {
		usage(stdout)
		return nil
	}
	cmd, ok := commands[name]
	if !ok {
		usage(stderr)
		return fmt.Errorf("unknown command %q", name)
	}
	return cmd.run(ctx, args, stdout, stderr, ready)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: mwallet-sim [command] [flags]")
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "run \"mwallet-sim <command> -h\" for the flags of a command")
}

// serveConfig is what the serve flags set.
type serveConfig struct {
	addr  string
	creds simulator.Credentials
	model string
	env   string
	seed  int64
	clock string
	start string

	data          string
	replay        string
	snapshotEvery int
}

func parseServe(args []string, stderr io.Writer) (serveConfig, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c serveConfig
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "listen address")
	fs.StringVar(&c.creds.ClientID, "client-id", simulator.DefaultClientID, "client id of the fixture Key")
	fs.StringVar(&c.creds.APIKey, "api-key", envOr("MWALLET_SIM_API_KEY", simulator.DefaultAPIKey), "API key of the fixture Key (env MWALLET_SIM_API_KEY)")
	fs.StringVar(&c.creds.SigningKey, "signing-key", envOr("MWALLET_SIM_SIGNING_KEY", simulator.DefaultSigningKey), "signing key of the fixture Key (env MWALLET_SIM_SIGNING_KEY)")
	fs.StringVar(&c.creds.WebhookSecret, "webhook-secret", envOr("MWALLET_SIM_WEBHOOK_SECRET", simulator.DefaultWebhookSecret), "webhook secret (env MWALLET_SIM_WEBHOOK_SECRET)")
	fs.StringVar(&c.creds.MerchantID, "merchant-id", simulator.DefaultMerchantID, "merchant id")
	fs.StringVar(&c.model, "model", string(simulator.PlatformHosted), "custody model: platform_hosted or merchant_hosted")
	fs.StringVar(&c.env, "env", string(simulator.Sandbox), "environment: sandbox or production")
	fs.Int64Var(&c.seed, "seed", 1, "seed of the id generator")
	fs.StringVar(&c.clock, "clock", "wall", "clock: wall (follows real time) or manual (moves only through POST /_sim/clock)")
	fs.StringVar(&c.start, "start", "", "start time of a manual clock, RFC 3339 (default 2026-01-01T00:00:00Z)")
	fs.StringVar(&c.data, "data", "", "keep the state in this directory: a restart continues from it (default: in memory)")
	fs.StringVar(&c.replay, "replay", "", "start from this recording file (GET /_sim/recording); the clock stays where it ends unless -clock wall is given")
	fs.IntVar(&c.snapshotEvery, "snapshot-every", simulator.DefaultSnapshotEvery, "with -data, inputs between snapshots of the state (0: none, a restart replays the whole log)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	clockSet := false
	fs.Visit(func(f *flag.Flag) { clockSet = clockSet || f.Name == "clock" })
	if c.replay != "" && !clockSet {
		c.clock = "manual"
	}
	if c.snapshotEvery < 0 {
		return c, errors.New("-snapshot-every must not be negative")
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	switch simulator.Model(c.model) {
	case simulator.PlatformHosted, simulator.MerchantHosted:
	default:
		return c, fmt.Errorf("-model %q: want platform_hosted or merchant_hosted", c.model)
	}
	switch simulator.Environment(c.env) {
	case simulator.Sandbox, simulator.Production:
	default:
		return c, fmt.Errorf("-env %q: want sandbox or production", c.env)
	}
	if c.clock != "wall" && c.clock != "manual" {
		return c, fmt.Errorf("-clock %q: want wall or manual", c.clock)
	}
	if c.start != "" && c.clock != "manual" {
		return c, errors.New("-start needs -clock manual")
	}
	for name, v := range map[string]string{"-client-id": c.creds.ClientID, "-api-key": c.creds.APIKey, "-signing-key": c.creds.SigningKey, "-merchant-id": c.creds.MerchantID} {
		if strings.TrimSpace(v) == "" {
			return c, fmt.Errorf("%s must not be empty", name)
		}
	}
	return c, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func serve(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(string)) error {
	cfg, err := parseServe(args, stderr)
	if err != nil {
		return err
	}
	opts := []simulator.Option{
		simulator.WithCredentials(cfg.creds),
		simulator.WithModel(simulator.Model(cfg.model)),
		simulator.WithEnvironment(simulator.Environment(cfg.env)),
		simulator.WithSeed(cfg.seed),
	}
	switch {
	case cfg.clock == "wall":
		opts = append(opts, simulator.WithStart(time.Now()))
	case cfg.start != "":
		t, err := time.Parse(time.RFC3339, cfg.start)
		if err != nil {
			return fmt.Errorf("-start: %w", err)
		}
		opts = append(opts, simulator.WithStart(t))
	}
	if cfg.replay != "" {
		rec, err := simulator.ReadRecordingFile(cfg.replay)
		if err != nil {
			return fmt.Errorf("-replay: %w", err)
		}
		opts = append(opts, simulator.WithRecording(rec))
	}
	if cfg.data != "" {
		opts = append(opts, simulator.WithDataDir(cfg.data), simulator.WithSnapshotEvery(cfg.snapshotEvery), simulator.WithDiagnostics(stderr))
	}
	sim, err := simulator.NewHandler(opts...)
	if err != nil {
		return err
	}
	// Close releases the data directory (after a last snapshot).
	defer sim.Close()

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	sim.SetBaseURL(base)
	// OPTIONS * reaches the simulator, which answers it with its envelope.
	srv := &http.Server{Handler: sim, ReadHeaderTimeout: 10 * time.Second, DisableGeneralOptionsHandler: true}

	printBanner(stdout, base, sim.Credentials(), cfg.clock)
	if cfg.data != "" {
		fmt.Fprintf(stdout, "  data            %s\n", cfg.data)
	}
	if cfg.replay != "" {
		fmt.Fprintf(stdout, "  replayed        %s\n", cfg.replay)
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if cfg.clock == "wall" {
		go followWallClock(ctx, sim)
	}
	if ready != nil {
		ready(base)
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	fmt.Fprintln(stdout, "mwallet-sim stopped")
	return nil
}

// followWallClock moves the simulator clock up to the wall clock every half
// second, running whatever falls due on the way.
func followWallClock(ctx context.Context, sim *simulator.Simulator) {
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if d := now.Sub(sim.Clock.Now()); d > 0 {
				sim.Clock.Advance(d)
			}
		}
	}
}

// printBanner prints the base URL and the credentials. They are the
// simulator's own test values; printing them is the point.
func printBanner(w io.Writer, base string, c simulator.Credentials, clock string) {
	fmt.Fprintf(w, "mwallet-sim listening on %s\n", base)
	fmt.Fprintf(w, "  environment     %s\n", c.Environment)
	fmt.Fprintf(w, "  model           %s\n", c.Model)
	fmt.Fprintf(w, "  merchant_id     %s\n", c.MerchantID)
	fmt.Fprintf(w, "  client_id       %s\n", c.ClientID)
	fmt.Fprintf(w, "  api_key         %s\n", c.APIKey)
	fmt.Fprintf(w, "  signing_key     %s\n", c.SigningKey)
	fmt.Fprintf(w, "  webhook_secret  %s\n", c.WebhookSecret)
	fmt.Fprintf(w, "  clock           %s\n", clock)
	fmt.Fprintf(w, "control API: %s/_sim/credentials, /_sim/clock, /_sim/members, /_sim/faults, /_sim/requests, ...\n", base)
}
