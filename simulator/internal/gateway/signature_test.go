package gateway

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestExplainSignature(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0).UTC()
	emptyHash := "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	tests := []struct {
		name, target, ts string
		want             SignatureRow
	}{
		{"skew of a Unix timestamp", "/v1/cards?x=1", "1700000010", SignatureRow{
			Problem: "p", CanonicalString: "POST\n/v1/cards?x=1\n1700000010\nn\n" + emptyHash, BodySHA256: emptyHash,
			Timestamp: "1700000010", Clock: now, ClockUnix: 1_700_000_000, SkewSeconds: 10, HasSkew: true, ToleranceSeconds: 300,
		}},
		{"no skew for another form", "/v1/cards", "soon", SignatureRow{
			Problem: "p", CanonicalString: "POST\n/v1/cards\nsoon\nn\n" + emptyHash, BodySHA256: emptyHash,
			Timestamp: "soon", Clock: now, ClockUnix: 1_700_000_000, ToleranceSeconds: 300,
		}},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("POST", tt.target, nil)
		if diff := cmp.Diff(tt.want, ExplainSignature(r, tt.ts, "n", nil, now, "p")); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	long := ExplainSignature(httptest.NewRequest("POST", "/v1/"+strings.Repeat("a", 5000), nil), strings.Repeat("9", 100), "n", []byte("{}"), now, "p")
	if !long.Truncated || len(long.CanonicalString) != 4<<10 || len(long.Timestamp) != 64 || long.HasSkew || long.BodyBytes != 2 {
		t.Errorf("long request: truncated %v, canonical %d bytes, timestamp %d bytes, skew %v", long.Truncated, len(long.CanonicalString), len(long.Timestamp), long.HasSkew)
	}
}

func TestSignatureProblems(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	for _, tt := range []struct{ got, want string }{
		{MissingSigningHeaders("", "n", ""), "missing x-timestamp, x-signature"},
		{SkewProblem("1699999000", now), "x-timestamp is 1000 s behind the simulator clock, beyond the 300 s tolerance; sign with the simulator clock (GET /_sim/clock) when it does not follow the wall clock"},
		{SkewProblem("1700000000000", now), "x-timestamp is 1698300000000 s ahead of the simulator clock, beyond the 300 s tolerance (milliseconds instead of seconds?); sign with the simulator clock (GET /_sim/clock) when it does not follow the wall clock"},
		{SkewProblem("99999999999999999999", now), "x-timestamp does not fit in 64 bits; it must be Unix seconds within 300 s of clock_unix"},
		{MismatchProblem(strings.Repeat("ab", 32)), "x-signature is 64 hex digits (a hex HMAC?); want standard base64 of the 32-byte HMAC-SHA-256 of canonical_string, 44 characters"},
		{MismatchProblem("!!"), "x-signature is not standard base64; want base64 of the 32-byte HMAC-SHA-256 of canonical_string, 44 characters"},
		{MismatchProblem("AAAA"), "x-signature decodes to 3 bytes; want the 32-byte HMAC-SHA-256 of canonical_string"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
