package tour

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mwallet/mwallet-go/simulator/emvqr"
)

// Config says where the tour runs.
type Config struct {
	// API is the base URL of the business API: a validating proxy in front
	// of the simulator, or the simulator itself.
	API string
	// Control is the base URL of the simulator's control API.
	Control string
	// Log, when set, receives one line per step.
	Log io.Writer
}

// Result is what the tour did.
type Result struct {
	// Calls counts business calls per "METHOD /template" and status.
	Calls map[string]map[int]int
	// Events counts the webhook deliveries received per event type (each
	// with a verified z-signature).
	Events map[string]int
}

// Operations lists the business operations the tour called, sorted.
func (r *Result) Operations() []string {
	var out []string
	for op := range r.Calls {
		out = append(out, op)
	}
	sort.Strings(out)
	return out
}

type tour struct {
	*client
	cfg      Config
	res      *Result
	failures []string
	member   string // member-1
	memberID string // its mem_ id
	secret   string // webhook secret of the tour's endpoint
	mu       sync.Mutex
	received map[string]int
	badSig   []string

	// The scope pass: the first successful call of each operation and its
	// status, the fixture Key's scopes, tokens of Keys per scope set.
	firstOK     map[string]*call
	firstStatus map[string]int
	catalogue   []string
	tokens      map[string]string
}

func (t *tour) logf(format string, args ...any) {
	if t.cfg.Log != nil {
		fmt.Fprintf(t.cfg.Log, format+"\n", args...)
	}
}

func (t *tour) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	t.failures = append(t.failures, msg)
	t.logf("FAIL %s", msg)
}

// api sends a business call and checks its status (and error code when
// code is not empty).
func (t *tour) api(op string, k call, status int, code string) *answer {
	a, err := t.send(k)
	if err != nil {
		t.fail("%s: %v", op, err)
		return &answer{json: map[string]any{}}
	}
	if t.res.Calls[op] == nil {
		t.res.Calls[op] = map[int]int{}
	}
	t.res.Calls[op][a.status]++
	t.record(op, k, a.status)
	if a.status != status || (code != "" && a.code() != code) {
		t.fail("%s: answered %d %s, want %d %s: %.300s", op, a.status, a.code(), status, code, a.body)
	} else {
		t.logf("%-48s %d %s", op, a.status, a.code())
	}
	if a.json == nil {
		a.json = map[string]any{}
	}
	return a
}

// ctlOK sends a control call and records a failure when it fails.
func (t *tour) ctlOK(method, path string, body any) *answer {
	a, err := t.ctl(method, path, body)
	if err != nil {
		t.fail("control %v", err)
		return &answer{json: map[string]any{}}
	}
	return a
}

// Run runs the tour. It fails when an answer is not the one the tour
// expects, or when a webhook event type was not delivered with a valid
// signature.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	c := &client{ctx: ctx, hc: &http.Client{Timeout: 30 * time.Second}, api: strings.TrimSuffix(cfg.API, "/"), control: strings.TrimSuffix(cfg.Control, "/")}
	t := &tour{client: c, cfg: cfg, res: &Result{Calls: map[string]map[int]int{}, Events: map[string]int{}}, received: map[string]int{},
		firstOK: map[string]*call{}, firstStatus: map[string]int{}, tokens: map[string]string{}}

	creds, err := c.ctl(http.MethodGet, "/_sim/credentials", nil)
	if err != nil {
		return nil, err
	}
	c.clientID, c.apiKey, c.signingKey = creds.str("client_id"), creds.str("api_key"), creds.str("signing_key")
	clock, err := c.ctl(http.MethodGet, "/_sim/clock", nil)
	if err != nil {
		return nil, err
	}
	if unix, ok := clock.json["unix"].(float64); ok {
		c.clockOffset = time.Until(time.Unix(int64(unix), 0))
	}

	// A webhook receiver subscribed to every event.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(t.receive), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	ep, err := c.ctl(http.MethodPost, "/_sim/webhooks/endpoints", map[string]any{"url": "http://" + ln.Addr().String() + "/hooks"})
	if err != nil {
		return nil, err
	}
	t.secret = ep.str("secret")
	t.logf("webhook receiver %s, endpoint %s", ln.Addr(), ep.str("id"))

	t.member = "member-1"
	m, err := c.ctl(http.MethodGet, "/_sim/members/"+t.member, nil)
	if err != nil {
		return nil, err
	}
	t.memberID = m.str("id")

	t.authentication()
	t.assetsAndMembers()
	t.qrPayments()
	t.deposits()
	t.cards()
	t.remittances()
	t.kyc()
	t.moreErrors()
	t.syntheticEvents()
	t.webhookDeliveries()
	t.scopes(ctx)

	// Deliver everything due and check every event type arrived.
	if _, err := c.ctl(http.MethodPost, "/_sim/webhooks/flush", nil); err != nil {
		t.fail("flush: %v", err)
	}
	t.books()
	t.mu.Lock()
	for k, v := range t.received {
		t.res.Events[k] = v
	}
	bad := append([]string(nil), t.badSig...)
	t.mu.Unlock()
	for _, b := range bad {
		t.fail("webhook: %s", b)
	}
	for _, typ := range EventTypes {
		if t.res.Events[typ] == 0 {
			t.fail("webhook %s: never delivered", typ)
		}
	}
	if len(t.failures) > 0 {
		return t.res, fmt.Errorf("%d tour steps failed:\n  %s", len(t.failures), strings.Join(t.failures, "\n  "))
	}
	return t.res, nil
}

