package browser

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// crossSitePage is a page of another site that tries what a browser lets
// any page do without asking: simple cross-origin POSTs (text/plain and
// untyped fetches in no-cors mode, a text/plain form) to the simulator's
// control API. It sets its title once every answer has arrived.
const crossSitePage = `<!doctype html><title>sending</title>
<iframe name="sink" id="sink"></iframe>
<form id="f" method="POST" target="sink" enctype="text/plain" action="SIM/_sim/merchant">
<input name='{"status":"frozen","x":"' value='"}'></form>
<script>
const sim = "SIM";
let formDone = false, fetchDone = false;
const finish = () => { if (formDone && fetchDone) document.title = "sent"; };
document.getElementById("sink").addEventListener("load", () => { formDone = true; finish(); });
Promise.allSettled([
  fetch(sim + "/_sim/merchant", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: '{"status":"frozen"}'}),
  fetch(sim + "/_sim/clock", {method: "POST", mode: "no-cors", body: '{"advance_seconds":3600}'}),
  fetch(sim + "/_sim/faults", {method: "DELETE", mode: "no-cors"}),
]).then(() => { fetchDone = true; finish(); });
document.getElementById("f").submit();
</script>`

// TestCrossSitePageCannotDriveTheControlAPI opens a page of another origin
// that posts to the control API as any web page can; every request reaches
// the simulator and changes nothing (the merchant stays active, the clock
// stands, the fault stays armed). The dashboard of the same simulator then
// still drives it.
func TestCrossSitePageCannotDriveTheControlAPI(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	bctx := browser(t, ctx)
	sim := simtest.Start(t)
	if err := sim.Faults.Inject(simulator.Fault{Method: "GET", Path: "/v1/assets", Kind: simulator.FaultError, Status: 503, Code: "service_unavailable", Count: 1}); err != nil {
		t.Fatal(err)
	}
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(strings.ReplaceAll(crossSitePage, "SIM", sim.URL())))
	}))
	t.Cleanup(evil.Close)
	// Another origin: "localhost" and another port.
	page := strings.Replace(evil.URL, "127.0.0.1", "localhost", 1) + "/"
	start := sim.Clock.Now()
	err := chromedp.Run(bctx,
		chromedp.Navigate(page),
		chromedp.Poll(`document.title === "sent"`, nil, chromedp.WithPollingTimeout(20*time.Second)),
	)
	if err != nil {
		t.Fatalf("cross-site page: %v", err)
	}
	if st := sim.State().Merchant.Status; st != simulator.MerchantActive {
		t.Errorf("merchant status %s after the cross-site posts, want active", st)
	}
	if now := sim.Clock.Now(); !now.Equal(start) {
		t.Errorf("clock moved to %s", now)
	}
	if n := len(sim.Faults.List()); n != 1 {
		t.Errorf("%d faults armed after the cross-site DELETE, want 1", n)
	}

	// The dashboard (same origin) still works.
	err = chromedp.Run(bctx,
		chromedp.Navigate(sim.URL()+"/_sim/ui/"),
		chromedp.WaitVisible(`#members-table tbody tr`, chromedp.ByQuery),
		chromedp.Click(`button[data-advance="3600"]`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelector("#clock-now").textContent.startsWith("2026-01-01 01:00:00")`, nil,
			chromedp.WithPollingTimeout(15*time.Second)),
	)
	if err != nil {
		t.Fatalf("dashboard: %v", err)
	}
}

// TestDashboardWithAControlToken opens the dashboard of a simulator that
// requires a control token as /_sim/ui/#token=TOKEN: the token leaves the
// address bar, the state loads and a button drives the simulator.
func TestDashboardWithAControlToken(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	bctx := browser(t, ctx)
	const tok = "dash-0a1b2c3d"
	sim := simtest.Start(t, simulator.WithControlToken(tok))
	var href string
	err := chromedp.Run(bctx,
		chromedp.Navigate(sim.URL()+"/_sim/ui/#token="+tok),
		chromedp.WaitVisible(`#members-table tbody tr`, chromedp.ByQuery),
		chromedp.Location(&href),
		chromedp.Click(`button[data-advance="3600"]`, chromedp.ByQuery),
		chromedp.Poll(`document.querySelector("#clock-now").textContent.startsWith("2026-01-01 01:00:00")`, nil,
			chromedp.WithPollingTimeout(15*time.Second)),
	)
	if err != nil {
		t.Fatalf("dashboard: %v", err)
	}
	if strings.Contains(href, tok) {
		t.Errorf("the token stays in the address bar: %s", href)
	}
	if got, want := sim.Clock.Now(), simulator.DefaultStart.Add(time.Hour); !got.Equal(want) {
		t.Errorf("simulator clock %s, want %s", got, want)
	}
}
