package gateway

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// SignatureTolerance is the accepted distance of x-timestamp from the
// clock.
const SignatureTolerance = 300 * time.Second

// maxCanonicalInJournal bounds the canonical string kept in the journal.
const maxCanonicalInJournal = 4 << 10

// ExplainSignature computes the journal's explanation of a refused
// signature of r (x-timestamp ts, x-nonce nonce, the body as received)
// checked against the clock's now, problem saying what failed: the
// canonical string (cut at 4 KiB), the body's hash and length, the
// timestamp (cut at 64 bytes), the clock and, for a timestamp of Unix
// seconds, its skew.
func ExplainSignature(r *http.Request, ts, nonce string, body []byte, now time.Time, problem string) SignatureRow {
	sum := sha256.Sum256(body)
	bodyHash := hex.EncodeToString(sum[:])
	canonical := strings.Join([]string{r.Method, RequestTarget(r), ts, nonce, bodyHash}, "\n")
	sc := SignatureRow{
		Problem: problem, CanonicalString: canonical, BodySHA256: bodyHash, BodyBytes: len(body),
		Timestamp: ts, Clock: now, ClockUnix: now.Unix(), ToleranceSeconds: int64(SignatureTolerance / time.Second),
	}
	if len(sc.CanonicalString) > maxCanonicalInJournal {
		sc.CanonicalString, sc.Truncated = sc.CanonicalString[:maxCanonicalInJournal], true
	}
	if len(sc.Timestamp) > 64 {
		sc.Timestamp = sc.Timestamp[:64]
	}
	if api.AllDigits(ts) {
		if sec, err := strconv.ParseInt(ts, 10, 64); err == nil {
			sc.SkewSeconds, sc.HasSkew = sec-sc.ClockUnix, true
		}
	}
	return sc
}

// MissingSigningHeaders names the signing headers that are absent.
func MissingSigningHeaders(ts, nonce, sig string) string {
	var missing []string
	for _, h := range []struct{ name, v string }{{"x-timestamp", ts}, {"x-nonce", nonce}, {"x-signature", sig}} {
		if h.v == "" {
			missing = append(missing, h.name)
		}
	}
	return "missing " + strings.Join(missing, ", ")
}

// SkewProblem describes a timestamp outside the tolerance.
func SkewProblem(ts string, now time.Time) string {
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return "x-timestamp does not fit in 64 bits; it must be Unix seconds within 300 s of clock_unix"
	}
	skew, dir := sec-now.Unix(), "ahead of"
	if skew < 0 {
		skew, dir = -skew, "behind"
	}
	hint := ""
	if skew >= 1_000_000_000 {
		hint = " (milliseconds instead of seconds?)"
	}
	return "x-timestamp is " + strconv.FormatInt(skew, 10) + " s " + dir + " the simulator clock, beyond the 300 s tolerance" + hint + "; sign with the simulator clock (GET /_sim/clock) when it does not follow the wall clock"
}

// MismatchProblem describes a signature that did not verify, saying
// whether it is even shaped like base64 of an HMAC-SHA-256.
func MismatchProblem(sig string) string {
	raw, err := base64.StdEncoding.DecodeString(sig)
	if _, herr := hex.DecodeString(sig); herr == nil && len(sig) == 2*sha256.Size {
		return "x-signature is 64 hex digits (a hex HMAC?); want standard base64 of the 32-byte HMAC-SHA-256 of canonical_string, 44 characters"
	}
	switch {
	case err != nil:
		return "x-signature is not standard base64; want base64 of the 32-byte HMAC-SHA-256 of canonical_string, 44 characters"
	case len(raw) != sha256.Size:
		return "x-signature decodes to " + strconv.Itoa(len(raw)) + " bytes; want the 32-byte HMAC-SHA-256 of canonical_string"
	}
	return "x-signature is not the HMAC-SHA-256 of canonical_string under the Key's signing key (compare your signing string and body hash with these)"
}
