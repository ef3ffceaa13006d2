package webhooks_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/webhooks"
)

const testSecret = "whsec_test_0123456789"

var testNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// sign computes the v1 value by hand: base64(HMAC-SHA-256(secret, t "." body)).
func sign(secret string, t int64, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(t, 10) + "."))
	mac.Write(body)
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

func header(secret string, t int64, body []byte) string {
	return fmt.Sprintf("t=%d,v1=%s", t, sign(secret, t, body))
}

func TestVerify(t *testing.T) {
	t.Parallel()
	body := []byte(`{"event_id":"evt_1","event_type":"member.created","data":{"object":"member","id":"u1"}}`)
	now := testNow.Unix()
	good := sign(testSecret, now, body)
	rawGood := strings.TrimRight(good, "=")
	hexSig := func() string {
		mac := hmac.New(sha256.New, []byte(testSecret))
		mac.Write([]byte(fmt.Sprintf("%d.", now)))
		mac.Write(body)
		return hex.EncodeToString(mac.Sum(nil))
	}()
	tests := []struct {
		name    string
		body    []byte
		header  string
		secret  mwallet.Secret
		opts    []webhooks.Option
		wantErr error
	}{
		{name: "valid", body: body, header: header(testSecret, now, body)},
		{name: "valid with spaces", body: body, header: fmt.Sprintf(" t=%d , v1=%s ", now, good)},
		{name: "valid unpadded base64", body: body, header: fmt.Sprintf("t=%d,v1=%s", now, rawGood)},
		{name: "v1 before t", body: body, header: fmt.Sprintf("v1=%s,t=%d", good, now)},
		{name: "unknown scheme ignored", body: body, header: fmt.Sprintf("t=%d,v0=abc,v1=%s", now, good)},
		{name: "second v1 matches (service rotating)", body: body, header: fmt.Sprintf("t=%d,v1=%s,v1=%s", now, sign("old", now, body), good)},
		{name: "sixth v1 matches", body: body, header: fmt.Sprintf("t=%d,v1=%s,v1=%s,v1=%s,v1=%s,v1=%s,v1=%s", now,
			sign("a", now, body), sign("b", now, body), sign("c", now, body), sign("d", now, body), sign("e", now, body), good)},
		{name: "second secret matches (our rotation)", body: body, header: header(testSecret, now, body), secret: "old_secret",
			opts: []webhooks.Option{webhooks.WithSecrets(testSecret)}},
		{name: "empty body signed", body: []byte{}, header: header(testSecret, now, nil)},
		{name: "stale edge 300s ok", body: body, header: header(testSecret, now-300, body)},
		{name: "future edge 300s ok", body: body, header: header(testSecret, now+300, body)},
		{name: "stale 301s", body: body, header: header(testSecret, now-301, body), wantErr: webhooks.ErrTimestampOutOfRange},
		{name: "future 301s", body: body, header: header(testSecret, now+301, body), wantErr: webhooks.ErrTimestampOutOfRange},
		{name: "milliseconds", body: body, header: header(testSecret, now*1000, body), wantErr: webhooks.ErrTimestampOutOfRange},
		{name: "custom tolerance accepts", body: body, header: header(testSecret, now-900, body), opts: []webhooks.Option{webhooks.WithTolerance(15 * time.Minute)}},
		{name: "custom tolerance refuses", body: body, header: header(testSecret, now-61, body), opts: []webhooks.Option{webhooks.WithTolerance(time.Minute)}, wantErr: webhooks.ErrTimestampOutOfRange},
		{name: "zero tolerance keeps default", body: body, header: header(testSecret, now-301, body), opts: []webhooks.Option{webhooks.WithTolerance(0)}, wantErr: webhooks.ErrTimestampOutOfRange},
		{name: "missing", body: body, header: "", wantErr: webhooks.ErrMissingHeader},
		{name: "blank", body: body, header: "   ", wantErr: webhooks.ErrMissingHeader},
		{name: "no t", body: body, header: "v1=" + good, wantErr: webhooks.ErrMalformedHeader},
		{name: "no v1", body: body, header: fmt.Sprintf("t=%d", now), wantErr: webhooks.ErrMalformedHeader},
		{name: "t not numeric", body: body, header: "t=abc,v1=" + good, wantErr: webhooks.ErrMalformedHeader},
		{name: "t negative", body: body, header: "t=-5,v1=" + good, wantErr: webhooks.ErrMalformedHeader},
		{name: "two t", body: body, header: fmt.Sprintf("t=%d,t=%d,v1=%s", now, now, good), wantErr: webhooks.ErrMalformedHeader},
		{name: "item without =", body: body, header: fmt.Sprintf("t=%d,%s", now, good), wantErr: webhooks.ErrMalformedHeader},
		{name: "hex signature", body: body, header: fmt.Sprintf("t=%d,v1=%s", now, hexSig), wantErr: webhooks.ErrMalformedHeader},
		{name: "v1 not base64", body: body, header: fmt.Sprintf("t=%d,v1=!!!", now), wantErr: webhooks.ErrMalformedHeader},
		{name: "wrong secret", body: body, header: header("other", now, body), wantErr: webhooks.ErrSignatureMismatch},
		{name: "tampered body", body: append(bytes.Clone(body), ' '), header: header(testSecret, now, body), wantErr: webhooks.ErrSignatureMismatch},
		{name: "re-serialized body", body: []byte(strings.ReplaceAll(string(body), ":", ": ")), header: header(testSecret, now, body), wantErr: webhooks.ErrSignatureMismatch},
		{name: "timestamp swapped", body: body, header: fmt.Sprintf("t=%d,v1=%s", now-1, good), wantErr: webhooks.ErrSignatureMismatch},
		{name: "forged and stale reports mismatch", body: body, header: header("other", now-3600, body), wantErr: webhooks.ErrSignatureMismatch},
		{name: "whitespace secret is a different secret", body: body, header: header(testSecret, now, body), secret: " ", wantErr: webhooks.ErrSignatureMismatch},
		{name: "empty secret", body: body, header: header(testSecret, now, body), secret: "-", wantErr: webhooks.ErrNoSecret},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sec := tc.secret
			switch sec {
			case "":
				sec = testSecret
			case "-":
				sec = ""
			}
			opts := append([]webhooks.Option{webhooks.WithClock(func() time.Time { return testNow })}, tc.opts...)
			err := webhooks.Verify(tc.body, tc.header, sec, opts...)
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Fatalf("Verify() = %v, want %v", err, tc.wantErr)
			}
			if err == nil {
				return
			}
			var ve *webhooks.VerifyError
			if !errors.As(err, &ve) {
				t.Fatalf("error %T is not a *VerifyError", err)
			}
			msg := err.Error()
			for _, s := range []string{testSecret, "old_secret", "other", good, rawGood, string(tc.body)} {
				if s != "" && strings.Contains(msg, s) {
					t.Errorf("error %q reveals %q", msg, s)
				}
			}
		})
	}
}

