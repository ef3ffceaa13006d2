package simulator

import (
	"net/http"
	"time"

	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/inputlog"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// exchangeHost answers internal/exchange's Host for the gateway g: the
// input log (its callbacks and the recorder), the clock and its timers, what
// the checks of the caller look up (the API keys and access tokens, as
// internal/gateway's Key and Token, the merchant, the members), the lines
// told of their expired entries, the step-up line, the exchange log, a
// replay's hooks (the request's captured body), the capture of every
// request's body and the control API's not_found.
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

func (h exchangeHost) Park()                            { h.g.rec.Park() }
func (h exchangeHost) Unpark()                          { h.g.rec.Unpark() }
func (h exchangeHost) Fail(err error)                   { h.g.rec.Fail(err) }
func (h exchangeHost) Durable(end int64) error          { return h.g.rec.Durable(end) }
func (h exchangeHost) NotPersisted(err error) *apiError { return notPersisted(err) }
func (h exchangeHost) NotDurable(err error) *apiError   { return notDurable(err) }
func (h exchangeHost) ControlID() string                { return h.g.controlID() }
func (h exchangeHost) Now() time.Time                   { return h.g.st.clock.Now() }
func (h exchangeHost) RunDue(tx *kernel.Tx)             { h.g.runDue(tx) }
func (h exchangeHost) MerchantID(tx *kernel.Tx) string  { return h.g.st.merchant.ID(tx) }

func (h exchangeHost) APIKey(tx *kernel.Tx, clientID string) (pipeline.Key, bool) {
	k, ok := h.g.st.keys.Get(tx, clientID)
	return k.key(), ok
}

func (h exchangeHost) AccessToken(tx *kernel.Tx, value string) (pipeline.Token, bool) {
	t, ok := h.g.st.tokens.Get(tx, value)
	return pipeline.Token{Value: t.Value, ClientID: t.ClientID, Env: string(t.Env), ExpiresAt: t.ExpiresAt}, ok
}

func (h exchangeHost) PutAccessToken(tx *kernel.Tx, t pipeline.Token) {
	h.g.st.tokens.Put(tx, t.Value, token{Value: t.Value, ClientID: t.ClientID, Env: Environment(t.Env), ExpiresAt: t.ExpiresAt})
}

func (h exchangeHost) Merchant(tx *kernel.Tx) (env, status string) {
	return h.g.st.merchant.Env(tx), h.g.st.merchant.Status(tx)
}

func (h exchangeHost) Member(tx *kernel.Tx, id string) *member { return h.g.st.members.Get(tx, id) }
func (h exchangeHost) MemberByExternal(tx *kernel.Tx, ext string) *member {
	return h.g.st.members.ByExternal(tx, ext)
}

// The sweep's hooks (internal/gateway's Expired): an expired token leaves
// the tokens, the lines are told of their expired entries.
func (h exchangeHost) Token(tx *kernel.Tx, value string) { h.g.st.tokens.Delete(tx, value) }
func (h exchangeHost) Challenge(tx *kernel.Tx, id string, now time.Time) {
	h.g.st.stepUp.Sweep(tx, id, now)
}
func (h exchangeHost) QRMemo(tx *kernel.Tx, key string, now time.Time) {
	h.g.st.qr.ExpireMemo(tx, key, now)
}
func (h exchangeHost) RemittanceKey(tx *kernel.Tx, key string, now time.Time) {
	h.g.st.remit.ExpireIdempotencyKey(tx, key, now)
}

func (h exchangeHost) IssueStepUp(tx *kernel.Tx, memberID, action string, now time.Time) error {
	return h.g.st.stepUp.Issue(tx, memberID, action, now)
}

// Capture puts the input log's capture on r's body (inputlog.CaptureBody),
// unless it has one.
func (h exchangeHost) Capture(r *http.Request) { inputlog.CaptureBody(r) }

func (h exchangeHost) ControlNotFound(w http.ResponseWriter, r *http.Request, message string) {
	h.g.controlNotFound(w, r, message)
}

func (h exchangeHost) MarkFault(r *http.Request, kind string) { markFault(r, FaultKind(kind)) }

// Replay reads the replay's hooks of r's captured body (inputlog.Replayed).
func (h exchangeHost) Replay(r *http.Request) (draws []bool, park func(), ok bool) {
	return inputlog.Replayed(r)
}
