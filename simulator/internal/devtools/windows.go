package devtools

import (
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Windows are the sizes of the simulator's bounded windows and the caps of
// its window stores, field for field the public Stats.
type Windows struct {
	Nonces                int
	NoncesCap             int
	IdempotencyRecords    int
	IdempotencyRecordsCap int
	Tokens                int
	JournalEntries        int
	Requests              int64
	Events                int
	StepUpChallenges      int
	StepUpChallengesCap   int
	QRQuoteMemo           int
}

// Counter is a line's count of what one of its windows holds.
type Counter func(tx *kernel.Tx) int

// WindowSizes reads the windows: the gateway's stores, caps and journal
// (gw), the number of live access tokens, and the counts of the webhook
// line's events, the step-up line's challenges and the QR line's quote
// memo.
func WindowSizes(tx *kernel.Tx, gw *gateway.State, tokens int, events, challenges, memo Counter) Windows {
	caps := gw.Caps.Get(tx)
	return Windows{
		Nonces: gw.Nonces.Len(tx), NoncesCap: caps.Nonces,
		IdempotencyRecords: gw.Idem.Len(tx), IdempotencyRecordsCap: caps.IdempotencyKeys,
		StepUpChallengesCap: caps.StepUpChallenges,
		Tokens:              tokens,
		JournalEntries:      gw.Journal.Len(tx), Requests: gw.Journal.Seq(tx),
		Events: events(tx), StepUpChallenges: challenges(tx), QRQuoteMemo: memo(tx),
	}
}
