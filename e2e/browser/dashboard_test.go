// Package browser drives the simulator's dashboard (/_sim/ui/) in headless
// Chromium. It is a module of its own so the SDK's dependencies stay small.
//
// The tests skip when no Chromium is installed, except under CI (CI set),
// where a missing browser fails them. Run with -update to rewrite
// docs/dashboard.png from the screenshot the test takes.
package browser

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/emvqr"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

var update = flag.Bool("update", false, "rewrite docs/dashboard.png with the screenshot")

// chromium finds the browser: $CHROMIUM, then the usual names on PATH.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		exe, err := exec.LookPath(p)
		if err != nil {
			t.Fatalf("CHROMIUM=%s: %v", p, err)
		}
		return exe
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed and CI is set: install it (apt-get install -y chromium) or set CHROMIUM")
	}
	t.Skip("chromium is not installed: apt-get install -y chromium (or set CHROMIUM) to run the dashboard test")
	return ""
}

// browser starts headless Chromium with a fresh profile and every
// background network feature off (the test network is closed). The browser
// is closed, and its profile removed, when the test ends.
func browser(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	exe := chromium(t)
	profile, err := os.MkdirTemp("", "mwallet-dashboard-")
	if err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1400, 1100),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		// Close the browser and wait for it, but not forever: a browser
		// that never started leaves chromedp's wait without an end.
		closed := make(chan struct{})
		go func() {
			_ = chromedp.Cancel(bctx)
			cancel()
			cancelAlloc()
			close(closed)
		}()
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
			t.Log("the browser did not close within 10 s")
		}
		// The browser's helpers may still be flushing the profile: its
		// removal is best effort.
		_ = os.RemoveAll(profile)
	})
	return bctx
}

// payQR pays a 250 THB PromptPay code for member-1 through the SDK and
// returns the processing order's id.
func payQR(t *testing.T, ctx context.Context, sim *simulator.Simulator) string {
	t.Helper()
	client := sim.Client()
	const member = simulator.DefaultMemberExternalID
	code := emvqr.MustBuild(emvqr.Payload{
		PointOfInitiation: "12",
		MerchantAccounts: []emvqr.MerchantAccount{{Tag: "30", GUI: "A000000677010112",
			Fields: []emvqr.Field{{Tag: "01", Value: "010554412345601"}, {Tag: "02", Value: "ORDER1"}}}},
		MerchantCategoryCode: "5812", Currency: "764", Amount: "250.00", Country: "TH",
		MerchantName: "BAAN THAI KITCHEN", MerchantCity: "BANGKOK",
	})
	if _, err := client.QRPay.Decode(ctx, member, qrpay.DecodeParams{CodeValue: code}); err != nil {
		t.Fatal(err)
	}
	q, err := client.QRPay.Quote(ctx, member, qrpay.QuoteParams{CodeValue: code})
	if err != nil {
		t.Fatal(err)
	}
	p := qrpay.PayParams{CodeValue: code, PreferredAsset: q.Chosen.Asset}
	_, err = client.QRPay.Pay(ctx, member, p)
	su, ok := mwallet.AsStepUp(err)
	if !ok {
		t.Fatalf("pay without step-up: %v", err)
	}
	if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
		t.Fatal(err)
	}
	order, err := client.QRPay.Pay(ctx, member, p, su.Options()...)
	if err != nil {
		t.Fatal(err)
	}
	if order.Status != qrpay.StatusProcessing {
		t.Fatalf("order %s is %s, want processing", order.ID, order.Status)
	}
	return order.ID
}

