package cards

import (
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/money"
)

// Identifier prefixes of the card line.
const (
	prefixCard        = "crd_"
	prefixProduct     = "cpd_"
	prefixApplication = "cap_"
	prefixTransaction = "ctx_"
)

// CardID returns the REST id (crd_<id>) of a card id given with or without
// its prefix, such as the bare id that card events carry in data.id;
// surrounding spaces are dropped and an empty id stays empty. It only
// converts: the methods that take a card id check it and refuse a malformed
// one with a *mwallet.ParamError before anything is sent. qrpay.OrderID and
// remittance.OrderID have the same shape.
func CardID(id string) string {
	id = strings.TrimSpace(id)
	if id == "" || strings.HasPrefix(id, prefixCard) {
		return id
	}
	return prefixCard + id
}

// withPrefix checks a path or body identifier and adds prefix when missing.
// A refused one has the code of a path the service does not know
// (not_found).
func withPrefix(param, prefix, id string) (string, error) {
	id = strings.TrimSpace(id)
	if id == "" || id == prefix {
		return "", &mwallet.ParamError{Param: param, Reason: "is required", Code: mwallet.CodeNotFound}
	}
	if strings.ContainsAny(id, "/?#%") || strings.IndexFunc(id, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return "", &mwallet.ParamError{Param: param, Reason: "contains characters that are not valid in an identifier", Code: mwallet.CodeNotFound}
	}
	if !strings.HasPrefix(id, prefix) {
		id = prefix + id
	}
	return id, nil
}

// cardPath returns /v1/cards/{crd_id}{suffix}.
func cardPath(cardID, suffix string) (string, error) {
	id, err := withPrefix("card id", prefixCard, cardID)
	if err != nil {
		return "", err
	}
	return "/v1/cards/" + url.PathEscape(id) + suffix, nil
}

// NewClientKey returns a fresh random client_key for a card application.
// Generate it once when the end user starts an application, store it with
// your order record, and send it on every attempt of that application.
func NewClientKey() string { return uuid.NewString() }

// isDigits reports whether s is non-empty and only ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

const redacted = "[redacted]"

// PIN is a card PIN. It never reveals its digits through String, GoString,
// any fmt verb, slog or JSON/text marshalling; the SDK places the digits only
// into the request body. Convert a string with PIN("123456").
type PIN string

// String returns "[redacted]".
func (PIN) String() string { return redacted }

// GoString returns "[redacted]".
func (PIN) GoString() string { return redacted }

// Format writes "[redacted]" for every verb.
func (PIN) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(redacted)) }

// MarshalText returns "[redacted]".
func (PIN) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// MarshalJSON returns "[redacted]" as a JSON string.
func (PIN) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// LogValue keeps the PIN out of slog output.
func (PIN) LogValue() slog.Value { return slog.StringValue(redacted) }

// CVV is a card verification value (three digits). Like PIN it never reveals
// its digits except in the request body. Convert a string with CVV("123").
type CVV string

// String returns "[redacted]".
func (CVV) String() string { return redacted }

// GoString returns "[redacted]".
func (CVV) GoString() string { return redacted }

// Format writes "[redacted]" for every verb.
func (CVV) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(redacted)) }

// MarshalText returns "[redacted]".
func (CVV) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// MarshalJSON returns "[redacted]" as a JSON string.
func (CVV) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// LogValue keeps the CVV out of slog output.
func (CVV) LogValue() slog.Value { return slog.StringValue(redacted) }

// SessionToken is the token of a card secure session: a short-lived bearer
// credential that opens the card's sensitive data. It never reveals itself
// through fmt, slog or marshalling; call Reveal to hand it to the component
// that opens the session.
type SessionToken string

// String returns "[redacted]".
func (SessionToken) String() string { return redacted }

// GoString returns "[redacted]".
func (SessionToken) GoString() string { return redacted }

// Format writes "[redacted]" for every verb.
func (SessionToken) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(redacted)) }

// MarshalText returns "[redacted]".
func (SessionToken) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// MarshalJSON returns "[redacted]" as a JSON string.
func (SessionToken) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// LogValue keeps the token out of slog output.
func (SessionToken) LogValue() slog.Value { return slog.StringValue(redacted) }

// Reveal returns the token itself.
func (t SessionToken) Reveal() string { return string(t) }

// parseTime reads an ISO-8601 timestamp; an empty string is the zero time.
func parseTime(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("cards: %s: %w", field, err)
	}
	return t, nil
}

// parseAmount reads a decimal string at scale; an empty string is zero.
func parseAmount(field, s string, scale int) (money.Amount, error) {
	if s == "" {
		return money.Zero(scale), nil
	}
	a, err := money.Parse(s, scale)
	if err != nil {
		return money.Amount{}, fmt.Errorf("cards: %s: %w", field, err)
	}
	return a, nil
}

// parseMinor reads an integer string in the smallest unit at scale.
func parseMinor(field, s string, scale int) (money.Amount, error) {
	a, err := money.ParseMinor(s, scale)
	if err != nil {
		return money.Amount{}, fmt.Errorf("cards: %s: %w", field, err)
	}
	return a, nil
}
