package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/idempotency"
	"github.com/mwallet/mwallet-go/simulator/internal/image"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The idempotency store is internal/idempotency: the records of keyed
// requests, their window and their bound; its refusals as the API's errors
// and a response as the answer a record keeps are internal/exchange's
// (Check, Answer, Stage). What stays here is the digest's projection of the
// store (legacyIdem, image.IdemStore), which writes its tables as the
// gatewayState fields they replaced, so digests and recordings of earlier
// builds are unchanged. For the same reason the bound
// (storeCaps.IdempotencyKeys) and the key of the body digests
// (internal/gateway's State.BodyKey, BodyDigest) stay where the image has
// them: the exchange passes them in.

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
