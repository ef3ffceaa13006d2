package simulator

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/mwallet/mwallet-go/simulator/internal/exchangelog"
)

// EnvExchangeLog names the environment variable that turns on the exchange
// log: when it holds a directory, every simulator started by New (and the
// standalone mwallet-sim) appends each HTTP exchange it serves, and each
// webhook delivery it sends, as one JSON line to a file in that directory
// (exchanges-<pid>.ndjson, one file per process). The repository's CI
// validates these files against the OpenAPI documents in openapi/.
//
// The log holds the exchanges verbatim: access tokens, API keys, request
// signatures, PINs and CVVs sent in test bodies, and the simulator's
// credentials as GET /_sim/credentials answers them. It is therefore off by
// default, written only inside the named directory (created with mode 0700,
// files 0600), and meant for throw-away test directories only. Never point
// it at a directory that is shared or kept.
//
// A simulator served by calling its ServeHTTP directly (an in-process
// httptest.ResponseRecorder) is not logged: only New's server, mwallet-sim
// and the handlers wrapped with LogExchanges are.
const EnvExchangeLog = "MWALLET_SIM_EXCHANGE_LOG"

// Exchange is one line of the exchange log.
type Exchange struct {
	// Kind is "serve" for a request the simulator answered and "webhook"
	// for a delivery it sent.
	Kind string `json:"kind"`
	// Instance numbers the logging handler within its process; Seq numbers
	// the exchanges of that instance from 1.
	Instance int64         `json:"instance"`
	Seq      int64         `json:"seq"`
	Time     time.Time     `json:"time"`
	Request  LoggedMessage `json:"request"`
	// Response is nil when the connection was dropped without an answer
	// (the drop_before and drop_after faults) or the delivery failed in
	// transport.
	Response *LoggedMessage `json:"response,omitempty"`
	// Dropped marks an exchange that ended without a response.
	Dropped bool `json:"dropped,omitempty"`
	// Fault is the kind of the injected fault the simulator applied to
	// the request (error, error_after, drop_before, drop_after, delay),
	// empty when none: its answer is what the test asked for, not what the
	// contract describes for the route.
	Fault string `json:"fault,omitempty"`
}

// LoggedMessage is a request or a response of the exchange log.
type LoggedMessage struct {
	Method string `json:"method,omitempty"` // requests only
	// Target is the request target as sent: the escaped path and query of a
	// served request, the absolute URL of a webhook delivery.
	Target string      `json:"target,omitempty"`
	Status int         `json:"status,omitempty"` // responses only
	Header http.Header `json:"header"`
	// Body is the body as text when it is valid UTF-8; otherwise BodyBase64
	// holds it.
	Body       string `json:"body,omitempty"`
	BodyBase64 []byte `json:"body_base64,omitempty"`
	Truncated  bool   `json:"truncated,omitempty"`
}

// LogExchanges returns h wrapped so that it appends every exchange it serves
// to the exchange log when EnvExchangeLog is set, and h itself otherwise.
// New applies it to its server; mwallet-sim applies it to its handler.
func LogExchanges(h http.Handler) http.Handler {
	return exchangelog.FromEnv(h, EnvExchangeLog, encodeExchange)
}

// deliveryTransport is the transport of the webhook delivery client: the
// simulator's own pool tr, wrapped to log each delivery when
// EnvExchangeLog is set.
func deliveryTransport(tr *http.Transport) http.RoundTripper {
	return exchangelog.TransportFromEnv(tr, EnvExchangeLog, encodeExchange)
}

// encodeExchange writes a line of the exchange log as an Exchange, the
// form its readers decode.
func encodeExchange(e *exchangelog.Entry) ([]byte, error) {
	x := Exchange{Kind: e.Kind, Instance: e.Instance, Seq: e.Seq, Time: e.Time,
		Request: loggedMessage(e.Request), Dropped: e.Dropped, Fault: e.Fault}
	if e.Response != nil {
		resp := loggedMessage(*e.Response)
		x.Response = &resp
	}
	return json.Marshal(&x)
}

func loggedMessage(m exchangelog.Message) LoggedMessage {
	return LoggedMessage{Method: m.Method, Target: m.Target, Status: m.Status, Header: m.Header,
		Body: m.Body, BodyBase64: m.BodyBase64, Truncated: m.Truncated}
}
