package gatewayhost

import (
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/qrpay"
	"github.com/mwallet/mwallet-go/simulator/internal/remittances"
	"github.com/mwallet/mwallet-go/simulator/internal/startup"
	"github.com/mwallet/mwallet-go/simulator/internal/stepup"
	"github.com/mwallet/mwallet-go/simulator/internal/windows"
)

// ExpiryWindow is the expiry queue of a line's window (kernel.Tx.ExpireAt)
// in the gateway's state ws: the step-up challenges, the QR quote memo and
// the remittances' idempotency records, which the sweep tells their line
// about (Host's Challenge, QRMemo and RemittanceKey). since is the version of the rules
// (internal/startup) from which an input queues its keys on it: an input
// of an earlier build queues none, as it ran. ok is false for a window no
// line declares.
func ExpiryWindow(ws *gateway.State, window string) (q windows.ExpiryQueue, since int, ok bool) {
	switch window {
	case stepup.ExpiryWindow:
		return ws.ChallengeQ, 0, true
	case qrpay.MemoWindow:
		return ws.QRMemoQ, 0, true
	case remittances.IdempotencyWindow:
		return ws.RemitIdemQ, startup.SweepRules, true
	}
	return windows.ExpiryQueue{}, 0, false
}
