// Command mwallet-sim runs the contract simulator of the Merchant Wallet,
// Card, Remittance and QR-Payment service as a standalone HTTP server, for
// integrators who test from another language or process, and drives a
// running one.
//
// Install it once, then run the binary (a `go run` killed from outside can
// leave the server it started running on its own):
//
//	go install ./cmd/mwallet-sim
//	mwallet-sim                  # serve on 127.0.0.1:8080
//	mwallet-sim help             # the commands
//	mwallet-sim help serve       # the flags of one command (or: mwallet-sim serve -h)
//
// Usage:
//
//	mwallet-sim [command] [flags]
//
// The commands:
//
//	serve     serve the simulator over HTTP (the default command)
//	listen    forward a running simulator's webhook deliveries to a local URL
//	trigger   drive a running simulator until it emits an event
//	repair    repair a damaged -data directory: set the damaged log aside and cut it
//	help      list the commands, or show one command's usage
//
// serve listens on 127.0.0.1:8080, prints the base URL, the dashboard URL and
// the credentials, and serves the business API (/v1/...) and the control API
// (/_sim/...) until interrupted. SIGINT or SIGTERM stops it gracefully:
// requests in flight finish (10 s at most), a line says so, and the exit
// status is 0; a second signal ends it at once.
//
// Secrets may come from the environment instead of flags:
// MWALLET_SIM_API_KEY, MWALLET_SIM_SIGNING_KEY and MWALLET_SIM_WEBHOOK_SECRET.
//
// With -tls it serves HTTPS, offering HTTP/2 and HTTP/1.1 (-http2=false for
// HTTP/1.1 only), on a self-signed certificate made at start for
// localhost, 127.0.0.1, ::1 and the -addr host; the banner prints the file
// holding it (removed at exit) and its SHA-256 fingerprint. -cert and -key
// serve a certificate of your own instead.
//
// By default the simulator clock follows the wall clock (-clock wall), so
// clients that sign with their own clock stay within the signature
// tolerance; POST /_sim/clock still moves it ahead. With -clock manual it
// starts at -start and only moves through the control API.
//
// With -data DIR the simulator keeps its state in DIR: every input is
// logged and synced before it is answered, so a restart on DIR, after a
// stop or a kill -9, continues with everything that was answered. A
// restart cuts only what a crash leaves (a last frame cut short); other
// damage, or a directory that is not a simulator's, stops it with exit
// status 1, a message naming the file and offset, and no byte changed;
// "mwallet-sim repair DIR" (or -data-repair) saves the damaged log aside
// and cuts it. With
// -replay FILE it starts from a recording (GET /_sim/recording, or the file
// a failed simtest test leaves) and reaches the state the recording ended
// in; its clock then stays there unless -clock wall is given.
//
// Exit status: 0 on success and after help; 2 for a usage error (an unknown
// command or flag, a missing or invalid argument), which prints one line
// naming the mistake and one line pointing at "mwallet-sim help COMMAND";
// 1 for any other error.
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
	os.Exit(mainExit(os.Args[1:], os.Stdout, os.Stderr))
}

// shutdownTimeout bounds how long serve waits for requests in flight once
// told to stop.
const shutdownTimeout = 10 * time.Second

// mainExit runs the command line with SIGINT and SIGTERM cancelling its
// context, and returns the exit status.
func mainExit(args []string, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		select {
		case sig := <-sigs:
			// A second signal takes the default action: the process ends.
			signal.Stop(sigs)
			fmt.Fprintf(stdout, "mwallet-sim: %s received, stopping gracefully (requests in flight finish; a second signal stops at once)\n", signalName(sig))
			cancel()
		case <-ctx.Done():
		}
	}()
	return exitStatus(run(ctx, args, stdout, stderr, nil), stderr)
}

func signalName(sig os.Signal) string {
	if sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	if sig == os.Interrupt {
		return "SIGINT"
	}
	return sig.String()
}

// exitStatus prints err and maps it to the exit status: 0 for none (and
// for a help request), 2 for a usage error, 1 for the rest.
func exitStatus(err error, stderr io.Writer) int {
	var ue *usageError
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		// One line for the mistake, one for where the usage is.
		prefix, hint := "mwallet-sim:", `Run "mwallet-sim help" for the commands.`
		if ue.command != "" {
			prefix = "mwallet-sim " + ue.command + ":"
			hint = `Run "mwallet-sim help ` + ue.command + `" for its usage and flags.`
		}
		fmt.Fprintln(stderr, prefix, strings.ReplaceAll(ue.Error(), "\n", " "))
		fmt.Fprintln(stderr, hint)
		return 2
	default:
		fmt.Fprintln(stderr, "mwallet-sim:", err)
		return 1
	}
}