func TestVerifyTimestampErrorDetail(t *testing.T) {
	t.Parallel()
	body := []byte(`{}`)
	signed := testNow.Add(-10 * time.Minute)
	err := webhooks.Verify(body, header(testSecret, signed.Unix(), body), testSecret, webhooks.WithClock(func() time.Time { return testNow }))
	var ve *webhooks.VerifyError
	if !errors.As(err, &ve) {
		t.Fatalf("Verify() = %v, want *VerifyError", err)
	}
	if !ve.Timestamp.Equal(signed) || !ve.Now.Equal(testNow) {
		t.Errorf("Timestamp, Now = %v, %v; want %v, %v", ve.Timestamp, ve.Now, signed, testNow)
	}
	if !strings.Contains(ve.Error(), "stale by 10m0s") {
		t.Errorf("Error() = %q, want it to say stale by 10m0s", ve.Error())
	}
}

func TestSecretRedacted(t *testing.T) {
	t.Parallel()
	s := mwallet.Secret(testSecret)
	type holder struct{ S mwallet.Secret }
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("x", "secret", s)
	js, err := json.Marshal(holder{s})
	if err != nil {
		t.Fatal(err)
	}
	outs := map[string]string{
		"%v": fmt.Sprintf("%v", s), "%s": fmt.Sprintf("%s", s), "%q": fmt.Sprintf("%q", s),
		"%#v": fmt.Sprintf("%#v", s), "%+v struct": fmt.Sprintf("%+v", holder{s}), "%x": fmt.Sprintf("%x", s),
		"json": string(js), "slog": logged.String(), "String": s.String(),
	}
	for k, v := range outs {
		if strings.Contains(v, testSecret) || strings.Contains(v, hex.EncodeToString([]byte(testSecret))) {
			t.Errorf("%s reveals the secret: %q", k, v)
		}
		if !strings.Contains(v, "[redacted]") {
			t.Errorf("%s = %q, want [redacted]", k, v)
		}
	}
	if s.Reveal() != testSecret {
		t.Errorf("Reveal() = %q", s.Reveal())
	}
}

