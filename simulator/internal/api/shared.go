package api

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/mwallet/mwallet-go/money"
)

// What more than one line reads and no line owns: pure functions and
// constants, so that a line needs no host to compute them.

// ActionDigest returns a stable digest naming an action, for example
// ActionDigest("qrpay", memberID, codeValue) or ActionDigest("card.pin",
// cardID): the action a step-up challenge is issued for and consumed by.
func ActionDigest(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:16])
}

// FiatAmount parses a QR payment amount in a currency with minor decimals:
// at most 16 characters, a plain non-negative decimal at scale minor
// (money.ParseNonNegative), above zero. It returns the value and its text
// with exactly minor decimals, or false.
func FiatAmount(s string, minor int) (*apd.Decimal, string, bool) {
	if len(s) == 0 || len(s) > 16 {
		return nil, "", false
	}
	a, err := money.ParseNonNegative(s, minor)
	if err != nil || a.Sign() <= 0 {
		return nil, "", false
	}
	return a.Decimal(), a.String(), true
}

// ErrControlNotFound marks an error of the control API about an object
// that does not exist (errors.Is): it is answered 404 not_found.
var ErrControlNotFound = errors.New("not found")

// The usage fee of a quick KYC binding: the KYC line charges it, the card
// line funds it beside a first top-up of the same asset.
const (
	QuickKYCFeeAsset = "USDT"
	QuickKYCFee      = "10"
)

// Restriction names why m may not move money out of its wallet (its status
// suspended, blocklisted, banned or frozen; "unknown" for no member), or
// "" when it may: suspended and blocklisted members are unknown to
// member-scoped calls (member_not_found), banned and frozen ones are found
// but refused.
func (m *Member) Restriction() string {
	if m == nil {
		return "unknown"
	}
	switch m.Status {
	case "suspended", "blocklisted", "banned", "frozen":
		return m.Status
	}
	return ""
}

// Restricted reports a member that may not move money out of its wallet
// (Restriction is not empty).
func (m *Member) Restricted() bool { return m.Restriction() != "" }
