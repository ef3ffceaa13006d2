// Package exenv connects the example programs to a service: the embedded
// simulator by default, or a real environment when -base-url is given.
//
// Secrets never travel as flags (they would land in shell history and in
// process listings). Against a real environment they are read from the
// environment:
//
//	MWALLET_CLIENT_ID       the Key's client id
//	MWALLET_API_KEY         the API key (token exchange only)
//	MWALLET_SIGNING_KEY     the signing key (request signatures)
//	MWALLET_WEBHOOK_SECRET  the webhook secret (webhook receivers only)
//	MWALLET_MEMBER          the member to act for: an external_member_id or mem_<uuid>
//
// Against the embedded simulator none of them is needed: the simulator's
// fixture credentials and its member "member-1" are used.
package exenv

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
)

// Environment variable names.
const (
	EnvClientID      = "MWALLET_CLIENT_ID"
	EnvAPIKey        = "MWALLET_API_KEY"
	EnvSigningKey    = "MWALLET_SIGNING_KEY"
	EnvWebhookSecret = "MWALLET_WEBHOOK_SECRET"
	EnvMember        = "MWALLET_MEMBER"
)

// Env is what an example works against.
type Env struct {
	// Client is ready to call the service.
	Client *mwclient.Client
	// Sim is the embedded simulator, or nil against a real environment.
	// Examples drive upstream outcomes only when it is set.
	Sim *simulator.Simulator
	// Member is the member the example acts for.
	Member string
	// WebhookSecret signs webhook deliveries (empty against a real
	// environment unless MWALLET_WEBHOOK_SECRET is set).
	WebhookSecret mwallet.Secret
}

// Simulated reports whether the example runs against the embedded simulator.
func (e *Env) Simulated() bool { return e.Sim != nil }

// Close stops the embedded simulator, if any.
func (e *Env) Close() {
	if e.Sim != nil {
		e.Sim.Close()
	}
}

// Flags holds the connection flags shared by the examples.
type Flags struct {
	baseURL string
}

// Register adds -base-url to fs.
func Register(fs *flag.FlagSet) *Flags {
	f := &Flags{}
	fs.StringVar(&f.baseURL, "base-url", "", "base URL of a real environment (sandbox or production); credentials come from "+
		EnvClientID+", "+EnvAPIKey+", "+EnvSigningKey+" and "+EnvMember+". Empty: the embedded simulator")
	return f
}

// Open connects: to a new embedded simulator when -base-url is empty, else to
// the given environment with credentials from the process environment.
// Extra options are applied to the client.
func (f *Flags) Open(opts ...mwallet.Option) (*Env, error) {
	if strings.TrimSpace(f.baseURL) == "" {
		sim, err := simulator.New()
		if err != nil {
			return nil, err
		}
		return &Env{
			Client:        sim.Client(opts...),
			Sim:           sim,
			Member:        simulator.DefaultMemberExternalID,
			WebhookSecret: sim.Credentials().WebhookSecretValue(),
		}, nil
	}
	var missing []string
	get := func(name string) string {
		v := strings.TrimSpace(os.Getenv(name))
		if v == "" {
			missing = append(missing, name)
		}
		return v
	}
	creds := mwallet.Credentials{
		ClientID:   get(EnvClientID),
		APIKey:     mwallet.Secret(get(EnvAPIKey)),
		SigningKey: mwallet.Secret(get(EnvSigningKey)),
	}
	member := get(EnvMember)
	if len(missing) > 0 {
		return nil, fmt.Errorf("-base-url is set: export %s (secrets are never taken as flags)", strings.Join(missing, ", "))
	}
	client, err := mwclient.New(f.baseURL, creds, opts...)
	if err != nil {
		return nil, err
	}
	return &Env{
		Client:        client,
		Member:        member,
		WebhookSecret: mwallet.Secret(strings.TrimSpace(os.Getenv(EnvWebhookSecret))),
	}, nil
}

// Parse parses args with a new flag set named name, whose usage and errors
// are written to out, and returns the connection flags. Add the example's own
// flags in define.
func Parse(name string, out io.Writer, args []string, define func(fs *flag.FlagSet)) (*Flags, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	f := Register(fs)
	if define != nil {
		define(fs)
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return f, nil
}

// Main runs an example's run function with the process's arguments and
// exits non-zero when it fails. -h prints the flags and exits 0.
func Main(run func(args []string) error) {
	if err := run(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