// usageError is a mistake in the command line: exit status 2. command
// names the subcommand whose flags or arguments are wrong (empty for a
// mistake in the command name itself); the hint printed with the error
// points at that command's usage.
type usageError struct {
	err     error
	command string
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usageErr marks err (from parsing a command's flags and arguments) as a
// usage error; nil and flag.ErrHelp pass unchanged.
func usageErr(err error) error {
	var ue *usageError
	if err == nil || errors.Is(err, flag.ErrHelp) || errors.As(err, &ue) {
		return err
	}
	return &usageError{err: err}
}

// command is one subcommand. A command registers itself in its file's init:
//
//	func init() {
//		commands["recipes"] = command{
//			summary:  "list the documented error recipes of a running simulator",
//			synopsis: "mwallet-sim recipes [flags]",
//			run:      recipes,
//		}
//	}
//
// run parses its flags from args with a flag.FlagSet writing to stderr (see
// newFlagSet) and returns usageErr(err) for what it refuses in its flags
// and arguments (exit status 2), flag.ErrHelp for -h (exit status 0), and
// any other error for a failure (exit status 1). "mwallet-sim help NAME" and
// "mwallet-sim NAME -h" both run it with -h and stderr set to stdout, so
// its usage goes to stdout. ready, when not nil, receives the base URL
// once a server listens (tests use it).
type command struct {
	// summary is the command's line in "mwallet-sim help".
	summary string
	// synopsis is the first line of the command's usage, for example
	// "mwallet-sim listen -forward-to URL [flags]" (newFlagSet prints it).
	synopsis string
	run      func(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(baseURL string)) error
}

// commands lists the subcommands; serve is the default.
var commands = map[string]command{}

func init() {
	commands["serve"] = command{summary: "serve the simulator over HTTP (the default command)", synopsis: serveSynopsis, run: serve}
}

const serveSynopsis = "mwallet-sim [serve] [flags]"

// newFlagSet returns the flag set of a command. On -h the usage (synopsis,
// description, flags) goes to stderr, which help requests point at stdout.
// A parse error is only returned, not printed with the usage: exitStatus
// prints it as one line with a hint line.
func newFlagSet(name, synopsis, description string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	failed := &parseFailure{}
	fs.SetOutput(failed)
	fs.Usage = func() {
		if failed.seen {
			// The flag package prints a parse error before calling Usage;
			// that error is returned by Parse and reported once, briefly.
			failed.seen = false
			return
		}
		fs.SetOutput(stderr)
		defer fs.SetOutput(failed)
		fmt.Fprintln(stderr, "usage:", synopsis)
		if description != "" {
			fmt.Fprintln(stderr)
			fmt.Fprintln(stderr, description)
		}
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "flags:")
		fs.PrintDefaults()
	}
	return fs
}

// parseFailure is a flag set's output outside of help: the flag package
// writes a parse error there before calling Usage, and parseFailure only
// notes it so that Usage stays quiet.
type parseFailure struct{ seen bool }

func (p *parseFailure) Write(b []byte) (int, error) {
	p.seen = true
	return len(b), nil
}

// run dispatches to a subcommand: the first argument when it names one,
// otherwise serve with all the arguments as its flags.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(string)) error {
	if len(args) == 0 {
		return commands["serve"].run(ctx, nil, stdout, stderr, ready)
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if args[0] != "help" || len(args) == 1 {
			usage(stdout)
			return nil
		}
		cmd, ok := commands[args[1]]
		if !ok {
			return usageErr(fmt.Errorf(`help: unknown command %q`, args[1]))
		}
		if len(args) > 2 {
			return usageErr(errors.New("help takes one command name"))
		}
		return cmd.run(ctx, []string{"-h"}, stdout, stdout, nil)
	}
	name := "serve"
	if !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	cmd, ok := commands[name]
	if !ok {
		return usageErr(fmt.Errorf(`unknown command %q`, name))
	}
	if wantsHelp(args) {
		stderr = stdout // the usage asked for goes to stdout
	}
	err := cmd.run(ctx, args, stdout, stderr, ready)
	var ue *usageError
	if errors.As(err, &ue) && ue.command == "" {
		ue.command = name
	}
	return err
}

