package simulator

import (
	"math/rand/v2"
	"time"

	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/image"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/legacyimage"
)

// The gateway's state (internal/gateway's State) as the state image of
// recordings of versions 1 and 2 held it.

// legacyJournal is the journal as the state image of recordings of
// versions 1 and 2 held it: a ring buffer of the newest requests.
type legacyJournal struct {
	Buf      []RequestRecord
	Capacity int
	Next     int
	Full     bool
	Seq      int64
}

func legacyJournalOf(tx *kernel.Tx, j *pipeline.Journal) *legacyJournal {
	ring := j.Ring(tx)
	out := &legacyJournal{Capacity: ring.Capacity, Next: ring.Next, Full: ring.Full, Seq: ring.Seq}
	if ring.Buf != nil {
		out.Buf = make([]RequestRecord, len(ring.Buf))
		for i, row := range ring.Buf {
			out.Buf[i] = recordOf(row)
		}
	}
	return out
}

// legacyFaultRule is an armed fault as the state image of recordings of
// versions 1 and 2 held it.
type legacyFaultRule struct {
	Fault
	Remaining int
	Unlimited bool
}

// legacyGatewayState is the gateway's state as the state image of
// recordings of versions 1 and 2 held it.
type legacyGatewayState struct {
	RequestSeq    int64
	Rng           *image.Rand
	Pcg           *rand.PCG
	Nonces        map[string]time.Time
	NonceQ        image.ExpiryQueue
	Idem          image.IdemStore
	TokenQ        image.ExpiryQueue
	Exchanges     map[string][]time.Time
	ChallengeQ    image.ExpiryQueue
	QrMemoQ       image.ExpiryQueue
	Faults        []*legacyFaultRule
	Journal       *legacyJournal
	WriteQuota    int
	Writes        []time.Time
	ScopeCatalog  map[string]bool
	MaxNonces     int
	MaxIdem       int
	MaxChallenges int
	BodyKey       [32]byte
}

func legacyGateway(tx *kernel.Tx, g *gatewayState) *legacyGatewayState {
	rng, pcg := legacyimage.Rand(g.Rng, tx)
	out := &legacyGatewayState{
		RequestSeq: g.RequestSeq.Get(tx), Rng: rng, Pcg: pcg, Nonces: map[string]time.Time{},
		NonceQ: legacyimage.Queue(tx, g.NonceQ), Idem: legacyimage.Idem(tx, g.Idem), TokenQ: legacyimage.Queue(tx, g.TokenQ),
		Exchanges: map[string][]time.Time{}, ChallengeQ: legacyimage.Queue(tx, g.ChallengeQ), QrMemoQ: legacyimage.Queue(tx, g.QRMemoQ),
		Journal: legacyJournalOf(tx, g.Journal), WriteQuota: g.Quota.Limit(tx), Writes: g.Quota.Kept(tx),
		// The caps are configuration, out of the digest: the image keeps the
		// values every build of those versions had.
		ScopeCatalog: g.ScopeCatalog, MaxNonces: legacyCaps.Nonces, MaxIdem: legacyCaps.IdempotencyKeys, MaxChallenges: legacyCaps.StepUpChallenges,
		BodyKey: g.BodyKey,
	}
	for k, v := range g.Nonces.All(tx) {
		out.Nonces[k] = v
	}
	for k, v := range g.Exchanges.All(tx) {
		out.Exchanges[k] = v.Slice()
	}
	if g.Faults.Held(tx) {
		out.Faults = []*legacyFaultRule{}
	}
	for _, f := range g.Faults.All(tx) {
		out.Faults = append(out.Faults, &legacyFaultRule{Fault: faultOf(f), Remaining: f.Remaining, Unlimited: f.Unlimited})
	}
	return out
}
