package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/mwallet/mwallet-go/simulator"
)

// The control API's exposure. serve answers the control API (/_sim:
// credentials, clock, balances, faults, recordings) to whoever reaches it,
// so it listens beyond loopback only when told how that is safe: with a
// control token (-control-token, or MWALLET_SIM_CONTROL_TOKEN), which every
// control request must then carry in X-Sim-Control-Token, or with
// -trust-network, which says the network is trusted. The other commands
// take the same -control-token and send it. Whether the address is
// loopback is decided from the address the listener is bound to.

// controlTokenEnv is the environment variable a control token may come
// from instead of -control-token.
const controlTokenEnv = "MWALLET_SIM_CONTROL_TOKEN"

// controlTokenFlag adds -control-token to a command that calls a running
// simulator's control API.
func controlTokenFlag(fs *flag.FlagSet, dst *string) {
	fs.StringVar(dst, "control-token", "", "the simulator's control token, sent in "+simulator.ControlTokenHeader+" (env "+controlTokenEnv+")")
}

// controlToken returns the flag's value, or the environment's when the flag
// is empty.
func controlToken(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	return os.Getenv(controlTokenEnv)
}

// setControlToken adds the control token to a control request.
func setControlToken(req *http.Request, token string) {
	if token = controlToken(token); token != "" {
		req.Header.Set(simulator.ControlTokenHeader, token)
	}
}

func isWrite(method string) bool { return method != http.MethodGet && method != http.MethodHead }

// guardConfig is what the serve flags about the control API set.
type guardConfig struct {
	token        string
	trustNetwork bool
	allowedHosts string
}

// addGuardFlags adds the serve flags of the control API's exposure.
func addGuardFlags(fs *flag.FlagSet, c *guardConfig) {
	fs.StringVar(&c.token, "control-token", "", "require this token in "+simulator.ControlTokenHeader+" on every control request (env "+controlTokenEnv+"); needed to listen beyond loopback unless -trust-network")
	fs.BoolVar(&c.trustNetwork, "trust-network", false, "listen beyond loopback without a control token: everyone who reaches the address can read the credentials and drive the simulator")
	fs.StringVar(&c.allowedHosts, "allowed-hosts", "", "comma-separated host names the control API answers besides IP addresses, localhost and the -addr host (* for any)")
}

// options turns the flags into simulator options; addr is the -addr value
// (its host, when a name, is allowed as a Host).
func (c guardConfig) options(addr string) []simulator.Option {
	var hosts []string
	if h, _, err := net.SplitHostPort(addr); err == nil && h != "" {
		hosts = append(hosts, h)
	}
	for _, h := range strings.Split(c.allowedHosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	opts := []simulator.Option{simulator.WithAllowedHosts(hosts...)}
	if tok := controlToken(c.token); tok != "" {
		opts = append(opts, simulator.WithControlToken(tok))
	}
	return opts
}

// errOpenControl is the refusal of a non-loopback listener without a token
// or -trust-network.
var errOpenControl = errors.New("open control API")

// checkExposure refuses a listener beyond loopback without a control token
// or -trust-network, and says which to give.
func (c guardConfig) checkExposure(ln net.Listener, addr string) error {
	if isLoopback(ln.Addr()) || controlToken(c.token) != "" || c.trustNetwork {
		return nil
	}
	return usageErr(fmt.Errorf("%w: -addr %s listens beyond loopback (%s), where anyone who reaches it could read the credentials and drive the simulator through /_sim; give -control-token TOKEN (or %s) to require a token on the control API, or -trust-network to say the network is trusted",
		errOpenControl, addr, ln.Addr(), controlTokenEnv))
}

// isLoopback reports whether a listener's address is a loopback address.
func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// exposure is the banner's line about who can reach the control API.
func (c guardConfig) exposure(ln net.Listener) string {
	switch {
	case controlToken(c.token) != "":
		return "token required in " + simulator.ControlTokenHeader + " (dashboard: open /_sim/ui/#token=TOKEN)"
	case isLoopback(ln.Addr()):
		return "loopback only, no token"
	default:
		return "OPEN TO THE NETWORK without a token (-trust-network): anyone who reaches this address can read the credentials and drive the simulator"
	}
}
