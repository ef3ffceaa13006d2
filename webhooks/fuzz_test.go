package webhooks_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/webhooks"
)

// sentinels are the errors every Verify failure wraps, exactly one each.
var sentinels = []error{
	webhooks.ErrMissingHeader, webhooks.ErrMalformedHeader, webhooks.ErrTimestampOutOfRange,
	webhooks.ErrSignatureMismatch, webhooks.ErrNoSecret,
}

// checkVerifyError asserts the documented error contract: a *VerifyError
// wrapping exactly one sentinel, whose text holds neither the secret nor a
// signature value.
func checkVerifyError(t *testing.T, err error, secret string, sigs []string) {
	t.Helper()
	var ve *webhooks.VerifyError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v (%T) is not a *VerifyError", err, err)
	}
	n := 0
	for _, s := range sentinels {
		if errors.Is(err, s) {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("error %v wraps %d sentinels, want 1", err, n)
	}
	msg := err.Error()
	if len(secret) >= 4 && strings.Contains(msg, secret) {
		t.Fatalf("error %q shows the secret", msg)
	}
	for _, s := range sigs {
		if len(s) >= 8 && strings.Contains(msg, s) {
			t.Fatalf("error %q shows a signature value", msg)
		}
	}
}

// v1Values returns the v1 values of a header as Verify reads them: items
// split on commas, keys and values trimmed.
func v1Values(header string) []string {
	var out []string
	for _, item := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(item), "=")
		if ok && strings.TrimSpace(k) == "v1" {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}

// FuzzVerifyHeader feeds arbitrary z-signature headers, bodies and secrets
// to Verify and to the verifier Handler keeps. Neither panics; both agree; every failure is a
// *VerifyError wrapping one sentinel and showing no secret; and a success
// is genuine: some v1 value really is the HMAC of t "." body under the
// secret, and t is within the tolerance.
func FuzzVerifyHeader(f *testing.F) {
	body := []byte(`{"event_id":"evt_1","event_type":"member.created","data":{"object":"member","id":"u1"}}`)
	now := testNow.Unix()
	for _, h := range []string{
		"", " ", ",", "t", "t=", "v1=", "=", "t=,v1=", "t=1", "v1=abc",
		header(testSecret, now, body),
		header(testSecret, now-301, body),
		header(testSecret, now+301, body),
		"t=" + strconv.FormatInt(now, 10) + ",v1=" + sign(testSecret, now, body) + ",v1=" + sign("old", now, body),
		"t=" + strconv.FormatInt(now, 10) + ",v0=zzz,v1=" + strings.TrimRight(sign(testSecret, now, body), "="),
		"t=" + strconv.FormatInt(now, 10) + ",t=" + strconv.FormatInt(now, 10) + ",v1=" + sign(testSecret, now, body),
		"t=99999999999999999999,v1=" + sign(testSecret, now, body),
		"t=-5,v1=" + sign(testSecret, now, body),
		"t=" + strconv.FormatInt(now, 10) + "," + strings.Repeat("v1=AAAA,", 40),
		"t=" + strconv.FormatInt(now, 10) + ",v1=" + strings.Repeat("A", 500),
		"t=0x10,v1=" + sign(testSecret, now, body),
		"t=1767268800000,v1=" + sign(testSecret, 1767268800000, body),
	} {
		f.Add(h, body, testSecret)
	}
	f.Add("t=1,v1=x", []byte{}, "")
	f.Add("t=1,v1=x", []byte("\xff\xfe"), "s")
	f.Fuzz(func(t *testing.T, h string, payload []byte, secret string) {
		clock := webhooks.WithClock(func() time.Time { return testNow })
		err := webhooks.Verify(payload, h, mwallet.Secret(secret), clock)
		verr := webhooks.NewTestVerifier(mwallet.Secret(secret), clock).Verify(payload, h)
		if (err == nil) != (verr == nil) || (err != nil && !errors.Is(verr, errors.Unwrap(err))) {
			t.Fatalf("Verify %v, Handler's verifier %v", err, verr)
		}
		if err != nil {
			checkVerifyError(t, err, secret, v1Values(h))
			return
		}
		// Success: check it independently.
		if secret == "" {
			t.Fatal("verified without a secret")
		}
		var ts int64 = -1
		var sigs []string
		for _, item := range strings.Split(h, ",") {
			k, v, _ := strings.Cut(strings.TrimSpace(item), "=")
			switch strings.TrimSpace(k) {
			case "t":
				n, perr := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				if perr != nil || ts != -1 {
					t.Fatalf("verified a header with a bad or repeated t: %q", h)
				}
				ts = n
			case "v1":
				sigs = append(sigs, strings.TrimSpace(v))
			}
		}
		if ts < 0 {
			t.Fatalf("verified a header without t: %q", h)
		}
		if d := testNow.Sub(time.Unix(ts, 0)); d > webhooks.DefaultTolerance || d < -webhooks.DefaultTolerance {
			t.Fatalf("verified a timestamp %d outside the tolerance", ts)
		}
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte(strconv.FormatInt(ts, 10) + "."))
		mac.Write(payload)
		want := mac.Sum(nil)
		for _, s := range sigs {
			got, derr := base64.StdEncoding.DecodeString(s)
			if derr != nil {
				got, derr = base64.RawStdEncoding.DecodeString(s)
			}
			if derr == nil && hmac.Equal(got, want) {
				return
			}
		}
		t.Fatalf("verified %q over %q, but no v1 value is the HMAC", h, payload)
	})
}

