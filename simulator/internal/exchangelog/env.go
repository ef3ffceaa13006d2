package exchangelog

import (
	"fmt"
	"net/http"
	"os"
)

// FromEnv returns h wrapped so that it appends every exchange it serves
// to the log of the directory the environment variable env names, and h
// itself when env is unset or empty. A log that cannot be opened is
// reported on stderr and h is served without it.
func FromEnv(h http.Handler, env string, encode Encode) http.Handler {
	dir := os.Getenv(env)
	if dir == "" {
		return h
	}
	logged, err := Handler(h, dir, encode)
	if err != nil {
		fmt.Fprintf(os.Stderr, "simulator: %s: %v; exchanges are not logged\n", env, err)
	}
	return logged
}

// TransportFromEnv returns tr wrapped so that it appends each webhook
// delivery it sends to the log of the directory the environment variable
// env names, and tr itself when env is unset or empty or the log cannot be
// opened.
func TransportFromEnv(tr *http.Transport, env string, encode Encode) http.RoundTripper {
	dir := os.Getenv(env)
	if dir == "" {
		return tr
	}
	logged, _ := Transport(tr, dir, encode)
	return logged
}
