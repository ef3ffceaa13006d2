package simulator

import (
	"crypto/sha256"
	"time"

	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/idempotency"
	"github.com/mwallet/mwallet-go/simulator/internal/image"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The idempotency store is internal/idempotency: the records of keyed
// requests, their window and their bound. What stays here is what speaks
// the contract or the image: the refusals as the API's errors, a response
// as the answer a record keeps, and the digest's projection of the store
// (legacyIdem, image.IdemStore), which writes its tables as the
// gatewayState fields they replaced, so digests and recordings of earlier
// builds are unchanged. For the same reason the bound
// (storeCaps.IdempotencyKeys) and the key of the body digests
// (internal/gateway's State.BodyKey, BodyDigest) stay where the image has them: the
// gateway passes them in.

// idempotencyWindow is how long an idempotency record lives.
const idempotencyWindow = idempotency.Window

// idemCheck is the gateway's idempotency step (idempotency.Store.Check)
// with its refusal as the API's error: a full store (when the key has no
// record), idempotency_key_reused (another endpoint or body),
// idempotency_in_progress (the first request still runs). Both nil: the
// request executes (Start).
func idemCheck(tx *kernel.Tx, st *idempotency.Store, recKey, endpoint string, hash [sha256.Size]byte, now time.Time, capacity int) (*idempotency.Record, *apiError) {
	rec, why := st.Check(tx, recKey, endpoint, hash, now, capacity)
	switch why {
	case idempotency.Full:
		return nil, pipeline.StoreFull(tx, pipeline.CapIdempotencyKeys, capacity, st.Queue, now)
	case idempotency.Reused:
		return nil, newErr("idempotency_key_reused", "the idempotency key was used with a different body or endpoint")
	case idempotency.InProgress:
		return nil, newErr("idempotency_in_progress", "the first request with this idempotency key is still running")
	}
	return rec, nil
}

// idemAnswer is resp as the answer an idempotency record keeps.
func idemAnswer(resp response) idempotency.Answer {
	return idempotency.Answer{Status: resp.Status, Code: resp.Code, Header: resp.Header, Body: resp.Body, Transient: resp.Transient}
}

// idemStage stages recKey (idempotency.Store.Stage): state_invalid while
// the key holds a record.
func idemStage(tx *kernel.Tx, st *idempotency.Store, recKey, endpoint string, hash [sha256.Size]byte, now, until time.Time) error {
	if !st.Stage(tx, recKey, endpoint, hash, now, until) {
		return newErr("state_invalid", "the idempotency key is already in use")
	}
	return nil
}

// legacyIdem is the store as the state image of recordings of versions 1
// and 2 held it.
func legacyIdem(tx *kernel.Tx, st idempotency.Store) image.IdemStore {
	out := image.IdemStore{Records: map[string]*image.IdemRecord{}, Queue: legacyQueue(tx, st.Queue)}
	for k, r := range st.Records.All(tx) {
		out.Records[k] = &image.IdemRecord{
			Endpoint: r.Endpoint, BodyHash: r.BodyHash, ExpiresAt: r.ExpiresAt, InProgress: r.InProgress,
			StagedUntil: r.StagedUntil, Status: r.Status, Header: r.KeptHeader(), Body: r.KeptBody(), Code: r.Code, RequestID: r.RequestID,
		}
	}
	return out
}
