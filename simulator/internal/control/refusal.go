package control

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// Message is the refusal's message as the public refusal gives it, without
// its "simulator: " prefix: the argument, the value and the domain.
func (e *Refusal) Message() string {
	var msg string
	switch {
	case e.NotFound:
		msg = fmt.Sprintf("%s %q not found", e.Kind, e.Name)
	case len(e.Valid) > 0:
		msg = fmt.Sprintf("unknown %s %q: want one of %s", e.Kind, e.Name, strings.Join(e.Valid, ", "))
	case e.Want != "":
		msg = fmt.Sprintf("%s is not %s %s: want %s", quoteValue(e.Name), article(e.Kind), e.Kind, e.Want)
	default:
		msg = fmt.Sprintf("unknown %s %q", e.Kind, e.Name)
	}
	if e.Field != "" {
		msg = e.Field + ": " + msg
	}
	return msg
}

// Answer is the HTTP refusal: 404 not_found for an unknown id, 400
// invalid_request otherwise, with Message.
func (e *Refusal) Answer() *api.Error {
	if e.NotFound {
		return api.NewErr("not_found", e.Message())
	}
	return api.InvalidRequest(e.Message())
}

// article is the indefinite article of a domain's name: "an ISO 4217
// currency code", "an HTTP method", "a URL".
func article(kind string) string {
	if strings.HasPrefix(kind, "HTTP") || kind != "" && strings.ContainsRune("aeioAEIO", rune(kind[0])) ||
		strings.HasPrefix(kind, "un") {
		return "an"
	}
	return "a"
}

// quoteValue quotes a string value; numbers stay as they are.
func quoteValue(s string) string {
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return s
	}
	return strconv.Quote(s)
}