// populate gives the other tables something to show: a second member, a
// card application, a remittance, and a webhook endpoint that refuses
// connections (so delivery rows carry failed attempts).
func populate(t *testing.T, ctx context.Context, sim *simulator.Simulator) {
	t.Helper()
	client := sim.Client()
	if _, err := sim.Members.Create(simulator.MemberSeed{ExternalID: "member-2", KYCLevel: 2, Balances: map[string]string{"USDT": "250", "BTC": "0.015"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Cards.Apply(ctx, "member-2", cards.ApplyParams{ClientKey: cards.NewClientKey(), SourceAsset: "USDT", ProductID: "cpd_virtual_review", FirstTopUp: money.MustParse("20", 6)}); err != nil {
		t.Fatal(err)
	}
	var payee string
	for p, err := range client.Remittances.Payees(ctx, "member-2", mwallet.ListParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		if p.Currency == "GBP" {
			payee = p.ID
			break
		}
	}
	if _, err := client.Remittances.Create(ctx, "member-2", remittance.CreateParams{PayeeID: payee, PayoutAmount: "40.00",
		PayoutCurrency: "GBP", SlippageBps: 100, PurposeCode: "FAMILY_SUPPORT"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := sim.Webhooks.AddEndpoint("http://127.0.0.1:1/unreachable"); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Events.Emit("card.status.updated", "card", "0b6f6a52-1111-4222-8333-944455556666", "member-2", "active", 2); err != nil {
		t.Fatal(err)
	}
	// The endpoint is unreachable on purpose (a failed row to show): Flush
	// reports it as a *simulator.FlushError.
	var fe *simulator.FlushError
	if res, err := sim.Webhooks.Flush(ctx); !errors.As(err, &fe) || res.Failed != 1 {
		t.Fatalf("flush: %+v, %v; want the one planted failure", res, err)
	}
}

func TestDashboardCompletesAQROrder(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	bctx := browser(t, ctx)

	sim := simtest.Start(t)
	id := payQR(t, ctx, sim)
	populate(t, ctx, sim)

	status := fmt.Sprintf(`#qr-orders-table [data-status-of=%q]`, id)
	complete := fmt.Sprintf(`#qr-orders-table button[data-action="qrpay/orders/complete"][data-id=%q]`, id)
	var before, after, clock string
	var png []byte
	err := chromedp.Run(bctx,
		chromedp.Navigate(sim.URL()+"/_sim/ui/"),
		chromedp.WaitVisible(status, chromedp.ByQuery),
		chromedp.Text(status, &before, chromedp.ByQuery),
		chromedp.Text("#clock-now", &clock, chromedp.ByQuery),
		chromedp.WaitEnabled(complete, chromedp.ByQuery),
		chromedp.Click(complete, chromedp.ByQuery),
		// The page re-reads the state after the action and on its 1 s poll.
		chromedp.Poll(fmt.Sprintf(`document.querySelector(%q)?.textContent === "completed"`, status), nil,
			chromedp.WithPollingTimeout(15*time.Second)),
		chromedp.Text(status, &after, chromedp.ByQuery),
		chromedp.Evaluate(`window.scrollTo(0, 0)`, nil),
		chromedp.CaptureScreenshot(&png),
	)
	if err != nil {
		t.Fatalf("dashboard: %v (order %s)", err, id)
	}
	if before != "processing" || after != "completed" {
		t.Errorf("status on screen %q then %q, want processing then completed", before, after)
	}
	if !strings.HasPrefix(clock, "2026-01-01 00:00:00") {
		t.Errorf("clock on screen %q", clock)
	}

	// The click went through the control API: the order completed and its
	// event was recorded.
	var completed bool
	for _, e := range sim.Events.List() {
		if e.Type == "qrpay.order.completed" && "qrp_"+e.ObjectID == id {
			completed = true
		}
	}
	if !completed {
		t.Errorf("no qrpay.order.completed event for %s", id)
	}
	if err := sim.CheckLedger(); err != nil {
		t.Error(err)
	}
	if err := sim.CheckInvariants(); err != nil {
		t.Error(err)
	}

	shot := filepath.Join(t.TempDir(), "dashboard.png")
	if *update {
		shot = filepath.Join("..", "..", "docs", "dashboard.png")
		if err := os.MkdirAll(filepath.Dir(shot), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", shot, len(png))
}

func TestDashboardAdvancesTheClock(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	bctx := browser(t, ctx)
	sim := simtest.Start(t)

	err := chromedp.Run(bctx,
		chromedp.Navigate(sim.URL()+"/_sim/ui/"),
		chromedp.WaitVisible(`#members-table tbody tr`, chromedp.ByQuery),
		chromedp.Click(`button[data-advance="3600"]`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelector("#clock-now").textContent.startsWith("2026-01-01 01:00:00")`, nil,
			chromedp.WithPollingTimeout(15*time.Second)),
	)
	if err != nil {
		t.Fatalf("dashboard: %v", err)
	}
	if got, want := sim.Clock.Now(), simulator.DefaultStart.Add(time.Hour); !got.Equal(want) {
		t.Errorf("simulator clock %s, want %s", got, want)
	}
}

// TestDashboardStepsThroughRecording opens the recording's stepper and
// walks it: the first step shows the simulator as it started, each next
// step the state after one more input (a member created by the Go API, a
// token, a deposit), with the input (credentials redacted) and its answer;
// "back to live" returns to the live state.
func TestDashboardStepsThroughRecording(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	bctx := browser(t, ctx)
	sim := simtest.Start(t)
	if _, err := sim.Members.Create(simulator.MemberSeed{ExternalID: "member-2", KYCLevel: 1, Balances: map[string]string{"USDT": "7"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Client().Deposits.Create(ctx, "member-1", deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("25", 6), Reference: "stepper-1"}); err != nil {
		t.Fatal(err)
	}
	// The recording holds the simulator's address (base_url, logged before
	// the first input), Members.Create, the token exchange and the deposit,
	// then whatever the browser asks of the business paths (its request for
	// /favicon.ico is a business request, answered not_found and
	// journaled): n is read from the page.
	var n int
	pos := func(k int) chromedp.Action {
		return chromedp.ActionFunc(func(ctx context.Context) error {
			if k < 0 {
				k = n
			}
			return chromedp.Poll(fmt.Sprintf(`document.querySelector("#step-pos").textContent === "step %d of %d"`, k, n), nil,
				chromedp.WithPollingTimeout(15*time.Second)).Do(ctx)
		})
	}
	const m1 = `#members-table [data-balance-of="member-1/USDT"] div`
	var last, first, afterMember, afterDeposit, input, answer, title, liveText string
	var members0, members1 int
	err := chromedp.Run(bctx,
		chromedp.Navigate(sim.URL()+"/_sim/ui/"),
		chromedp.WaitVisible(`#members-table tbody tr`, chromedp.ByQuery),
		chromedp.Click(`#step-open`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelectorAll("#step-list li").length >= 4`, nil, chromedp.WithPollingTimeout(15*time.Second)),
		chromedp.Evaluate(`document.querySelectorAll("#step-list li").length`, &n),
		pos(-1),
		chromedp.Text(m1, &last, chromedp.ByQuery),
		chromedp.Click(`#step-first`, chromedp.ByQuery),
		pos(0),
		chromedp.Text(m1, &first, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll("#members-table tbody tr").length`, &members0),
		chromedp.Click(`#step-next`, chromedp.ByQuery),
		pos(1),
		chromedp.Click(`#step-next`, chromedp.ByQuery),
		pos(2),
		chromedp.Evaluate(`document.querySelectorAll("#members-table tbody tr").length`, &members1),
		chromedp.Text(`#step-title`, &title, chromedp.ByQuery),
		chromedp.Text(m1, &afterMember, chromedp.ByQuery),
		chromedp.Click(`#step-list li[data-step="4"]`, chromedp.ByQuery),
		pos(4),
		chromedp.Text(m1, &afterDeposit, chromedp.ByQuery),
		chromedp.Text(`#step-input`, &input, chromedp.ByQuery),
		chromedp.Text(`#step-answer`, &answer, chromedp.ByQuery),
		chromedp.Click(`#step-live`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelector("#live-text").textContent.startsWith("live")`, nil, chromedp.WithPollingTimeout(15*time.Second)),
		chromedp.Text(`#live-text`, &liveText, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("dashboard: %v", err)
	}
	if first != "1000.000000" || afterMember != "1000.000000" || afterDeposit != "1025.000000" || last != "1025.000000" {
		t.Errorf("member-1 USDT at steps 0, 2, 4 and the last: %q %q %q %q", first, afterMember, afterDeposit, last)
	}
	if members0 != 1 || members1 != 2 || !strings.Contains(title, "Members.Create") {
		t.Errorf("members at step 0: %d, at step 2: %d (%q)", members0, members1, title)
	}
	if !strings.Contains(input, `"/v1/deposits"`) || !strings.Contains(input, "stepper-1") || !strings.Contains(input, "[redacted]") ||
		strings.Contains(input, simulator.DefaultSigningKey) {
		t.Errorf("input of step 4:\n%s", input)
	}
	if !strings.HasPrefix(answer, "201") || !strings.Contains(answer, "dep_stepper-1") {
		t.Errorf("answer of step 4:\n%s", answer)
	}
	if !strings.HasPrefix(liveText, "live") {
		t.Errorf("after back to live: %q", liveText)
	}
	// Stepping reads: it adds nothing to the recording.
	if got, _ := sim.Recording(); got.Len() != n {
		t.Errorf("the recording has %d inputs, the stepper showed %d", got.Len(), n)
	}
}
