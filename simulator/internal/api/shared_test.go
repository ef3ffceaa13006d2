package api

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// TestActionDigest: the digest naming an action is the first 16 bytes of
// the SHA-256 of its parts joined by NUL, in hex: challenges and QR
// scenarios kept in the state are keyed by it, so it never changes.
func TestActionDigest(t *testing.T) {
	t.Parallel()
	for _, parts := range [][]string{{"qrpay", "mem_1", "code"}, {"card.pin", "crd_1"}, {"qrcode", ""}, {"a\x00b"}, {"a", "b"}} {
		h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
		if got, want := ActionDigest(parts...), hex.EncodeToString(h[:16]); got != want {
			t.Errorf("ActionDigest(%q) = %s, want %s", parts, got, want)
		}
	}
	if got := ActionDigest("qrpay", "mem_1", "code"); got != "1e41c3b0e418f137c0f886a99cb59bfc" {
		t.Errorf("ActionDigest(qrpay, mem_1, code) = %s, want 1e41c3b0e418f137c0f886a99cb59bfc (as every earlier build)", got)
	}
}

// TestMemberRestriction: the statuses that keep a member's money in its
// wallet, and no member at all.
func TestMemberRestriction(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		m    *Member
		want string
	}{
		{nil, "unknown"},
		{&Member{Status: "active"}, ""},
		{&Member{Status: "suspended"}, "suspended"},
		{&Member{Status: "blocklisted"}, "blocklisted"},
		{&Member{Status: "banned"}, "banned"},
		{&Member{Status: "frozen"}, "frozen"},
	} {
		if got := tc.m.Restriction(); got != tc.want {
			t.Errorf("Restriction(%+v) = %q, want %q", tc.m, got, tc.want)
		}
		if got := tc.m.Restricted(); got != (tc.want != "") {
			t.Errorf("Restricted(%+v) = %v", tc.m, got)
		}
	}
}

// TestFiatAmount: the QR line's amount in a currency's minor units, on the
// one parser: above zero, at most 16 characters, no sign.
func TestFiatAmount(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in    string
		minor int
		want  string // "" when refused
	}{
		{"12.5", 2, "12.50"},
		{"12.500", 2, "12.50"},
		{"12.505", 2, ""},
		{"100", 0, "100"},
		{"100.0", 0, "100"},
		{"0.01", 2, "0.01"},
		{"0.00", 2, ""},
		{"0", 0, ""},
		{"-1", 2, ""},
		{"-0", 2, ""},
		{"+1", 2, ""},
		{"1e2", 2, ""},
		{".5", 2, ""},
		{"5.", 2, ""},
		{"", 2, ""},
		{"1234567890123.50", 2, "1234567890123.50"}, // 16 characters
		{"12345678901234.50", 2, ""},                // 17
		{"1.234", 3, "1.234"},
	} {
		d, text, ok := FiatAmount(tc.in, tc.minor)
		if ok != (tc.want != "") || text != tc.want || (ok && d.Text('f') != tc.want) {
			t.Errorf("FiatAmount(%q, %d) = %v, %q, %v; want %q", tc.in, tc.minor, d, text, ok, tc.want)
		}
	}
}