// EventTypes are the 27 event types of the specification.
var EventTypes = []string{
	"member.created", "member.suspended", "kyc.result.updated", "kyc.quick.compensated", "deposit.credited",
	"withdrawal.order.locked", "withdrawal.order.completed", "withdrawal.order.failed",
	"remittance.order.completed", "remittance.order.failed", "remittance.order.refunded", "remittance.order.action_required",
	"qrpay.order.completed", "qrpay.order.failed", "qrpay.order.refunded",
	"card.application.approved", "card.application.rejected", "card.application.submitted", "card.application.awaiting_bind",
	"card.3ds.received", "card.status.updated", "card.topup.credited", "card.withdraw.completed", "card.transaction.updated",
	"merchant.balance.waterline", "earn.order.settled", "exchange.order.executed",
}

// receive is the webhook receiver: it verifies the signature over the raw
// body and counts the event type.
func (t *tour) receive(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	typ := r.Header.Get("z-event-type")
	ok := false
	var ts, v1 string
	for _, part := range strings.Split(r.Header.Get("z-signature"), ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			v1 = v
		}
	}
	if ts != "" && v1 != "" {
		mac := hmac.New(sha256.New, []byte(t.secret))
		mac.Write([]byte(ts + "." + string(body)))
		want := base64.StdEncoding.EncodeToString(mac.Sum(nil))
		ok = hmac.Equal([]byte(want), []byte(v1))
	}
	t.mu.Lock()
	if ok {
		t.received[typ]++
	} else {
		t.badSig = append(t.badSig, fmt.Sprintf("%s %s: z-signature does not verify", typ, r.Header.Get("z-event-id")))
	}
	t.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (t *tour) authentication() {
	a, err := t.exchange("not-the-api-key")
	if err != nil {
		t.fail("token exchange: %v", err)
	} else {
		t.count("POST /v1/connect/token", a)
		if a.status != 401 || a.code() != "invalid_credentials" {
			t.fail("token exchange with a wrong key: %d %s", a.status, a.body)
		}
	}
	a, err = t.exchange(t.apiKey)
	if err != nil {
		t.fail("token exchange: %v", err)
		return
	}
	t.count("POST /v1/connect/token", a)
	if a.status != 200 {
		t.fail("token exchange: %d %s", a.status, a.body)
		return
	}
	t.token = a.str("auth_token")
	if scopes, ok := a.json["scopes"].([]any); ok {
		for _, s := range scopes {
			if s, ok := s.(string); ok {
				t.catalogue = append(t.catalogue, s)
			}
		}
	}
	t.logf("%-48s %d", "POST /v1/connect/token", a.status)
}

// books checks, once everything is done, that the simulator's ledger
// balances (GET /_sim/ledger) and that its invariants hold (GET
// /_sim/invariants): no money on an ended card, every hold owned by a live
// object.
func (t *tour) books() {
	if l := t.ctlOK(http.MethodGet, "/_sim/ledger", nil); l.json["balanced"] != true {
		t.fail("ledger after the tour: %.300s", l.body)
	}
	inv := t.ctlOK(http.MethodGet, "/_sim/invariants", nil)
	if v, _ := inv.json["violations"].([]any); inv.json["hold"] != true || len(v) != 0 {
		t.fail("invariants after the tour: %.600s", inv.body)
	}
}

func (t *tour) count(op string, a *answer) {
	if t.res.Calls[op] == nil {
		t.res.Calls[op] = map[int]int{}
	}
	t.res.Calls[op][a.status]++
}

// fault arms one injected error for the next matching business request.
func (t *tour) fault(method, path string, status int, code string) {
	t.ctlOK(http.MethodPost, "/_sim/faults", map[string]any{"method": method, "path": path, "kind": "error", "count": 1, "status": status, "code": code})
}

// QRCode is the tour's QR code: a dynamic PromptPay bill of 250.00 THB.
var QRCode = emvqr.MustBuild(emvqr.Payload{
	PointOfInitiation: "12",
	MerchantAccounts: []emvqr.MerchantAccount{{Tag: "30", GUI: "A000000677010112",
		Fields: []emvqr.Field{{Tag: "01", Value: "010554412345601"}, {Tag: "02", Value: "TOUR"}}}},
	MerchantCategoryCode: "5812", Currency: "764", Amount: "250.00", Country: "TH",
	MerchantName: "BAAN THAI KITCHEN", MerchantCity: "BANGKOK",
})
