package exchange

import (
	"errors"
	"math/rand/v2"
	"net/http"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/faults"
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Arm arms the fault row (already checked) with the Go-only channels of a
// delay fault, which the exchange keeps once tx commits.
func (p *Pipeline) Arm(tx *kernel.Tx, row faults.Row, c faults.Chans) {
	seq := p.st.Faults.Arm(tx, row)
	if c.Hold != nil || c.Held != nil {
		tx.OnCommit(func() { p.chans[seq] = c })
	}
}

// ClearFaults removes every fault, and their channels once tx commits.
func (p *Pipeline) ClearFaults(tx *kernel.Tx) {
	p.st.Faults.Clear(tx)
	tx.OnCommit(func() { clear(p.chans) })
}

// Draws returns the draws takeFault will make for r, one per OneIn fault
// that matches it, in order, up to the fault it takes, without drawing: on
// a copy of the generator, after the draw of the request id (Begin takes
// the request id first).
func (p *Pipeline) Draws(tx *kernel.Tx, r *http.Request) []bool {
	var rng *rand.Rand
	return p.st.Faults.Draws(tx, r.Method, r.URL.Path, func(n int) int {
		if rng == nil {
			rng = rand.New(p.st.Rng.Copy(tx))
			rng.Uint64() // NextRequestID
		}
		return rng.IntN(n)
	})
}

// takeFault returns the first armed fault matching r (and, for a OneIn
// fault, drawn) and counts it down. The draws are random choices kept with
// the request's input (Draws); a replay makes the recorded ones.
func (p *Pipeline) takeFault(tx *kernel.Tx, r *http.Request) *faults.Rule {
	recorded, _, _ := p.host.Replay(r)
	ws := p.st
	row, gone, ok := ws.Faults.Take(tx, r.Method, r.URL.Path, func(n, oneIn int) bool {
		hit := ws.Rng.IntN(tx, oneIn) == 0
		if n < len(recorded) {
			hit = recorded[n]
		}
		return hit
	})
	if !ok {
		return nil
	}
	f := &faults.Rule{Row: row, Chans: p.chans[row.Seq]}
	if gone {
		delete(p.chans, row.Seq)
	}
	return f
}

// faultError is the error answer of the exchange's error or error_after
// fault. A step_up_required one carries a real challenge, as the
// contract's answer always does (challenge_id, hosted_url, expires_at): the
// step-up line issues it for the member the request names (none when it
// names no member of the merchant) and for an action no endpoint
// authorises, so the end user can complete it and a resend that needs
// step-up is asked for a challenge of its own.
func (x *Exchange) faultError() *api.Error {
	ae := x.Fault.Envelope()
	if ae.Code != string(mwallet.CodeStepUpRequired) {
		return ae
	}
	h := x.p.host
	memberID := ""
	if m, err := x.p.ResolveMember(x.Tx, x.Rec.Member); err == nil {
		memberID = m.ID
	}
	err := h.IssueStepUp(x.Tx, memberID, api.ActionDigest("fault", x.R.Method, x.Rec.Path), h.Now())
	var issued *api.Error
	if !errors.As(err, &issued) {
		return ae
	}
	if issued.Code == ae.Code {
		issued.Status, issued.Type, issued.Message = ae.Status, ae.Type, ae.Message
	}
	return issued
}

// AfterFault applies what acts once the request has executed: an
// error_after fault answers its envelope instead of resp (whose outcome is
// already stored under the idempotency key), and a handler that asked to
// answer an error instead of its stored result (resp.Instead) gets that
// error. The journal records what was answered.
func (x *Exchange) AfterFault(resp gateway.Response) gateway.Response {
	if x.Fault != nil && x.Fault.Kind == faults.KindErrorAfter {
		return gateway.ErrorResponse(x.faultError(), x.ID)
	}
	if resp.Instead != nil {
		return gateway.ErrorResponse(resp.Instead, x.ID)
	}
	return resp
}
