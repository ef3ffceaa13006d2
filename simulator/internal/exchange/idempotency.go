package exchange

import (
	"crypto/sha256"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/idempotency"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Check is the exchange's idempotency step (idempotency.Store.Check) with
// its refusal as the API's error: a full store (when the key has no
// record), idempotency_key_reused (another endpoint or body),
// idempotency_in_progress (the first request still runs). Both nil: the
// request executes (Start).
func Check(tx *kernel.Tx, st *idempotency.Store, recKey, endpoint string, hash [sha256.Size]byte, now time.Time, capacity int) (*idempotency.Record, *api.Error) {
	rec, why := st.Check(tx, recKey, endpoint, hash, now, capacity)
	switch why {
	case idempotency.Full:
		return nil, gateway.StoreFull(tx, gateway.CapIdempotencyKeys, capacity, st.Queue, now)
	case idempotency.Reused:
		return nil, api.NewErr("idempotency_key_reused", "the idempotency key was used with a different body or endpoint")
	case idempotency.InProgress:
		return nil, api.NewErr("idempotency_in_progress", "the first request with this idempotency key is still running")
	}
	return rec, nil
}

// Answer is resp as the answer an idempotency record keeps.
func Answer(resp gateway.Response) idempotency.Answer {
	return idempotency.Answer{Status: resp.Status, Code: resp.Code, Header: resp.Header, Body: resp.Body, Transient: resp.Transient}
}

// Stage stages recKey (idempotency.Store.Stage): state_invalid while the
// key holds a record.
func Stage(tx *kernel.Tx, st *idempotency.Store, recKey, endpoint string, hash [sha256.Size]byte, now, until time.Time) error {
	if !st.Stage(tx, recKey, endpoint, hash, now, until) {
		return api.NewErr("state_invalid", "the idempotency key is already in use")
	}
	return nil
}
