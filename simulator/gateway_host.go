package simulator

import (
	"net/http"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/exchange"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// exchangeHost answers internal/exchange's Host for the gateway g: the
// input log (its callbacks and the recorder), the clock and its timers, the
// checks of the caller (authorize), the members, the step-up line, the
// exchange log and a replay's hooks (the request's captured body).
type exchangeHost struct{ g *gateway }

func (h exchangeHost) LogRequest(tx *kernel.Tx, r *http.Request) (seq, end int64, err error) {
	in, end, err := h.g.logRequest(tx, r)
	if err != nil {
		return 0, 0, err
	}
	return in.Seq, end, nil
}

func (h exchangeHost) Resume(tx *kernel.Tx, seq int64) error {
	_, err := h.g.admit(tx, &recordedInput{Op: recfile.OpResume, Of: seq})
	return err
}

func (h exchangeHost) Park()                              { h.g.rec.Park() }
func (h exchangeHost) Unpark()                            { h.g.rec.Unpark() }
func (h exchangeHost) Fail(err error)                     { h.g.rec.Fail(err) }
func (h exchangeHost) Durable(end int64) error            { return h.g.rec.Durable(end) }
func (h exchangeHost) NotPersisted(err error) *apiError   { return notPersisted(err) }
func (h exchangeHost) NotDurable(err error) *apiError     { return notDurable(err) }
func (h exchangeHost) ControlID() string                  { return h.g.controlID() }
func (h exchangeHost) Now() time.Time                     { return h.g.st.clock.Now() }
func (h exchangeHost) Sweep(tx *kernel.Tx, now time.Time) { h.g.sweep(tx, now) }
func (h exchangeHost) RunDue(tx *kernel.Tx)               { h.g.runDue(tx) }
func (h exchangeHost) MerchantID(tx *kernel.Tx) string    { return h.g.st.merchant.ID(tx) }

func (h exchangeHost) Authorize(x *exchange.Exchange, e *api.Endpoint, body []byte, bodyTooLarge bool, now time.Time) *apiError {
	return h.g.authorize(x, e, body, bodyTooLarge, now)
}

func (h exchangeHost) ResolveMember(tx *kernel.Tx, v string) (*member, *apiError) {
	return h.g.resolveMember(tx, v)
}

func (h exchangeHost) IssueStepUp(tx *kernel.Tx, memberID, action string, now time.Time) error {
	return h.g.st.stepUp.Issue(tx, memberID, action, now)
}

func (h exchangeHost) MarkFault(r *http.Request, kind string) { markFault(r, FaultKind(kind)) }

// Replay reads the replay's hooks of r's captured body (record_body.go).
func (h exchangeHost) Replay(r *http.Request) (draws []bool, park func(), ok bool) {
	c := captureOf(r)
	if c == nil || c.replay == nil {
		return nil, nil, false
	}
	if c.replay.Want != nil {
		draws = c.replay.Want.Draws
	}
	return draws, c.replay.Park, true
}
