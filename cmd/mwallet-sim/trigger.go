package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
)

func init() {
	commands["trigger"] = command{summary: "drive a running simulator until it emits an event (trigger -list for the types)",
		synopsis: "mwallet-sim trigger EVENT_TYPE [flags]   or   mwallet-sim trigger -list", run: trigger}
}

// recipe drives the simulator until it emits one event type.
type recipe struct {
	// flow is false for synthetic events: the simulator has no product
	// flow for them, so the event is recorded through POST
	// /_sim/webhooks/events.
	flow bool
	// how says in a few words how the event is produced.
	how string
	// run performs the steps and returns the data.id the event carries
	// (empty when only the member identifies it) or, for synthetic events,
	// the event id.
	run func(t *triggerRun) (string, error)
}

// recipes covers the 27 event types of the contract.
var recipes = map[string]recipe{
	"member.created":   {flow: true, how: "create a member (control API)", run: (*triggerRun).memberCreated},
	"member.suspended": {flow: true, how: "suspend a member (control API)", run: (*triggerRun).memberSuspended},

	"kyc.result.updated":    {flow: true, how: "approve the member's KYC at level 2", run: (*triggerRun).kycResultUpdated},
	"kyc.quick.compensated": {flow: true, how: "allocate a quick KYC binding, then compensate it", run: (*triggerRun).kycQuickCompensated},

	"deposit.credited": {flow: true, how: "declare a deposit (POST /v1/deposits)", run: (*triggerRun).depositCredited},

	"remittance.order.completed":       {flow: true, how: "send a remittance, dispatch and complete it", run: remit("dispatch", "complete")},
	"remittance.order.failed":          {flow: true, how: "send a remittance, fail it", run: remit("fail")},
	"remittance.order.refunded":        {flow: true, how: "send a remittance, complete and refund it", run: remit("dispatch", "complete", "refund")},
	"remittance.order.action_required": {flow: true, how: "send a remittance, ask for reconfirmation", run: remit("needs_reconfirm")},

	"qrpay.order.completed": {flow: true, how: "pay a QR code with step-up, complete it", run: qr("complete")},
	"qrpay.order.failed":    {flow: true, how: "pay a QR code with step-up, fail it", run: qr("fail")},
	"qrpay.order.refunded":  {flow: true, how: "pay a QR code with step-up, complete and refund it", run: qr("complete", "refund")},

	"card.application.submitted":     {flow: true, how: "apply for a virtual card", run: (*triggerRun).cardSubmitted},
	"card.application.approved":      {flow: true, how: "apply for a virtual card, approve it", run: (*triggerRun).cardApproved},
	"card.application.rejected":      {flow: true, how: "apply for a virtual card, reject it", run: (*triggerRun).cardRejected},
	"card.application.awaiting_bind": {flow: true, how: "apply for a physical card, approve and ship it", run: (*triggerRun).cardAwaitingBind},
	"card.status.updated":            {flow: true, how: "issue a virtual card, freeze it", run: (*triggerRun).cardStatusUpdated},
	"card.topup.credited":            {flow: true, how: "issue a virtual card, top it up, credit the top-up", run: (*triggerRun).cardTopUpCredited},
	"card.transaction.updated":       {flow: true, how: "issue a virtual card, add a card transaction", run: (*triggerRun).cardTransactionUpdated},
	"card.withdraw.completed":        {flow: true, how: "issue a virtual card, top it up, close it by the operator: the balance returns to the wallet", run: (*triggerRun).cardWithdrawCompleted},

	"withdrawal.order.locked":    synthetic("withdrawal.order.locked", "withdrawal", "locked", 1, true),
	"withdrawal.order.completed": synthetic("withdrawal.order.completed", "withdrawal", "completed", 2, true),
	"withdrawal.order.failed":    synthetic("withdrawal.order.failed", "withdrawal", "failed", 2, true),
	"card.3ds.received":          synthetic("card.3ds.received", "card", "received", 1, true),
	"merchant.balance.waterline": synthetic("merchant.balance.waterline", "merchant_balance", "updated", 1, false),
	"earn.order.settled":         synthetic("earn.order.settled", "earn_order", "settled", 0, true),
	"exchange.order.executed":    synthetic("exchange.order.executed", "exchange_order", "executed", 0, true),
}

