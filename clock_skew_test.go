package mwallet_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
	"github.com/mwallet/mwallet-go/webhooks"
)

// skewedClock is the simulator's clock set wrong by an offset the test
// changes: a host whose clock drifts, then is fixed.
type skewedClock struct {
	sim *simulator.Clock
	off atomic.Int64
}

func (c *skewedClock) Now() time.Time { return c.sim.Now().Add(time.Duration(c.off.Load())) }

func (c *skewedClock) Sleep(ctx context.Context, d time.Duration) error { return c.sim.Sleep(ctx, d) }

// agedTransport gives, when armed, one answer the shape of a cache's: an
// Age header and a Date a day old.
type agedTransport struct {
	base  http.RoundTripper
	now   func() time.Time
	armed atomic.Bool
	mu    sync.Mutex
	sent  []signedHeaders // of every signed write
}

// signedHeaders are the headers of one attempt of a signed write.
type signedHeaders struct{ Key, Nonce, Timestamp string }

func (a *agedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if ts := r.Header.Get("X-Timestamp"); ts != "" {
		a.mu.Lock()
		a.sent = append(a.sent, signedHeaders{r.Header.Get("X-Idempotency-Key"), r.Header.Get("X-Nonce"), ts})
		a.mu.Unlock()
	}
	resp, err := a.base.RoundTrip(r)
	if err == nil && a.armed.CompareAndSwap(true, false) {
		resp.Header.Set("Age", "86400")
		resp.Header.Set("Date", a.now().Add(-24*time.Hour).UTC().Format(http.TimeFormat))
	}
	return resp, err
}

func simTransport(sim *simulator.Simulator) http.RoundTripper {
	if hc := sim.HTTPClient(); hc != nil && hc.Transport != nil {
		return hc.Transport
	}
	return http.DefaultTransport
}

// TestSkewTable moves the client's clock against the simulator's (the
// service allows x-timestamp within 300 s): -1 h, -301 s, +299 s, an
// answer carrying Age (a cached Date, ignored), +301 s, +1 h, then fixed
// back to zero. Two signed writes at each setting: every write succeeds;
// the first after a change takes one extra attempt when the offset in
// force signs outside the window (timestamp_out_of_range, resent at once
// with the corrected time), the second never does. Where the offset in
// force puts the clock past the token's renewal time (from -1 h to
// -301 s, from +301 s to +1 h), the token is exchanged again first, and
// that unsigned answer corrects the clock before the write is signed.
func TestSkewTable(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	clk := &skewedClock{sim: sim.Clock}
	aged := &agedTransport{base: simTransport(sim), now: sim.Clock.Now}
	c := sim.Client(mwallet.WithClockSource(clk), mwallet.WithHTTPClient(&http.Client{Transport: aged}), mwallet.WithLogger(slog.New(slog.DiscardHandler)))
	ctx := context.Background()

	type result struct {
		Attempts  [2]int
		Exchanges int // token exchanges during the row
		Skew      time.Duration
	}
	rows := []struct {
		name   string
		offset time.Duration
		aged   bool // a read answered with Age before the writes
		want   result
	}{
		// The token exchange measures the offset before the first write.
		{name: "-1h", offset: -time.Hour, want: result{[2]int{1, 1}, 1, time.Hour}},
		{name: "-301s", offset: -301 * time.Second, want: result{[2]int{1, 1}, 1, 301 * time.Second}},
		{name: "+299s", offset: 299 * time.Second, want: result{[2]int{2, 1}, 0, -299 * time.Second}},
		{name: "Age-carrying answer", offset: 299 * time.Second, aged: true, want: result{[2]int{1, 1}, 0, -299 * time.Second}},
		// +301 s signed with -299 s of correction is 2 s off: inside the
		// window, and its answer moves the offset to -301 s.
		{name: "+301s", offset: 301 * time.Second, want: result{[2]int{1, 1}, 0, -301 * time.Second}},
		{name: "+1h", offset: time.Hour, want: result{[2]int{1, 1}, 1, -time.Hour}},
		{name: "corrected back to zero", offset: 0, want: result{[2]int{2, 1}, 0, 0}},
	}
	for i, r := range rows {
		clk.off.Store(int64(r.offset))
		exchanges := exchangesOf(sim)
		if r.aged {
			aged.armed.Store(true)
			if _, err := c.Assets(ctx); err != nil {
				t.Fatalf("%s: read: %v", r.name, err)
			}
			if aged.armed.Load() {
				t.Fatalf("%s: the read did not pass through the aged answer", r.name)
			}
		}
		var got result
		for j := range got.Attempts {
			aged.mu.Lock()
			from := len(aged.sent)
			aged.mu.Unlock()
			d, err := deposit(ctx, c, "skew-"+strconv.Itoa(i)+"-"+strconv.Itoa(j))
			if err != nil {
				t.Fatalf("%s: write %d: %v", r.name, j+1, err)
			}
			got.Attempts[j] = d.Response.Attempts
			aged.mu.Lock()
			sent := append([]signedHeaders(nil), aged.sent[from:]...)
			aged.mu.Unlock()
			if len(sent) == 2 && (sent[0].Key != sent[1].Key || sent[0].Nonce == sent[1].Nonce || sent[0].Timestamp == sent[1].Timestamp) {
				t.Errorf("%s: the resend after timestamp_out_of_range sent %+v then %+v; want the same key, a new nonce, the corrected time", r.name, sent[0], sent[1])
			}
			if len(sent) != d.Response.Attempts {
				t.Errorf("%s: %d signed sends for %d attempts", r.name, len(sent), d.Response.Attempts)
			}
		}
		got.Skew = c.ClockSkew()
		got.Exchanges = exchangesOf(sim) - exchanges
		t.Logf("client clock %-24s attempts %v, token exchanges %d, ClockSkew %s", r.name, got.Attempts, got.Exchanges, got.Skew)
		if diff := cmp.Diff(r.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", r.name, diff)
		}
	}
	var refused int
	for _, r := range sim.Requests.List() {
		if r.Code == string(mwallet.CodeTimestampOutOfRange) {
			refused++
		}
	}
	if refused != 2 {
		t.Errorf("%d timestamp_out_of_range answers, want 2 (+299 s and back to zero)", refused)
	}
}

