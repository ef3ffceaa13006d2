package h2serve

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// server serves: /ok answers 200 with the protocol, /refused and /internal
// abort with that reset, /refused-once aborts its first request only.
func server(t *testing.T, http2 bool) (base string, hc *http.Client, hits *atomic.Int64) {
	t.Helper()
	cert, err := LocalCertificate()
	if err != nil {
		t.Fatal(err)
	}
	hits = new(atomic.Int64)
	var once sync.Once
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		hits.Add(1)
		switch r.URL.Path {
		case "/refused":
			Abort(w, r, Refused)
			return
		case "/internal":
			Abort(w, r, Internal)
			return
		case "/refused-once":
			first := false
			once.Do(func() { first = true })
			if first {
				Abort(w, r, Refused)
				return
			}
		}
		_, _ = io.WriteString(w, r.Proto)
	})}
	Configure(srv, http2)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(Listen(ln, TLSConfig(cert, http2))) }()
	hc = Client(cert)
	t.Cleanup(func() {
		hc.CloseIdleConnections()
		_ = srv.Close()
	})
	return "https://" + ln.Addr().String(), hc, hits
}

// post sends a POST whose body net/http cannot rewind (GetBody nil), so it
// never resends it by itself.
func post(hc *http.Client, url string) (string, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(`{"a":1}`)))
	if err != nil {
		return "", err
	}
	req.GetBody = nil
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// streamError has the shape of net/http's HTTP/2 StreamError, whose As
// method fills it.
type streamError struct {
	StreamID uint32
	Code     uint32
	Cause    error
}

func (e streamError) Error() string { return fmt.Sprintf("stream %d code %d", e.StreamID, e.Code) }

func TestAbortOverHTTP2ResetsOnlyTheStream(t *testing.T) {
	t.Parallel()
	base, hc, _ := server(t, true)
	if got, err := post(hc, base+"/ok"); err != nil || got != "HTTP/2.0" {
		t.Fatalf("/ok: %q, %v; want HTTP/2.0", got, err)
	}
	// Concurrent requests on the one connection: each abort resets its own
	// stream with its own code; the others are answered.
	const n = 60
	var wg sync.WaitGroup
	errs := make([]error, n)
	outs := make([]string, n)
	paths := []string{"/refused", "/internal", "/ok"}
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = post(hc, base+paths[i%3])
		}()
	}
	wg.Wait()
	for i := range n {
		path := paths[i%3]
		if path == "/ok" {
			if errs[i] != nil || outs[i] != "HTTP/2.0" {
				t.Errorf("%d %s: %q, %v", i, path, outs[i], errs[i])
			}
			continue
		}
		want := "INTERNAL_ERROR"
		if path == "/refused" {
			want = "REFUSED_STREAM"
		}
		if errs[i] == nil || !strings.Contains(errs[i].Error(), want) {
			t.Errorf("%d %s: err %v, want a reset with %s", i, path, errs[i], want)
		}
	}
	// INTERNAL_ERROR arrives as the stream error itself.
	_, err := post(hc, base+"/internal")
	var se streamError
	if !errors.As(err, &se) || se.Code != uint32(Internal) {
		t.Errorf("errors.As(%v) = %+v, want code %d", err, se, Internal)
	}
}

// TestNetHTTPResendsARefusedRead shows what net/http does by itself: a
// request it can rewind (here a GET, no body) whose stream was refused is
// sent again on the same connection, and the caller sees only the answer.
func TestNetHTTPResendsARefusedRead(t *testing.T) {
	t.Parallel()
	base, hc, hits := server(t, true)
	var wrote atomic.Int64
	req, _ := http.NewRequest(http.MethodGet, base+"/refused-once", nil)
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		WroteHeaders: func() { wrote.Add(1) },
	}))
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if hits.Load() != 2 || wrote.Load() != 2 {
		t.Errorf("server saw %d requests, client wrote headers %d times; want 2 and 2", hits.Load(), wrote.Load())
	}
}

func TestAbortOverHTTP1ClosesTheConnection(t *testing.T) {
	t.Parallel()
	base, hc, _ := server(t, false)
	if got, err := post(hc, base+"/ok"); err != nil || got != "HTTP/1.1" {
		t.Fatalf("/ok: %q, %v; want HTTP/1.1", got, err)
	}
	for _, p := range []string{"/refused", "/internal"} {
		if _, err := post(hc, base+p); err == nil || !errors.Is(err, io.EOF) {
			t.Errorf("%s: err %v, want EOF", p, err)
		}
	}
}

func TestCertificate(t *testing.T) {
	t.Parallel()
	cert, err := SelfSigned([]string{"sim.test", "10.0.0.1", "0.0.0.0", ""})
	if err != nil {
		t.Fatal(err)
	}
	if err := cert.Leaf.VerifyHostname("sim.test"); err != nil {
		t.Error(err)
	}
	for _, h := range []string{"localhost", "127.0.0.1", "::1", "10.0.0.1"} {
		if err := cert.Leaf.VerifyHostname(h); err != nil {
			t.Error(err)
		}
	}
	fp := Fingerprint(cert)
	if len(fp) != 32*3-1 || strings.Count(fp, ":") != 31 {
		t.Errorf("fingerprint %q", fp)
	}
	p, err := CertPEM(cert)
	if err != nil || !bytes.HasPrefix(p, []byte("-----BEGIN CERTIFICATE-----")) {
		t.Errorf("PEM %q, %v", p, err)
	}
	if _, err := CertPEM(tls.Certificate{}); err == nil {
		t.Error("CertPEM of nothing")
	}
	if Fingerprint(tls.Certificate{}) != "" || Refused.String() != "REFUSED_STREAM" || Internal.String() != "INTERNAL_ERROR" || Reset(9).String() != "unknown" {
		t.Error("names")
	}
}