// triggerConfig is what the trigger flags set.
type triggerConfig struct {
	event   string
	conn    connFlags
	member  string
	list    bool
	advance bool
}

func parseTrigger(args []string, stderr io.Writer) (c triggerConfig, err error) {
	defer func() { err = usageErr(err) }()
	fs := newFlagSet("trigger", commands["trigger"].synopsis,
		"Drives the running simulator at -url through the product flow that emits the event\n(or records it, for the event types no flow produces) and prints the event.\n"+
			"A wait the simulator asks for (Retry-After, a retry's backoff) is a wait on its clock: trigger\n"+
			"never sleeps; it stops with the reason, or with -advance-clock moves the simulator's clock.", stderr)
	addConnFlags(fs, &c.conn, "base URL of the running simulator (default "+defaultURL+")")
	fs.BoolVar(&c.advance, "advance-clock", false, "when the simulator asks to wait (Retry-After, a retry's backoff), move its clock by that much (POST /_sim/clock) instead of stopping")
	fs.StringVar(&c.member, "member", "", "external_member_id or mem_ id of an existing member to act for (default: a new member per trigger)")
	fs.BoolVar(&c.list, "list", false, "list the event types and how each is produced")
	// The event type may come before, between or after the flags.
	var pos []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			return c, err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	switch {
	case len(pos) == 1:
		c.event = pos[0]
	case len(pos) > 1:
		return c, fmt.Errorf("unexpected arguments: %s", strings.Join(pos[1:], " "))
	}
	if c.list {
		return c, nil
	}
	if c.event == "" {
		return c, errors.New("an event type is required (mwallet-sim trigger -list shows them)")
	}
	if _, ok := recipes[c.event]; !ok {
		return c, fmt.Errorf("unknown event type %q (mwallet-sim trigger -list shows the 27 types)", c.event)
	}
	return c, c.conn.resolve(defaultURL)
}

// trigger is the trigger command.
func trigger(ctx context.Context, args []string, stdout, stderr io.Writer, _ func(string)) error {
	cfg, err := parseTrigger(args, stderr)
	if err != nil {
		return err
	}
	if cfg.list {
		listRecipes(stdout)
		return nil
	}
	t, err := connect(ctx, cfg.conn, stdout, cfg.advance)
	if err != nil {
		return err
	}
	t.memberArg = cfg.member
	rec := recipes[cfg.event]
	fmt.Fprintf(stdout, "Triggering %s on %s (%s, %s)\n", cfg.event, t.base, t.creds.Model, t.creds.Environment)
	id, err := rec.run(t)
	if err != nil {
		return fmt.Errorf("%s: step %d: %w", cfg.event, t.steps+1, err)
	}
	if !rec.flow {
		fmt.Fprintf(stdout, "Event %s emitted: %s\n", cfg.event, id)
		fmt.Fprintln(stdout, "  synthetic: the simulator has no product flow for this event type; it was recorded with POST /_sim/webhooks/events for receiver testing")
		return nil
	}
	ev, err := t.findEvent(cfg.event, id)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Event %s emitted: %s\n", ev.Type, ev.ID)
	fmt.Fprintf(stdout, "  data.object %s, data.id %s, external_member_id %s, status %s, status_version %d\n",
		ev.Object, ev.ObjectID, ev.ExternalMemberID, ev.Status, ev.StatusVersion)
	return nil
}

func listRecipes(w io.Writer) {
	names := make([]string, 0, len(recipes))
	for n := range recipes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		r := recipes[n]
		kind := "flow     "
		if !r.flow {
			kind = "synthetic"
		}
		fmt.Fprintf(w, "%-34s %s  %s\n", n, kind, r.how)
	}
}