// TestSkewCorrectionOptions: WithClockOffset gives one client a wrong
// clock, which the correction measures from the token exchange;
// WithSkewCorrection(false) leaves it wrong, and a write 301 s off is
// refused after one attempt; the corrected clock (Client.Now) verifies
// a webhook signed on the service's clock that the wrong clock refuses.
func TestSkewCorrectionOptions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("offset measured", func(t *testing.T) {
		t.Parallel()
		sim := simtest.Start(t)
		var logs strings.Builder
		c := sim.Client(mwallet.WithClockOffset(-time.Hour), mwallet.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
		d, err := deposit(ctx, c, "offset-1")
		if err != nil {
			t.Fatal(err)
		}
		if d.Response.Attempts != 1 || c.ClockSkew() != time.Hour || !c.Now().Equal(sim.Clock.Now()) {
			t.Fatalf("attempts %d, ClockSkew %s, Now %s (simulator %s)", d.Response.Attempts, c.ClockSkew(), c.Now(), sim.Clock.Now())
		}
		if n := strings.Count(logs.String(), "level=WARN msg=\"mwallet: the clock differs from the service's Date"); n != 1 || !strings.Contains(logs.String(), "service_ahead_by=1h0m0s") {
			t.Fatalf("want one warning with the offset, got %d in:\n%s", n, logs.String())
		}
	})
	t.Run("correction off", func(t *testing.T) {
		t.Parallel()
		sim := simtest.Start(t)
		c := sim.Client(mwallet.WithClockOffset(-301*time.Second), mwallet.WithSkewCorrection(false))
		_, err := deposit(ctx, c, "off-1")
		simtest.WantCode(t, err, mwallet.CodeTimestampOutOfRange)
		if c.ClockSkew() != 0 || countPath(sim, "/v1/deposits") != 1 {
			t.Fatalf("ClockSkew %s, %d deposit requests; want 0 and 1", c.ClockSkew(), countPath(sim, "/v1/deposits"))
		}
	})
	t.Run("webhook verification on the corrected clock", func(t *testing.T) {
		t.Parallel()
		sim := simtest.Start(t)
		c := sim.Client(mwallet.WithClockOffset(-time.Hour), mwallet.WithLogger(slog.New(slog.DiscardHandler)))
		if _, err := c.Assets(ctx); err != nil {
			t.Fatal(err)
		}
		secret := sim.Credentials().WebhookSecretValue()
		body := []byte(`{"event_id":"evt_1","event_type":"member.created","data":{"object":"member","id":"mem_1"}}`)
		ts := strconv.FormatInt(sim.Clock.Now().Unix(), 10)
		mac := hmac.New(sha256.New, []byte(secret.Reveal()))
		mac.Write([]byte(ts + "."))
		mac.Write(body)
		header := "t=" + ts + ",v1=" + base64.StdEncoding.EncodeToString(mac.Sum(nil))
		if err := webhooks.Verify(body, header, secret, webhooks.WithClock(c.Now)); err != nil {
			t.Fatalf("on the corrected clock: %v", err)
		}
		wrong := func() time.Time { return sim.Clock.Now().Add(-time.Hour) }
		if err := webhooks.Verify(body, header, secret, webhooks.WithClock(wrong)); !errors.Is(err, webhooks.ErrTimestampOutOfRange) {
			t.Fatalf("on the wrong clock: %v, want ErrTimestampOutOfRange", err)
		}
	})
}