// wantsHelp reports whether args ask for help (-h, -help, --help) before
// the end of the flags.
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--h", "--help":
			return true
		}
	}
	return false
}

// usage lists the commands, one line each.
func usage(w io.Writer) {
	fmt.Fprintln(w, "mwallet-sim runs the contract simulator of the Merchant Wallet, Card, Remittance")
	fmt.Fprintln(w, "and QR-Payment service over HTTP, and drives a running one.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: mwallet-sim [command] [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, "  %-9s %s\n", "help", "list the commands, or show one command's usage")
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "mwallet-sim help COMMAND" or "mwallet-sim COMMAND -h" for a command's flags.`)
	fmt.Fprintln(w, `Without a command it serves: "mwallet-sim -addr 127.0.0.1:9090" is "mwallet-sim serve -addr 127.0.0.1:9090".`)
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
	// HTTPS (tls.go)
	tls      bool
	http2    bool
	certFile string
	keyFile  string

	data          string
	dataRepair    bool
	replay        string
	replayPartial bool
	snapshotEvery int

	// The caps of the window stores (simulator.WithMaxNonces, ...).
	maxNonces, maxIdempotencyKeys, maxChallenges int

	guard guardConfig // the control API's exposure (guard.go)
}

// serveDescription is the paragraph of "mwallet-sim help serve".
const serveDescription = `Serves the business API (/v1/...), the control API (/_sim/...) and the
dashboard (/_sim/ui/) until SIGINT or SIGTERM, then stops gracefully:
requests in flight finish (10 s at most) and the exit status is 0.`

// parseServe parses the serve flags. A new serve flag is one line here (its
// help text shows in "mwallet-sim help serve"), a field of serveConfig and,
// when its value can be wrong, a check below returning an error (a usage
// error, exit status 2).
func parseServe(args []string, stderr io.Writer) (c serveConfig, err error) {
	defer func() { err = usageErr(err) }()
	fs := newFlagSet("serve", serveSynopsis, serveDescription, stderr)
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
	fs.BoolVar(&c.tls, "tls", false, "serve HTTPS with a self-signed certificate made at start (its file and SHA-256 are printed), or -cert/-key")
	fs.BoolVar(&c.http2, "http2", true, "with -tls, offer HTTP/2 as well as HTTP/1.1")
	fs.StringVar(&c.certFile, "cert", "", "with -tls, PEM certificate file to serve instead of a self-signed one")
	fs.StringVar(&c.keyFile, "key", "", "with -tls, PEM private key file of -cert")
	fs.StringVar(&c.data, "data", "", "keep the state in this directory: a restart continues from it (default: in memory)")
	fs.BoolVar(&c.dataRepair, "data-repair", false, "with -data, repair a damaged directory before starting (as mwallet-sim repair DIR: the damaged log is saved aside, then cut)")
	fs.StringVar(&c.replay, "replay", "", "start from this recording file (GET /_sim/recording); the clock stays where it ends unless -clock wall is given")
	fs.BoolVar(&c.replayPartial, "replay-partial", false, "with -replay, replay a recording cut short (no end line): the state after its inputs, unchecked, and the dashboard says so")
	fs.IntVar(&c.snapshotEvery, "snapshot-every", simulator.DefaultSnapshotEvery, "with -data, inputs between snapshots of the state (0: none, a restart replays the whole log)")
	fs.IntVar(&c.maxNonces, "max-nonces", simulator.DefaultMaxNonces, "cap of the nonce store: consumed nonces refused at once (5 minutes each); a signed write is refused while it is full (also on an existing -data or -replay)")
	fs.IntVar(&c.maxIdempotencyKeys, "max-idempotency-keys", simulator.DefaultMaxIdempotencyKeys, "cap of the idempotency store: keys kept with their answers (24 hours each); a write with a new key is refused while it is full (also on an existing -data or -replay)")
	fs.IntVar(&c.maxChallenges, "max-step-up-challenges", simulator.DefaultMaxStepUpChallenges, "cap of the step-up challenge store: live challenges (5 minutes each) (also on an existing -data or -replay)")
	addGuardFlags(fs, &c.guard)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	http2Set, clockSet := false, false
	fs.Visit(func(f *flag.Flag) {
		http2Set = http2Set || f.Name == "http2"
		clockSet = clockSet || f.Name == "clock"
	})
	if err := checkTLSFlags(c, http2Set); err != nil {
		return c, err
	}
	if c.replay != "" && !clockSet {
		c.clock = "manual"
	}
	if c.replayPartial && c.replay == "" {
		return c, errors.New("-replay-partial needs -replay")
	}
	if c.dataRepair && c.data == "" {
		return c, errors.New("-data-repair needs -data")
	}
	if c.snapshotEvery < 0 {
		return c, errors.New("-snapshot-every must not be negative")
	}
	for name, v := range map[string]int{"-max-nonces": c.maxNonces, "-max-idempotency-keys": c.maxIdempotencyKeys, "-max-step-up-challenges": c.maxChallenges} {
		if v < 1 {
			return c, fmt.Errorf("%s must be at least 1", name)
		}
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
	if err := checkControlToken(controlToken(c.guard.token)); err != nil {
		return c, err
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
		simulator.WithMaxNonces(cfg.maxNonces),
		simulator.WithMaxIdempotencyKeys(cfg.maxIdempotencyKeys),
		simulator.WithMaxStepUpChallenges(cfg.maxChallenges),
	}
	opts = append(opts, cfg.guard.options(cfg.addr)...)
	switch {
	case cfg.clock == "wall":
		opts = append(opts, simulator.WithWallClock())
	case cfg.start != "":
		t, err := time.Parse(time.RFC3339, cfg.start)
		if err != nil {
			return usageErr(fmt.Errorf("-start: %w", err))
		}
		opts = append(opts, simulator.WithStart(t))
	}
	var rec *simulator.Recording
	if cfg.replay != "" {
		if rec, err = readReplay(cfg.replay, cfg.replayPartial); err != nil {
			return fmt.Errorf("-replay: %w", err)
		}
		opts = append(opts, simulator.WithRecording(rec))
	}
	if cfg.data != "" {
		opts = append(opts, simulator.WithDataDir(cfg.data), simulator.WithSnapshotEvery(cfg.snapshotEvery), simulator.WithDiagnostics(stderr))
		if cfg.dataRepair {
			opts = append(opts, simulator.WithDataRepair())
		}
	}
	sim, err := simulator.NewHandler(opts...)
	if err != nil {
		return err
	}
	// Close releases the data directory (after a last snapshot).
	defer sim.Close()

	var tlsSet *tlsSetup
	if cfg.tls {
		if tlsSet, err = loadTLS(cfg); err != nil {
			return err
		}
		defer tlsSet.close()
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("%w (another mwallet-sim may still be running there; -addr 127.0.0.1:0 picks a free port)", err)
		}
		return err
	}
	if err := cfg.guard.checkExposure(ln, cfg.addr); err != nil {
		_ = ln.Close()
		return err
	}
	plain := ln
	base := "http://" + ln.Addr().String()
	// OPTIONS * reaches the simulator, which answers it with its envelope.
	srv := &http.Server{Handler: simulator.LogExchanges(sim), ReadHeaderTimeout: 10 * time.Second, DisableGeneralOptionsHandler: true}
	if tlsSet != nil {
		base = "https://" + ln.Addr().String()
		ln = tlsSet.serve(srv, ln)
	}
	sim.SetBaseURL(base)

	printBanner(stdout, base, sim.Credentials(), cfg.clock, cfg.guard.exposure(plain), sim.Stats())
	if tlsSet != nil {
		tlsSet.print(stdout)
	}
	if cfg.data != "" {
		fmt.Fprintf(stdout, "  data            %s\n", cfg.data)
	}
	if cfg.replay != "" {
		fmt.Fprintf(stdout, "  replayed        %s\n", cfg.replay)
		if rec.Partial() {
			fmt.Fprintf(stdout, "  PARTIAL REPLAY  the recording has no end line: the state after its %d inputs, not checked against the recorded state\n", rec.Len())
		}
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
	// Stop accepting, let the requests in flight finish, then return.
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		_ = srv.Close()
		return fmt.Errorf("requests still running after %s were cut: %w", shutdownTimeout, err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	fmt.Fprintln(stdout, "mwallet-sim stopped")
	return nil
}

// readReplay reads the -replay file; with partial, a recording cut short
// (no end line) is read too.
func readReplay(path string, partial bool) (*simulator.Recording, error) {
	if !partial {
		return simulator.ReadRecordingFile(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return simulator.ReadPartialRecording(f)
}