// triggerRun is one trigger against a running simulator: its business API
// through the SDK and its control API over plain HTTP.
type triggerRun struct {
	ctx       context.Context
	out       io.Writer
	base      string
	hc        *http.Client
	client    *mwclient.Client
	creds     simulator.Credentials
	steps     int
	token     string // the control token (-control-token), if any
	clock     *simClock
	memberArg string
	member    string // external_member_id acted for
	memberID  string // its mem_ id
}

// simClock is trigger's clock: the simulator's. Now is the wall clock moved
// to the simulator's reading (read at start, and again after each advance),
// which signatures need. Sleep never waits real time: a wait the simulator
// asks for is a wait on its clock, which a manual clock never ends. With
// -advance-clock it moves the simulator's clock by d (POST /_sim/clock) and
// returns; otherwise it returns at once with a *simWaitError saying so.
type simClock struct {
	t       *triggerRun
	advance bool
	offset  atomic.Int64 // the simulator's clock minus the wall clock
}

func (c *simClock) Now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

func (c *simClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil || d <= 0 {
		return err
	}
	if !c.advance {
		return &simWaitError{wait: d}
	}
	var clock struct {
		Unix int64 `json:"unix"`
	}
	if err := c.t.control(http.MethodPost, "/_sim/clock", map[string]any{"advance": d.String()}, &clock); err != nil {
		return err
	}
	c.offset.Store(int64(time.Until(time.Unix(clock.Unix, 0))))
	c.t.step("moved the simulator's clock %s ahead, the wait it asked for  (POST /_sim/clock, -advance-clock)", d)
	return nil
}

// simWaitError is a wait on the simulator's clock trigger did not make.
type simWaitError struct{ wait time.Duration }

func (e *simWaitError) Error() string {
	return fmt.Sprintf("the simulator asks to wait %s on its clock before trying again (Retry-After or a retry's backoff); trigger never sleeps: rerun with -advance-clock to move the simulator's clock, or later", e.wait)
}

// newHTTPClient returns a client with its own connection pool: the
// subcommands also run inside other programs (the tests run them in
// process), where http.DefaultTransport is shared and any code may close
// its idle connections under a request in flight.
func newHTTPClient(timeout time.Duration) *http.Client {
	return &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: timeout}
}

// connect reads the simulator's credentials and clock and builds an SDK
// client on the simulator's clock (simClock): it signs with the simulator's
// time (a simulator whose clock was moved ahead, or that runs a manual
// clock, would refuse wall-clock signatures) and never sleeps real time.
func connect(ctx context.Context, conn connFlags, out io.Writer, advance bool) (*triggerRun, error) {
	t := &triggerRun{ctx: ctx, out: out, base: conn.url, hc: newHTTPClient(30 * time.Second), token: conn.token}
	if err := t.control(http.MethodGet, "/_sim/credentials", nil, &t.creds); err != nil {
		return nil, fmt.Errorf("reading the simulator's credentials at %s: %w", t.base, err)
	}
	var clock struct {
		Unix int64 `json:"unix"`
	}
	if err := t.control(http.MethodGet, "/_sim/clock", nil, &clock); err != nil {
		return nil, fmt.Errorf("reading the simulator's clock: %w", err)
	}
	t.clock = &simClock{t: t, advance: advance}
	t.clock.offset.Store(int64(time.Until(time.Unix(clock.Unix, 0))))
	c, err := mwclient.New(t.base, mwallet.Credentials{
		ClientID:   t.creds.ClientID,
		APIKey:     mwallet.Secret(t.creds.APIKey),
		SigningKey: mwallet.Secret(t.creds.SigningKey),
	}, mwallet.WithHTTPClient(t.hc), mwallet.WithClockSource(t.clock))
	if err != nil {
		return nil, err
	}
	t.client = c
	return t, nil
}

// step prints one numbered step.
func (t *triggerRun) step(format string, args ...any) {
	t.steps++
	fmt.Fprintf(t.out, "  %2d. %s\n", t.steps, fmt.Sprintf(format, args...))
}

