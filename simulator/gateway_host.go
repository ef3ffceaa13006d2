package simulator

import (
	pipeline "github.com/mwallet/mwallet-go/simulator/internal/gateway"
	"github.com/mwallet/mwallet-go/simulator/internal/gatewayhost"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The exchange's Host is internal/gatewayhost's Host, over the input log,
// the recorder, the clock, the timers and the control API's not_found (set
// in build), the state's keys and tokens and the capture of a request's body
// (newGateway), and the lines (setLines, once they exist).

// setLines hands the exchange's Host the lines it reads and tells.
func (g *gateway) setLines() {
	g.host.Lines = gatewayhost.Lines{Merchant: g.st.merchant, Members: &g.st.members, StepUp: &g.st.stepUp, QR: g.st.qr, Remit: g.st.remit}
}

// tokenTable is the state's table of access tokens as internal/gatewayhost's
// Tokens.
type tokenTable struct{ t *kernel.Table[string, token] }

func (t tokenTable) Get(tx *kernel.Tx, value string) (pipeline.Token, bool) {
	v, ok := t.t.Get(tx, value)
	return pipeline.Token{Value: v.Value, ClientID: v.ClientID, Env: string(v.Env), ExpiresAt: v.ExpiresAt}, ok
}
func (t tokenTable) Put(tx *kernel.Tx, v pipeline.Token) {
	t.t.Put(tx, v.Value, token{Value: v.Value, ClientID: v.ClientID, Env: Environment(v.Env), ExpiresAt: v.ExpiresAt})
}
func (t tokenTable) Delete(tx *kernel.Tx, value string) { t.t.Delete(tx, value) }