// The benchmarks compare Verify and Handler's verifier with a bare HMAC-SHA-256 of the
// same bytes (keyed per message, and keyed once then Reset). Compare with
// go test -run '^$' -bench 'Verif|BareHMAC' -benchmem -count 5 ./webhooks.

func benchBody(n int) []byte {
	b := bytes.Repeat([]byte(`{"k":"v"},`), n/10+1)
	return b[:n]
}

func benchVerify(b *testing.B, n int) {
	body := benchBody(n)
	h := header(testSecret, testNow.Unix(), body)
	opt := webhooks.WithClock(func() time.Time { return testNow })
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		if err := webhooks.Verify(body, h, testSecret, opt); err != nil {
			b.Fatal(err)
		}
	}
}

func benchBareHMAC(b *testing.B, n int) {
	body := benchBody(n)
	key := []byte(testSecret)
	b.SetBytes(int64(n))
	b.ReportAllocs()
	var sum [sha256.Size]byte
	for b.Loop() {
		mac := hmac.New(sha256.New, key)
		mac.Write(body)
		mac.Sum(sum[:0])
	}
}

// benchBareHMACReset is the floor: one keyed HMAC reused through Reset, so
// no key setup and no allocation per message.
func benchBareHMACReset(b *testing.B, n int) {
	body := benchBody(n)
	mac := hmac.New(sha256.New, []byte(testSecret))
	b.SetBytes(int64(n))
	b.ReportAllocs()
	var sum [sha256.Size]byte
	for b.Loop() {
		mac.Reset()
		mac.Write(body)
		mac.Sum(sum[:0])
	}
}

func BenchmarkBareHMACReset1KiB(b *testing.B)  { benchBareHMACReset(b, 1<<10) }
func BenchmarkBareHMACReset64KiB(b *testing.B) { benchBareHMACReset(b, 64<<10) }

func BenchmarkVerify1KiB(b *testing.B)    { benchVerify(b, 1<<10) }
func BenchmarkVerify64KiB(b *testing.B)   { benchVerify(b, 64<<10) }
func BenchmarkBareHMAC1KiB(b *testing.B)  { benchBareHMAC(b, 1<<10) }
func BenchmarkBareHMAC64KiB(b *testing.B) { benchBareHMAC(b, 64<<10) }

func benchVerifier(b *testing.B, n int) {
	body := benchBody(n)
	h := header(testSecret, testNow.Unix(), body)
	v := webhooks.NewTestVerifier(testSecret, webhooks.WithClock(func() time.Time { return testNow }))
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Verify(body, h); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifier1KiB(b *testing.B)  { benchVerifier(b, 1<<10) }
func BenchmarkVerifier64KiB(b *testing.B) { benchVerifier(b, 64<<10) }

// TestVerifyManySecrets covers secrets beyond Verify's cache of keyed
// states: every one still verifies, and a wrong one still fails.
func TestVerifyManySecrets(t *testing.T) {
	t.Parallel()
	body := []byte(`{"event_id":"evt_many"}`)
	clock := webhooks.WithClock(func() time.Time { return testNow })
	for i := 0; i < 40; i++ {
		sec := fmt.Sprintf("whsec_many_%02d", i)
		h := header(sec, testNow.Unix(), body)
		if err := webhooks.Verify(body, h, mwallet.Secret(sec), clock); err != nil {
			t.Fatalf("secret %d: %v", i, err)
		}
		if err := webhooks.Verify(body, h, mwallet.Secret(sec+"x"), clock); !errors.Is(err, webhooks.ErrSignatureMismatch) {
			t.Fatalf("secret %d: wrong secret gave %v", i, err)
		}
	}
}
