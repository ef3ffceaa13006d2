package reliability_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
	"github.com/mwallet/mwallet-go/webhooks"
)

// syncBuffer is a bytes.Buffer safe for concurrent log writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// tokenSpy records every access token and secret header the SDK sends, so
// the test knows the token values it must never find.
type tokenSpy struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen map[string]bool
}

func (s *tokenSpy) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	for _, h := range []string{"X-Auth-Token", "X-Signature"} {
		if v := r.Header.Get(h); v != "" {
			s.seen[strings.TrimPrefix(v, "Bearer ")] = true
		}
	}
	s.mu.Unlock()
	return s.next.RoundTrip(r)
}

// evidence collects every text a secret could leak into.
type evidence struct {
	parts []string
}

func (e *evidence) add(label string, v any) {
	e.parts = append(e.parts, fmt.Sprintf("%s %%v: %v", label, v), fmt.Sprintf("%s %%+v: %+v", label, v), fmt.Sprintf("%s %%#v: %#v", label, v))
	if err, ok := v.(error); ok && err != nil {
		e.parts = append(e.parts, label+" Error(): "+err.Error())
		for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(u) {
			e.parts = append(e.parts, label+" unwrapped: "+u.Error())
		}
	}
}

func (e *evidence) addJSON(label string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		e.parts = append(e.parts, label+": marshal error "+err.Error())
		return
	}
	e.parts = append(e.parts, label+": "+string(b))
}

