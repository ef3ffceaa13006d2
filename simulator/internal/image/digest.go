package image

import (
	"crypto/sha256"
	"encoding/hex"
)

// The state digest (the simulator's Digest, GET /_sim/digest, the end line
// of a recording) is the SHA-256 of the state image without the clock
// reading (DigestLeaves). Recordings of version 1 (written before the
// digest left the clock out) carry the digest of the whole image, clock
// included, as a version 1 build encoded it (FieldsAddedAfter(1) left
// out).

// DigestLeaves are the fields the state digest leaves out of the image:
// the clock reading, and the start option as given (never read: the clock
// starts at it cut to the second, and a data directory or recording of an
// earlier build kept it cut while its snapshots kept it whole).
var DigestLeaves = map[string]bool{"Clock.now": true, "simState.start": true}

// FieldsSince names each state field added to the image after recordings
// of version 1, with the recording version that first carries it. The
// image has no schema, so a digest written by an earlier build is the
// image of the same state without these fields: a replay of a version v
// recording leaves out every field added after v. A new state field is
// listed here (the simulator's TestImageFieldsAreListed holds the list to
// the types), and the recording version goes up with it.
var FieldsSince = map[string]int{
	"RequestRecord.ReplayOf":  2, // the request whose stored answer was replayed
	"RequestRecord.Signature": 2, // the explanation of a refused signature
	"idemRecord.requestID":    2, // the request that stored the answer (replay_of)
}

// FieldsAddedAfter is the set of image fields added after recording
// version v, to leave out of an image compared with one of version v.
func FieldsAddedAfter(v int) map[string]bool {
	out := make(map[string]bool)
	for name, since := range FieldsSince {
		if since > v {
			out[name] = true
		}
	}
	return out
}

// Sum is the digest of an image: "sha256:" and 64 hex digits.
func Sum(img []byte) string {
	sum := sha256.Sum256(img)
	return "sha256:" + hex.EncodeToString(sum[:])
}