// FuzzSignVerify signs arbitrary bodies with arbitrary secrets and
// timestamps within the tolerance: the genuine header always verifies (also
// among other v1 values and unknown schemes, in any order), and any change
// to the body, the timestamp or the secret is refused.
func FuzzSignVerify(f *testing.F) {
	f.Add([]byte(`{"event_id":"evt_1"}`), testSecret, int64(0), uint8(0))
	f.Add([]byte{}, "k", int64(-300), uint8(1))
	f.Add([]byte("\x00\xff"), strings.Repeat("s", 200), int64(300), uint8(2))
	f.Fuzz(func(t *testing.T, payload []byte, secret string, offset int64, order uint8) {
		if secret == "" {
			return
		}
		offset %= int64(webhooks.DefaultTolerance / time.Second)
		ts := testNow.Unix() + offset
		good := sign(secret, ts, payload)
		other := sign(secret+"x", ts, payload)
		items := []string{"t=" + strconv.FormatInt(ts, 10), "v1=" + good, "v1=" + other, "v0=" + other}
		switch order % 3 {
		case 1:
			items[0], items[1] = items[1], items[0]
		case 2:
			items[0], items[3] = items[3], items[0]
		}
		h := strings.Join(items, ",")
		clock := webhooks.WithClock(func() time.Time { return testNow })
		if err := webhooks.Verify(payload, h, mwallet.Secret(secret), clock); err != nil {
			t.Fatalf("genuine header %q refused: %v", h, err)
		}
		if err := webhooks.Verify(append(payload[:len(payload):len(payload)], 'x'), h, mwallet.Secret(secret), clock); !errors.Is(err, webhooks.ErrSignatureMismatch) {
			t.Fatalf("changed body: %v, want mismatch", err)
		}
		shifted := strings.Replace(h, "t="+strconv.FormatInt(ts, 10), "t="+strconv.FormatInt(ts+1, 10), 1)
		if err := webhooks.Verify(payload, shifted, mwallet.Secret(secret), clock); !errors.Is(err, webhooks.ErrSignatureMismatch) {
			t.Fatalf("changed timestamp: %v, want mismatch", err)
		}
		if err := webhooks.Verify(payload, "t="+strconv.FormatInt(ts, 10)+",v1="+other, mwallet.Secret(secret), clock); !errors.Is(err, webhooks.ErrSignatureMismatch) {
			t.Fatalf("other secret: %v, want mismatch", err)
		}
	})
}