// control calls the control API; out, when not nil, receives the JSON answer.
func (t *triggerRun) control(method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(t.ctx, method, t.base+path, rd)
	if err != nil {
		return err
	}
	if body != nil || isWrite(method) {
		// The control API refuses writes of any other type.
		req.Header.Set("Content-Type", "application/json")
	}
	setControlToken(req, t.token)
	resp, err := t.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		var env struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		}
		if json.Unmarshal(b, &env) == nil && env.Code != "" {
			return fmt.Errorf("%s %s: %d %s: %s", method, path, resp.StatusCode, env.Code, env.Message)
		}
		return fmt.Errorf("%s %s: HTTP %d", method, path, resp.StatusCode)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: answer: %w", method, path, err)
		}
	}
	return nil
}

// action runs POST /_sim/<collection>/<id>/<action>.
func (t *triggerRun) action(collection, id, action string, body any) error {
	if body == nil {
		body = map[string]any{}
	}
	path := "/_sim/" + collection + "/" + url.PathEscape(id) + "/" + action
	if err := t.control(http.MethodPost, path, body, nil); err != nil {
		return err
	}
	t.step("upstream: %s %s  (POST %s)", action, id, path)
	return nil
}

// randomSuffix makes names of new members and references unique across
// runs against the same simulator.
func randomSuffix() string { return strings.ReplaceAll(uuid.NewString(), "-", "")[:8] }

// newMember creates a member at KYC level 1 holding 1000 USDT and 500 USDC.
func (t *triggerRun) newMember() (string, error) {
	var m struct {
		ID               string `json:"id"`
		ExternalMemberID string `json:"external_member_id"`
	}
	ext := "trigger-" + randomSuffix()
	body := map[string]any{"external_member_id": ext, "kyc_level": 1, "balances": map[string]string{"USDT": "1000", "USDC": "500"}}
	if err := t.control(http.MethodPost, "/_sim/members", body, &m); err != nil {
		return "", err
	}
	t.member, t.memberID = m.ExternalMemberID, m.ID
	t.step("created member %s (%s): KYC level 1, 1000 USDT, 500 USDC  (POST /_sim/members)", m.ExternalMemberID, m.ID)
	return m.ID, nil
}

// useMember acts for the member given with -member, or creates one.
func (t *triggerRun) useMember() error {
	if t.member != "" {
		return nil
	}
	if t.memberArg == "" {
		_, err := t.newMember()
		return err
	}
	var m struct {
		ID               string `json:"id"`
		ExternalMemberID string `json:"external_member_id"`
	}
	if err := t.control(http.MethodGet, "/_sim/members/"+url.PathEscape(t.memberArg), nil, &m); err != nil {
		return err
	}
	t.member, t.memberID = m.ExternalMemberID, m.ID
	t.step("acting for member %s (%s)", m.ExternalMemberID, m.ID)
	return nil
}

func (t *triggerRun) merchantFunded() bool { return t.creds.Model == simulator.MerchantHosted }

// findEvent returns the newest event of type typ about object id (ids
// compared without their REST prefix), or, when id is empty, about the
// member acted for.
func (t *triggerRun) findEvent(typ, id string) (simulator.Event, error) {
	var evs struct {
		Data []simulator.Event `json:"data"`
	}
	if err := t.control(http.MethodGet, "/_sim/events", nil, &evs); err != nil {
		return simulator.Event{}, err
	}
	for i := len(evs.Data) - 1; i >= 0; i-- {
		e := evs.Data[i]
		if e.Type != typ {
			continue
		}
		if (id != "" && bareID(e.ObjectID) == bareID(id)) || (id == "" && e.ExternalMemberID == t.member) {
			return e, nil
		}
	}
	return simulator.Event{}, fmt.Errorf("the simulator recorded no %s event for %s (is the member platform-direct? such members get no events)", typ, id)
}

// bareID strips a REST prefix (qrp_, crd_, ...) from an id.
func bareID(id string) string {
	for _, p := range []string{"qrp_", "crd_", "cap_", "ctp_", "ctx_", "rmt_", "mem_", "whd_", "dep_"} {
		if strings.HasPrefix(id, p) {
			return id[len(p):]
		}
	}
	return id
}

// --- members and KYC ---

// --- deposits ---

// --- remittances ---

// --- QR payments ---

// --- cards ---

// --- synthetic events ---
