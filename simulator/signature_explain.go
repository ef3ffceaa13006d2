package simulator

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
)

// SignatureCheck explains a refused request signature (invalid_signature or
// timestamp_out_of_range) in the request journal, so that a team writing
// its own signer sees what the simulator computed. It never holds a secret:
// not the signing key, not the x-signature sent and not the one expected
// (either would let a reader of the journal forge this request).
type SignatureCheck struct {
	// Problem says in one sentence what failed: a missing header, a
	// timestamp that is not Unix seconds or is outside the tolerance, a
	// signature that is not base64 of 32 bytes, or a signature that does
	// not match CanonicalString under the Key's signing key.
	Problem string `json:"problem"`
	// CanonicalString is the signing string the simulator computed from the
	// request: METHOD, the path with its query exactly as sent, x-timestamp,
	// x-nonce and BodySHA256, joined by "\n". The client's signer must
	// produce exactly these bytes.
	CanonicalString string `json:"canonical_string"`
	// Truncated is true when CanonicalString was cut at 4 KiB (a very long
	// path or header); BodySHA256 and the clock are still complete.
	Truncated bool `json:"truncated,omitempty"`
	// BodySHA256 is the lowercase hex SHA-256 of the body bytes as received
	// (of the empty string for an empty body).
	BodySHA256 string `json:"body_sha256"`
	// BodyBytes is the length of the body as received.
	BodyBytes int `json:"body_bytes"`
	// Timestamp is x-timestamp as sent (cut at 64 bytes).
	Timestamp string `json:"timestamp"`
	// Clock is the simulator clock the timestamp was checked against, and
	// ClockUnix the same instant in Unix seconds (under -clock manual, GET
	// /_sim/clock reads it: sign with that, not with the wall clock).
	Clock     time.Time `json:"clock"`
	ClockUnix int64     `json:"clock_unix"`
	// SkewSeconds is x-timestamp minus ClockUnix, when x-timestamp is Unix
	// seconds; it must lie within ±ToleranceSeconds.
	SkewSeconds      *int64 `json:"skew_seconds,omitempty"`
	ToleranceSeconds int64  `json:"tolerance_seconds"`
}

// maxCanonicalInJournal bounds the canonical string kept in the journal.
const maxCanonicalInJournal = 4 << 10

// explainSignature builds the journal's explanation of a refused signature.
func explainSignature(r *http.Request, ts, nonce string, body []byte, now time.Time, problem string) *SignatureCheck {
	sum := sha256.Sum256(body)
	bodyHash := hex.EncodeToString(sum[:])
	canonical := strings.Join([]string{r.Method, pipeline.RequestTarget(r), ts, nonce, bodyHash}, "\n")
	sc := &SignatureCheck{
		Problem: problem, CanonicalString: canonical, BodySHA256: bodyHash, BodyBytes: len(body),
		Timestamp: ts, Clock: now, ClockUnix: now.Unix(), ToleranceSeconds: int64(signatureTolerance / time.Second),
	}
	if len(sc.CanonicalString) > maxCanonicalInJournal {
		sc.CanonicalString, sc.Truncated = sc.CanonicalString[:maxCanonicalInJournal], true
	}
	if len(sc.Timestamp) > 64 {
		sc.Timestamp = sc.Timestamp[:64]
	}
	if api.AllDigits(ts) {
		if sec, err := strconv.ParseInt(ts, 10, 64); err == nil {
			skew := sec - sc.ClockUnix
			sc.SkewSeconds = &skew
		}
	}
	return sc
}

// missingSigningHeaders names the signing headers that are absent.
func missingSigningHeaders(ts, nonce, sig string) string {
	var missing []string
	for _, h := range []struct{ name, v string }{{"x-timestamp", ts}, {"x-nonce", nonce}, {"x-signature", sig}} {
		if h.v == "" {
			missing = append(missing, h.name)
		}
	}
	return "missing " + strings.Join(missing, ", ")
}

// skewProblem describes a timestamp outside the tolerance.
func skewProblem(ts string, now time.Time) string {
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

// mismatchProblem describes a signature that did not verify, saying whether
// it is even shaped like base64 of an HMAC-SHA-256.
func mismatchProblem(sig string) string {
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
