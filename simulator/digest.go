package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/image"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The state digest (Digest, GET /_sim/digest, the end line of a recording)
// is the SHA-256 of the state image (internal/image) without the clock
// reading: every id, balance, ledger entry, object, event, webhook delivery
// and its attempts, idempotency and nonce window, token, rate-limit window,
// fault, outcome setting, pending timer (with the instant it falls due),
// the request journal, the random generators and the configuration the
// simulator was built with. Two simulators built with the same options and
// fed the same inputs have the same digest whatever the wall clock did
// meanwhile: a recording and its replay, a data directory before and after
// a restart or a kill -9, a manual and a wall clock. The clock reading is
// reported beside it (GET /_sim/digest "now", the end line's "clock"); a
// replay checks both.
//
// Recordings of version 1 (written before the digest left the clock out)
// carry the digest of the whole image, clock included; a replay of one
// checks that one (legacyDigest). The digest is taken over the state image
// of recordings of versions 1 and 2 (legacyState, image_legacy.go), built
// from the tables.

// Digest returns the state digest ("sha256:" and 64 hex digits): two
// simulators in the same state (a recording and its replay, a data
// directory before and after a restart) have the same digest, and any
// difference in ids, balances, objects, events, deliveries, windows,
// pending timers, the request journal or the random generators changes it.
// The clock reading is not part of it: read it beside the digest (Clock.Now,
// or "now" in GET /_sim/digest). Control API: GET /_sim/digest.
func (s *Simulator) Digest() (string, error) {
	tx := s.wiring.image.captured()
	defer tx.End()
	return s.wiring.image.digest(tx)
}

// digest is the state digest of the simulator: of the state tx reads, the
// live state or a capture of it (kernel.Capture), which is hashed without
// the state lock.
func (im *stateImage) digest(tx *kernel.Tx) (string, error) {
	img, err := im.encodeLegacy(tx, image.DigestLeaves)
	if err != nil {
		return "", err
	}
	return image.Sum(img), nil
}

// legacyDigest is the digest recordings of version 1 carry: the whole
// image, the clock reading included, as a version 1 build encoded it (the
// fields added since, image.FieldsSince, left out).
func (im *stateImage) legacyDigest(tx *kernel.Tx) (string, error) {
	img, err := im.encodeLegacy(tx, image.FieldsAddedAfter(1))
	if err != nil {
		return "", err
	}
	return image.Sum(img), nil
}
