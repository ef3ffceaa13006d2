package mwallet

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
)

// benchParams is the body of the benchmarked payment.
type benchParams struct {
	CodeValue      string `json:"code_value"`
	PreferredAsset string `json:"preferred_asset"`
	Amount         string `json:"amount"`
}

type benchOrder struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Amount string `json:"amount"`
}

var benchOrderJSON = []byte(`{"id":"qrp_0f5c2f7e-1111-4a53-9b0e-8a6c2b3d4e5f","status":"pending","amount":"12.500000"}`)

// benchServer answers token exchanges and payments the same way for both
// benchmarks, over plain HTTP/1.1.
func benchServer(b *testing.B) *httptest.Server {
	b.Helper()
	srv := httptest.NewServer(benchHandler())
	b.Cleanup(srv.Close)
	return srv
}

// benchServerHTTP2 is benchServer over TLS with HTTP/2 (httptest's
// EnableHTTP2); its Client speaks HTTP/2.
func benchServerHTTP2(b *testing.B) *httptest.Server {
	b.Helper()
	srv := httptest.NewUnstartedServer(benchHandler())
	srv.EnableHTTP2 = true
	srv.StartTLS()
	b.Cleanup(srv.Close)
	return srv
}

func benchHandler() http.Handler {
	exp := []byte(`{"auth_token":"tok_bench","expired_at":` + strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10) + `,"token_type":"Bearer","scopes":[]}`)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req_bench")
		if r.URL.Path == tokenPath {
			_, _ = w.Write(exp)
			return
		}
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(benchOrderJSON)
	})
}

var benchBodyParams = benchParams{CodeValue: "00020101021226300014A000000677010111011300660000000005204000053037645406100.005802TH6304ABCD", PreferredAsset: "USDT", Amount: "12.5"}

// BenchmarkSignedPOST is one signed, idempotent, member-scoped POST through
// Client.Do: body encoding, idempotency key, nonce, signature, response
// decoding (the token is cached after the first iteration).
func BenchmarkSignedPOST(b *testing.B) { benchSignedPOST(b, benchServer(b)) }

// BenchmarkSignedPOSTHTTP2 is BenchmarkSignedPOST over TLS and HTTP/2.
func BenchmarkSignedPOSTHTTP2(b *testing.B) { benchSignedPOST(b, benchServerHTTP2(b)) }

func benchSignedPOST(b *testing.B, srv *httptest.Server) {
	if srv.TLS != nil && srv.EnableHTTP2 {
		benchWantHTTP2(b, srv)
	}
	c, err := New(srv.URL, testCreds(), WithHTTPClient(srv.Client()), WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		var out benchOrder
		_, err := c.Do(ctx, &Request{Method: http.MethodPost, Path: "/v1/qrpay/payments", MemberScoped: true, Member: "member-1",
			Body: benchBodyParams, Idempotent: true}, &out)
		if err != nil || out.ID == "" {
			b.Fatal(err)
		}
	}
}

// BenchmarkBareNetHTTPSignedPOST sends the same request by hand with
// net/http and crypto/hmac, as an integration without the SDK would: the
// baseline of BenchmarkSignedPOST.
func BenchmarkBareNetHTTPSignedPOST(b *testing.B) { benchBareSignedPOST(b, benchServer(b)) }

// BenchmarkBareNetHTTPSignedPOSTHTTP2 is BenchmarkBareNetHTTPSignedPOST
// over TLS and HTTP/2: the baseline of BenchmarkSignedPOSTHTTP2.
func BenchmarkBareNetHTTPSignedPOSTHTTP2(b *testing.B) { benchBareSignedPOST(b, benchServerHTTP2(b)) }

// benchWantHTTP2 fails the benchmark unless srv's client speaks HTTP/2.
func benchWantHTTP2(b *testing.B, srv *httptest.Server) {
	b.Helper()
	resp, err := srv.Client().Get(srv.URL + "/v1/probe")
	if err != nil {
		b.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.ProtoMajor != 2 {
		b.Fatalf("the benchmark client speaks %s, want HTTP/2", resp.Proto)
	}
}

func benchBareSignedPOST(b *testing.B, srv *httptest.Server) {
	if srv.TLS != nil && srv.EnableHTTP2 {
		benchWantHTTP2(b, srv)
	}
	hc := srv.Client()
	key := []byte(testSigningKey)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		body, err := json.Marshal(benchBodyParams)
		if err != nil {
			b.Fatal(err)
		}
		ts := strconv.FormatInt(time.Now().Unix(), 10)
		nonce := uuid.NewString()
		sum := sha256.Sum256(body)
		m := hmac.New(sha256.New, key)
		m.Write([]byte("POST\n/v1/qrpay/payments\n" + ts + "\n" + nonce + "\n" + hex.EncodeToString(sum[:])))
		sig := base64.StdEncoding.EncodeToString(m.Sum(nil))
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/qrpay/payments", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("X-Auth-Token", "Bearer tok_bench")
		req.Header.Set("X-On-Behalf-Of", "member-1")
		req.Header.Set("X-Idempotency-Key", uuid.NewString())
		req.Header.Set("X-Timestamp", ts)
		req.Header.Set("X-Nonce", nonce)
		req.Header.Set("X-Signature", sig)
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		rb, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes))
		_ = resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusCreated {
			b.Fatal(err, resp.StatusCode)
		}
		var out benchOrder
		if err := json.Unmarshal(rb, &out); err != nil || out.ID == "" {
			b.Fatal(err)
		}
	}
}
