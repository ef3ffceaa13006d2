package simulator

import (
	"time"

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

// signatureCheckOf is the journal row sr as a SignatureCheck.
func signatureCheckOf(sr pipeline.SignatureRow) *SignatureCheck {
	sc := &SignatureCheck{
		Problem: sr.Problem, CanonicalString: sr.CanonicalString, Truncated: sr.Truncated, BodySHA256: sr.BodySHA256,
		BodyBytes: sr.BodyBytes, Timestamp: sr.Timestamp, Clock: sr.Clock, ClockUnix: sr.ClockUnix, ToleranceSeconds: sr.ToleranceSeconds,
	}
	if sr.HasSkew {
		skew := sr.SkewSeconds
		sc.SkewSeconds = &skew
	}
	return sc
}
