package mwallet

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// The expected signatures below were computed outside Go with openssl:
//
//	BODY='{"amount":"12.50","asset":"USDT"}'
//	H=$(printf '%s' "$BODY" | openssl dgst -sha256 -r | cut -d' ' -f1)
//	# H = 923f9ca6d753a33066e61cfa9573fa605a29c75064ab5b8e8e7f0b33cd0c8e76
//	printf 'POST\n/v1/qrpay/payments?a=1&b=x%%20y\n1700000000\nnonce-1\n%s' "$H" \
//	  | openssl dgst -sha256 -hmac 'kat-signing-key' -binary | base64
//	# ApZVJ9im9kE1Dcr3Br4CtagmbxNDsBF9TQs5syXLxSQ=
//
//	E=$(printf '' | openssl dgst -sha256 -r | cut -d' ' -f1)   # hash of the empty body
//	printf 'DELETE\n/v1/webhooks/endpoints/whd_1\n1700000300\nnonce-2\n%s' "$E" \
//	  | openssl dgst -sha256 -hmac 'kat-signing-key' -binary | base64
//	# 8jgy2GUboimBiDfxK0Jh8FMu7feJBUTM9a2783v8VrI=
//
//	LK=$(printf 'k%.0s' $(seq 1 100))   # a 100-byte key, longer than the HMAC block
//	printf 'POST\n/v1/x\n1700000000\nn\n%s' "$E" \
//	  | openssl dgst -sha256 -mac HMAC -macopt key:$LK -binary | base64
//	# VdYBvzlO1dlJEfhXFYOw9G9zsLwBaKglIntrDg+a714=
var katVectors = []struct {
	name                        string
	key, method, path, ts, nonc string
	body                        string
	want                        string
}{
	{"post with query", "kat-signing-key", "POST", "/v1/qrpay/payments?a=1&b=x%20y", "1700000000", "nonce-1",
		`{"amount":"12.50","asset":"USDT"}`, "ApZVJ9im9kE1Dcr3Br4CtagmbxNDsBF9TQs5syXLxSQ="},
	{"delete without body", "kat-signing-key", "DELETE", "/v1/webhooks/endpoints/whd_1", "1700000300", "nonce-2",
		"", "8jgy2GUboimBiDfxK0Jh8FMu7feJBUTM9a2783v8VrI="},
	{"key longer than a block", strings.Repeat("k", 100), "POST", "/v1/x", "1700000000", "n",
		"", "VdYBvzlO1dlJEfhXFYOw9G9zsLwBaKglIntrDg+a714="},
}

func TestSignKnownAnswers(t *testing.T) {
	t.Parallel()
	for _, v := range katVectors {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			got := newSigner(v.key).sign(v.method, v.path, v.ts, v.nonc, []byte(v.body))
			if got != v.want {
				t.Fatalf("sign = %s, want %s (openssl)", got, v.want)
			}
			if len(got) != 44 {
				t.Fatalf("signature length %d, want 44", len(got))
			}
			if ref := refSign(v.key, v.method, v.path, v.ts, v.nonc, []byte(v.body)); ref != v.want {
				t.Fatalf("crypto/hmac reference = %s, want %s", ref, v.want)
			}
		})
	}
}

// A body that means the same JSON but is not the same bytes signs
// differently: the signature covers the exact bytes sent.
func TestSignReserialisedBodyFailsKAT(t *testing.T) {
	t.Parallel()
	v := katVectors[0]
	s := newSigner(v.key)
	for _, body := range []string{
		`{"asset":"USDT","amount":"12.50"}`,        // other key order
		`{"amount": "12.50", "asset": "USDT"}`,     // other spacing
		`{"amount":"12.50","asset":"USDT"}` + "\n", // trailing newline
		`{"amount":"12.5","asset":"USDT"}`,         // same amount, other scale
	} {
		if got := s.sign(v.method, v.path, v.ts, v.nonc, []byte(body)); got == v.want {
			t.Errorf("body %q signs like the original; the signature must cover the exact bytes", body)
		}
	}
	for _, path := range []string{"/v1/qrpay/payments?b=x%20y&a=1", "/v1/qrpay/payments?a=1&b=x+y", "/v1/qrpay/payments"} {
		if got := s.sign(v.method, path, v.ts, v.nonc, []byte(v.body)); got == v.want {
			t.Errorf("path %q signs like the original; the query must be signed as sent", path)
		}
	}
}

func TestSignerNeverPrintsKey(t *testing.T) {
	t.Parallel()
	s := newSigner(testSigningKey)
	for _, f := range []string{"%v", "%+v", "%#v", "%s", "%x"} {
		if out := fmt.Sprintf(f, s); strings.Contains(out, testSigningKey) || strings.Contains(out, hex.EncodeToString(s.ipad[:8])) {
			t.Errorf("%s prints key material: %s", f, out)
		}
	}
}

var benchSink string

func benchBody() []byte { return bytes.Repeat([]byte(`{"k":"v"}`), 1024/9+1)[:1024] }

// BenchmarkSign1KiB signs a 1 KiB body with the client's signer.
func BenchmarkSign1KiB(b *testing.B) {
	s := newSigner(testSigningKey)
	body := benchBody()
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		benchSink = s.sign("POST", "/v1/qrpay/payments", "1700000000", "3f0e1f0c-7d0c-4a53-9b0e-8a6c2b3d4e5f", body)
	}
}

// BenchmarkBareHMAC1KiB is the same computation written plainly with
// crypto/sha256 and crypto/hmac: the baseline of BenchmarkSign1KiB.
func BenchmarkBareHMAC1KiB(b *testing.B) {
	key := []byte(testSigningKey)
	body := benchBody()
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		sum := sha256.Sum256(body)
		m := hmac.New(sha256.New, key)
		m.Write([]byte("POST\n/v1/qrpay/payments\n1700000000\n3f0e1f0c-7d0c-4a53-9b0e-8a6c2b3d4e5f\n"))
		m.Write([]byte(hex.EncodeToString(sum[:])))
		benchSink = base64.StdEncoding.EncodeToString(m.Sum(nil))
	}
}

// TestEncodeBodyIsJSONStringifyForm checks that request bodies are encoded
// compactly without HTML escaping, as JSON.stringify writes them, so a proxy
// that re-serialises the body keeps the signed bytes.
func TestEncodeBodyIsJSONStringifyForm(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   any
		want string
	}{
		{map[string]string{"reference": "a<b>&c"}, `{"reference":"a<b>&c"}`},
		{struct {
			Name string `json:"name"`
			N    int    `json:"n"`
		}{"Café & Bar", 1}, `{"name":"Café & Bar","n":1}`},
		{[]string{"x"}, `["x"]`},
	}
	for _, tt := range tests {
		got, err := encodeBody(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("encodeBody(%v) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
