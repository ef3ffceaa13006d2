package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/internal/h2serve"
)

// startServe runs serve with args until the test ends; it returns the base
// URL and what serve printed so far.
func startServe(t *testing.T, args ...string) (string, *bytes.Buffer, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr bytes.Buffer
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "-addr", "127.0.0.1:0"}, args...), &stdout, &stderr, func(u string) { urls <- u })
	}()
	select {
	case u := <-urls:
		stop := func() error { cancel(); return <-done }
		t.Cleanup(func() { cancel() })
		return u, &stdout, stop
	case err := <-done:
		cancel()
		t.Fatalf("serve returned early: %v (%s)", err, stderr.String())
	}
	return "", nil, nil
}

// trusting returns an HTTP/2-capable client that trusts only the PEM file.
func trusting(t *testing.T, path string) *http.Client {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		t.Fatalf("%s holds no certificate", path)
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}, Timeout: 10 * time.Second}
}

func TestServeTLS(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		args      []string
		wantProto string
	}{
		{"http2", []string{"-tls"}, "HTTP/2.0"},
		{"http1 only", []string{"-tls", "-http2=false"}, "HTTP/1.1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base, out, stop := startServe(t, tt.args...)
			if !strings.HasPrefix(base, "https://127.0.0.1:") {
				t.Fatalf("base %q", base)
			}
			banner := out.String()
			path := regexp.MustCompile(`(?m)^  certificate +(\S+)$`).FindStringSubmatch(banner)
			fp := regexp.MustCompile(`(?m)^  sha-256 +(\S+)$`).FindStringSubmatch(banner)
			if path == nil || fp == nil || !strings.Contains(banner, "mwallet-sim listening on "+base) {
				t.Fatalf("banner lacks the URL, certificate or fingerprint:\n%s", banner)
			}
			hc := trusting(t, path[1])
			resp, err := hc.Get(base + "/_sim/credentials")
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Proto != tt.wantProto {
				t.Errorf("GET /_sim/credentials: %d over %s, want 200 over %s", resp.StatusCode, resp.Proto, tt.wantProto)
			}
			sum := sha256.Sum256(resp.TLS.PeerCertificates[0].Raw)
			if got := strings.ToUpper(hex.EncodeToString(sum[:])); strings.ReplaceAll(fp[1], ":", "") != got {
				t.Errorf("banner fingerprint %s, served certificate %s", fp[1], got)
			}
			hc.CloseIdleConnections()
			if err := stop(); err != nil {
				t.Fatalf("serve: %v", err)
			}
			if _, err := os.Stat(path[1]); !os.IsNotExist(err) {
				t.Errorf("certificate file left behind: %v", err)
			}
		})
	}
}

func TestServeTLSOwnCertificate(t *testing.T) {
	t.Parallel()
	cert, err := h2serve.SelfSigned(nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certPEM, _ := h2serve.CertPEM(cert)
	keyDER, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	base, out, stop := startServe(t, "-tls", "-cert", certFile, "-key", keyFile)
	if !strings.Contains(out.String(), "certificate     "+certFile) || !strings.Contains(out.String(), h2serve.Fingerprint(cert)) {
		t.Errorf("banner:\n%s", out.String())
	}
	hc := trusting(t, certFile)
	resp, err := hc.Get(base + "/_sim/clock")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	hc.CloseIdleConnections()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(certFile); err != nil {
		t.Errorf("serve removed the caller's certificate: %v", err)
	}
}

func TestServeTLSFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-cert", "c.pem", "-key", "k.pem"},
		{"-tls", "-cert", "c.pem"},
		{"-tls", "-key", "k.pem"},
		{"-http2=false"},
	} {
		if _, err := parseServe(args, io.Discard); err == nil {
			t.Errorf("parseServe(%q) accepted", args)
		}
	}
	if err := run(context.Background(), []string{"serve", "-addr", "127.0.0.1:0", "-tls", "-cert", "/nonexistent/c.pem", "-key", "/nonexistent/k.pem"}, io.Discard, io.Discard, nil); err == nil {
		t.Error("a missing certificate file was accepted")
	}
}
