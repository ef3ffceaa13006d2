package main

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/mwallet/mwallet-go/simulator"
)

// The connection of the commands that drive a running simulator (trigger,
// listen, recipes): the same flags, with the same environment fallbacks,
// read the same way.

// urlEnv is the environment variable a simulator's base URL may come from
// instead of -url.
const urlEnv = "MWALLET_SIM_URL"

// defaultURL is the address mwallet-sim serves at by default.
const defaultURL = "http://127.0.0.1:8080"

// connFlags are the connection flags.
type connFlags struct {
	url   string
	token string
}

// addConnFlags adds -url (and its old spelling -base-url) and
// -control-token to a command's flags. what says what the URL is for.
func addConnFlags(fs *flag.FlagSet, c *connFlags, what string) {
	fs.StringVar(&c.url, "url", "", what+" (env "+urlEnv+")")
	fs.StringVar(&c.url, "base-url", "", "the same as -url")
	controlTokenFlag(fs, &c.token)
}

// resolve applies the environment fallbacks (the flag first, then the
// environment, then def; "" for def keeps no URL) and checks both values.
func (c *connFlags) resolve(def string) error {
	if c.url == "" {
		c.url = os.Getenv(urlEnv)
	}
	if c.url == "" {
		c.url = def
	}
	if c.url != "" {
		if u, err := url.ParseRequestURI(c.url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("-url %q: want the simulator's base URL, http or https", c.url)
		}
		c.url = strings.TrimRight(c.url, "/")
	}
	c.token = controlToken(c.token)
	return checkControlToken(c.token)
}

// checkControlToken refuses a control token no request can send: one that
// begins or ends with space (header values are trimmed) or holds a control
// character.
func checkControlToken(tok string) error {
	if tok != strings.TrimSpace(tok) || strings.ContainsFunc(tok, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return errors.New("-control-token (or " + controlTokenEnv + ") begins or ends with space or holds a control character, which no request can send in " + simulator.ControlTokenHeader)
	}
	return nil
}