// TestNoSecretInLogsErrorsOrJournal runs a full flow (token, signed
// writes, a QR payment with step-up, a card with PIN activation, a PIN
// reset with the CVV, a secure session, webhooks, failures of every kind)
// with a debug logger capturing everything, formats every result and error
// with %v, %+v and %#v, dumps the simulator's journal, state and events,
// and finds none of the secrets in any of it.
func TestNoSecretInLogsErrorsOrJournal(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	// No time attribute: a six-digit PIN could appear in a wall-clock
	// timestamp by chance and fail the test for nothing.
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}))
	sim := simtest.Start(t)
	creds := sim.Credentials()
	if err := sim.Keys.Set(creds.ClientID, simulator.KeySettings{ApproveRestricted: simulator.Bool(true), SignatureRequired: simulator.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	spy := &tokenSpy{next: http.DefaultTransport, seen: map[string]bool{}}
	hc := &http.Client{Transport: spy}
	c := sim.Client(clientOpts(mwallet.WithLogger(logger), mwallet.WithHTTPClient(hc))...)
	ctx := context.Background()
	const member = simulator.DefaultMemberExternalID
	ev := &evidence{}
	record := func(label string, v any, err error) {
		ev.add(label+" result", v)
		ev.add(label+" error", err)
	}

	// Webhooks: a receiver with a debug logger, registered with the
	// simulator, which signs deliveries with the endpoint secret.
	recv := httptest.NewServer(nil)
	t.Cleanup(recv.Close)
	whID, whSecret, err := sim.Webhooks.AddEndpoint(recv.URL)
	if err != nil {
		t.Fatal(err)
	}
	recv.Config.Handler = webhooks.Handler(mwallet.Secret(whSecret), nil, webhooks.WithLogger(logger), webhooks.WithClock(sim.Clock.Now))
	ev.add("webhook endpoint id", whID)

	// Money flows.
	dep, err := c.Deposits.Create(ctx, member, deposits.CreateParams{Asset: "USDT", Amount: usdt("40"), Reference: "sec-1"})
	record("deposit", dep, err)
	p := qrpay.PayParams{CodeValue: thaiCode("120.00")}
	_, err = c.QRPay.Pay(ctx, member, p)
	record("qr step-up", nil, err)
	su, ok := mwallet.AsStepUp(err)
	if !ok {
		t.Fatalf("Pay: %v", err)
	}
	ev.add("step-up", su)
	if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
		t.Fatal(err)
	}
	order, err := c.QRPay.Pay(ctx, member, p, su.Options()...)
	record("qr order", order, err)

	// A physical card activated with a PIN, a PIN reset with the CVV, a
	// secure session.
	const pin, newPIN = cards.PIN("135790"), cards.PIN("246809")
	if err := sim.Cards.SetLimit("physical", 50); err != nil {
		t.Fatal(err)
	}
	app, err := c.Cards.Apply(ctx, member, cards.ApplyParams{ClientKey: cards.NewClientKey(), SourceAsset: "USDT", ProductID: "cpd_physical_std"})
	record("apply", app, err)
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Cards.ApproveApplication(app.ID); err != nil {
		t.Fatal(err)
	}
	got, err := c.Cards.GetApplication(ctx, member, app.ID)
	record("application", got, err)
	if err != nil {
		t.Fatal(err)
	}
	cardID := got.CardID
	if err := sim.Cards.Ship(cardID); err != nil {
		t.Fatal(err)
	}
	plastic, err := sim.Cards.Plastic(cardID)
	if err != nil {
		t.Fatal(err)
	}
	wrong := cards.ActivateParams{Expiry: plastic.Expiry, PIN: "111111"}
	res, err := c.Cards.Activate(ctx, member, cardID, wrong)
	record("activate rejected PIN", res, err)
	ev.add("activate params", wrong)
	act := cards.ActivateParams{Expiry: plastic.Expiry, PIN: pin}
	res, err = c.Cards.Activate(ctx, member, cardID, act)
	record("activate", res, err)
	ev.add("activate params", act)
	reset := cards.SetPINParams{NewPIN: newPIN, CVV: cards.CVV(plastic.CVV)}
	ev.add("set pin params", reset)
	_, err = c.Cards.SetPIN(ctx, member, cardID, reset)
	record("set pin step-up", nil, err)
	if su, ok := mwallet.AsStepUp(err); ok {
		if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
			t.Fatal(err)
		}
		pr, err := c.Cards.SetPIN(ctx, member, cardID, reset, su.Options()...)
		record("set pin", pr, err)
	}
	sess, err := c.Cards.SecureSession(ctx, member, cardID)
	record("secure session", sess, err)
	sessionToken := ""
	if sess != nil {
		sessionToken = string(sess.Token)
	}

	// Failures: a transport error, a 502, a refused signature, refused
	// credentials.
	if err := sim.Faults.Inject(simulator.Fault{Path: "/v1/deposits", Kind: simulator.FaultDropBefore, Count: 10}); err != nil {
		t.Fatal(err)
	}
	dep, err = c.Deposits.Create(ctx, member, deposits.CreateParams{Asset: "USDT", Amount: usdt("1"), Reference: "sec-2"}, mwallet.WithMaxAttempts(2))
	record("dropped deposit", dep, err)
	if err := sim.Faults.Clear(); err != nil {
		t.Fatal(err)
	}
	if err := sim.Faults.Inject(simulator.Fault{Path: "/v1/qrpay/*", Kind: simulator.FaultError, Status: 502, Count: 10}); err != nil {
		t.Fatal(err)
	}
	o2, err := c.QRPay.Pay(ctx, member, qrpay.PayParams{CodeValue: thaiCode("90.00")}, mwallet.WithMaxAttempts(2))
	record("502 payment", o2, err)
	if err := sim.Faults.Clear(); err != nil {
		t.Fatal(err)
	}
	const wrongSigning, wrongAPIKey = "wrong_signing_key_5f2c9d1e7a", "wrong_api_key_8b3e6f0a4c"
	bad, err := mwclient.New(sim.URL(), mwallet.Credentials{ClientID: creds.ClientID, APIKey: mwallet.Secret(creds.APIKey), SigningKey: mwallet.Secret(wrongSigning)},
		mwallet.WithLogger(logger), mwallet.WithClock(sim.Clock.Now), mwallet.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	ev.add("client", bad)
	dep, err = bad.Deposits.Create(ctx, member, deposits.CreateParams{Asset: "USDT", Amount: usdt("1"), Reference: "sec-3"})
	record("bad signature", dep, err)
	bad2, err := mwclient.New(sim.URL(), mwallet.Credentials{ClientID: creds.ClientID, APIKey: mwallet.Secret(wrongAPIKey), SigningKey: mwallet.Secret(creds.SigningKey)},
		mwallet.WithLogger(logger), mwallet.WithClock(sim.Clock.Now), mwallet.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad2.Assets(ctx)
	record("bad api key", nil, err)
	ev.add("credentials", mwallet.Credentials{ClientID: creds.ClientID, APIKey: mwallet.Secret(creds.APIKey), SigningKey: mwallet.Secret(creds.SigningKey)})
	ev.add("sim credentials", creds)
	ev.add("webhook secret", mwallet.Secret(whSecret))

	// Webhook deliveries, and a forged one the receiver refuses (and logs).
	fr, err := sim.Webhooks.Flush(ctx)
	record("flush", fr, err)
	forged, _ := http.NewRequest(http.MethodPost, recv.URL, strings.NewReader(`{"event_id":"evt_x","event_type":"member.created","data":{}}`))
	forged.Header.Set(webhooks.SignatureHeader, fmt.Sprintf("t=%d,v1=%s", sim.Clock.Now().Unix(), strings.Repeat("A", 43)+"="))
	if resp, err := http.DefaultClient.Do(forged); err == nil {
		_ = resp.Body.Close()
	}
	if !strings.Contains(logs.String(), "webhook signature rejected") {
		t.Errorf("the forged delivery was not logged; the test would not see a leak in that path")
	}

	// The simulator's journal, state, events and deliveries, through Go and
	// through the control API.
	ev.addJSON("requests", sim.Requests.List())
	ev.addJSON("state", sim.State())
	ev.addJSON("events", sim.Events.List())
	ev.addJSON("deliveries", sim.Webhooks.Deliveries())
	ev.addJSON("endpoints", sim.Webhooks.Endpoints())
	// The dashboard's stepper shows every input with its answer (the
	// recording itself holds the credentials a replay needs; the stepper
	// must not show them).
	paths := []string{"/_sim/requests", "/_sim/state", "/_sim/events", "/_sim/webhooks/deliveries", "/_sim/webhooks/endpoints", "/_sim/keys", "/_sim/ledger", "/_sim/invariants", "/_sim/recording/steps"}
	rec, err := sim.Recording()
	if err != nil {
		t.Fatal(err)
	}
	for seq := 1; seq <= rec.Len(); seq++ {
		paths = append(paths, fmt.Sprintf("/_sim/recording/steps/%d", seq))
	}
	for _, path := range paths {
		resp, err := http.Get(sim.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", path, resp.StatusCode)
		}
		ev.parts = append(ev.parts, "GET "+path+": "+string(b))
	}
	ev.parts = append(ev.parts, "logs: "+logs.String())

	secrets := map[string]string{
		"API key": creds.APIKey, "signing key": creds.SigningKey, "webhook secret": whSecret,
		"default webhook secret": creds.WebhookSecret, "wrong signing key": wrongSigning, "wrong API key": wrongAPIKey,
		"PIN": string(pin), "new PIN": string(newPIN), "rejected PIN": "111111",
		"secure session token": sessionToken,
	}
	spy.mu.Lock()
	n := 0
	for v := range spy.seen {
		n++
		secrets[fmt.Sprintf("access token or signature %d", n)] = v
	}
	spy.mu.Unlock()
	if n < 3 || sessionToken == "" {
		t.Fatalf("the flow did not exercise tokens, signatures and a session (%d seen, session %q)", n, sessionToken)
	}
	all := strings.Join(ev.parts, "\n")
	for name, v := range secrets {
		if v == "" {
			t.Errorf("%s: empty; the flow did not produce it", name)
			continue
		}
		if i := strings.Index(all, v); i >= 0 {
			lo, hi := max(0, i-120), min(len(all), i+len(v)+40)
			t.Errorf("%s found: ...%s...", name, all[lo:hi])
		}
	}
	// The CVV is three digits: look for it as a value, not as any three
	// digits in an amount or a time.
	for _, pat := range []string{`"` + plastic.CVV + `"`, "cvv:" + plastic.CVV, "CVV:" + plastic.CVV, `cvv":` + plastic.CVV, "cvv=" + plastic.CVV} {
		if strings.Contains(all, pat) {
			t.Errorf("CVV found as %q", pat)
		}
	}
	if err := sim.CheckLedger(); err != nil {
		t.Errorf("CheckLedger: %v", err)
	}
	if err := sim.CheckInvariants(); err != nil {
		t.Errorf("CheckInvariants: %v", err)
	}
	t.Logf("scanned %d bytes (%d log bytes, %d formatted values, journal of %d requests) for %d secret values: none found",
		len(all), len(logs.String()), len(ev.parts), len(sim.Requests.List()), len(secrets))
}

// slogText is a debug-level text logger writing to w.
func slogText(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
