package simulator_test

import (
	"net/http"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/webhooks"
)

// The test vectors of docs/other-languages.md are right: the simulator, at
// its default start time, accepts the guide's signed request exactly as
// written there, and the SDK's webhook verifier accepts the guide's webhook
// signature. Other-language clients check their signers against these
// vectors, so a wrong vector would mislead every one of them.
func TestOtherLanguagesGuideVectors(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../docs/other-languages.md")
	if err != nil {
		t.Fatal(err)
	}
	guide := string(b)
	field := func(name string) string {
		t.Helper()
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` +(\S.*)$`).FindStringSubmatch(guide)
		if m == nil {
			t.Fatalf("the guide's vector has no %q line", name)
		}
		return m[1]
	}
	sim, c := newRaw(t)
	if got, want := field("signing_key"), sim.Credentials().SigningKey; got != want {
		t.Fatalf("vector signing_key %q, fixture %q", got, want)
	}
	ts := field("x-timestamp")
	if ts != strconv.FormatInt(simulator.DefaultStart.Unix(), 10) || sim.Clock.Now().Unix() != simulator.DefaultStart.Unix() {
		t.Fatalf("vector timestamp %s, simulator clock %d", ts, sim.Clock.Now().Unix())
	}
	body := []byte(field("body"))
	method, target := field("method"), field("target")
	h := authed(c.token())
	h.Set("X-On-Behalf-Of", member1)
	h.Set("X-Idempotency-Key", uuidN(1))
	h.Set("X-Timestamp", ts)
	h.Set("X-Nonce", field("x-nonce"))
	h.Set("X-Signature", field("x-signature"))
	wantStatus(t, c.send(method, target, body, h), http.StatusCreated)

	whBody := regexp.MustCompile("body `([^`]+)`:").FindStringSubmatch(guide)
	whV1 := regexp.MustCompile("`v1` is `([^`]+)`").FindStringSubmatch(guide)
	whSecret := regexp.MustCompile("`webhook_secret` `([^`]+)`").FindStringSubmatch(guide)
	if whBody == nil || whV1 == nil || whSecret == nil {
		t.Fatal("the guide's webhook vector is missing")
	}
	if whSecret[1] != sim.Credentials().WebhookSecret {
		t.Fatalf("vector webhook_secret differs from the fixture's")
	}
	header := "t=" + ts + ",v1=" + whV1[1]
	at := webhooks.WithClock(func() time.Time { return simulator.DefaultStart })
	if err := webhooks.Verify([]byte(whBody[1]), header, mwallet.Secret(whSecret[1]), at); err != nil {
		t.Errorf("the guide's webhook vector does not verify: %v", err)
	}
	if err := webhooks.Verify([]byte(whBody[1]+" "), header, mwallet.Secret(whSecret[1]), at); err == nil {
		t.Error("a changed body verifies against the guide's vector")
	}
}
