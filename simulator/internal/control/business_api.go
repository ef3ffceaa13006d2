package control

import (
	"encoding/json"
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// BusinessAPI is the business API as its router serves it
// (internal/exchange's Router): the endpoints as registered and the
// methods a request's path is served with.
type BusinessAPI interface {
	Endpoints() []api.Endpoint
	AllowedMethods(r *http.Request) []string
}

// IsBusinessPath is BusinessPath over the routes of b: a path one of its
// endpoints serves (any method), one the contract names, or a prefix
// ending in * of one of those.
func IsBusinessPath(b BusinessAPI, p string) bool {
	patterns := func() []string {
		var out []string
		for _, e := range b.Endpoints() {
			out = append(out, e.Pattern)
		}
		return out
	}
	return BusinessPath(p, patterns, func(r *http.Request) bool { return len(b.AllowedMethods(r)) > 0 })
}

// CheckBusinessEndpoint is BusinessEndpoint over the routes of b: nil for
// a write one of its endpoints serves, the refusal as refused makes it an
// error otherwise (a request in progress there would never be met).
func CheckBusinessEndpoint(b BusinessAPI, method, target string, refused func(*Refusal) error) error {
	if r := BusinessEndpoint(method, target, b.Endpoints(), b.AllowedMethods); r != nil {
		return refused(r)
	}
	return nil
}

// ViaJSON returns v as a JSON round trip gives it back (numbers in an
// any as float64), as a replay of a call, which reads its arguments from
// JSON, gives them.
func ViaJSON[T any](v T) (T, error) {
	var out T
	b, err := json.Marshal(v)
	if err != nil {
		return out, err
	}
	err = json.Unmarshal(b, &out)
	return out, err
}
