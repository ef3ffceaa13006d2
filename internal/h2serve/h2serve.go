// Package h2serve serves HTTP over TLS, HTTP/2 included, with net/http's
// own server, and lets a handler end a request without an answer the way a
// real front end does on each protocol:
//
//   - HTTP/1.1: the connection is closed (the client cannot tell whether the
//     request was processed).
//   - HTTP/2: only the request's stream is reset; the connection and its
//     other streams go on. Abort(..., Refused) resets it with
//     REFUSED_STREAM, which RFC 9113 section 8.7 reserves for a stream that
//     was not processed; Abort(..., Internal) with INTERNAL_ERROR, the
//     answer of a server that may have processed it.
//
// net/http's server resets the stream of a handler that panics with
// http.ErrAbortHandler, always with INTERNAL_ERROR, and has no API to
// choose the code. Listen therefore decrypts TLS itself and hands the
// plaintext connection to the server, which serves HTTP/2 on it through
// the prior-knowledge path (http.Protocols.SetUnencryptedHTTP2, set by
// Configure); the client negotiated "h2" by ALPN as with any HTTPS server.
// The connection watches the frames the server writes and, for the handler
// that called Abort(..., Refused), turns the INTERNAL_ERROR of its
// RST_STREAM frame into REFUSED_STREAM. Aborts on one connection are taken
// one at a time, so each RST_STREAM is matched to its handler.
//
// Served another way (httptest's EnableHTTP2, a server of your own), Abort
// still works: HTTP/2 streams are then reset with INTERNAL_ERROR whatever
// was asked.
package h2serve

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Reset is how Abort ends an HTTP/2 stream.
type Reset uint32

// HTTP/2 error codes Abort sends (RFC 9113 section 7).
const (
	// Internal resets the stream with INTERNAL_ERROR: the request may have
	// been processed.
	Internal Reset = 0x2
	// Refused resets the stream with REFUSED_STREAM: the request was not
	// processed and may be sent again.
	Refused Reset = 0x7
)

// String is the code's name in RFC 9113.
func (r Reset) String() string {
	switch r {
	case Internal:
		return "INTERNAL_ERROR"
	case Refused:
		return "REFUSED_STREAM"
	}
	return "unknown"
}

// armTimeout bounds how long an abort waits for its RST_STREAM frame: the
// server writes none when the client already closed the stream.
const armTimeout = 2 * time.Second

// Abort ends the request without an answer. Over HTTP/2 it resets the
// request's stream with how's code (see the package documentation) and
// panics with http.ErrAbortHandler, so it does not return; call it from
// the handler's goroutine, with no lock held. Over HTTP/1.x it closes the
// connection and returns.
func Abort(w http.ResponseWriter, r *http.Request, how Reset) {
	if r.ProtoMajor == 2 {
		if c, ok := r.Context().Value(connKey{}).(*conn); ok {
			c.arm(r.Context(), how)
		}
		panic(http.ErrAbortHandler)
	}
	if hj, ok := w.(http.Hijacker); ok {
		if nc, _, err := hj.Hijack(); err == nil {
			_ = nc.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// TLSConfig returns the server TLS configuration for cert: TLS 1.2 or
// newer, and by ALPN HTTP/2 and HTTP/1.1 (http2) or HTTP/1.1 only.
func TLSConfig(cert tls.Certificate, http2 bool) *tls.Config {
	protos := []string{"http/1.1"}
	if http2 {
		protos = []string{"h2", "http/1.1"}
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: protos, MinVersion: tls.VersionTLS12}
}

// Listen wraps inner: each accepted connection is a TLS server connection
// with cfg (see TLSConfig), decrypted here. Serve it with a server set up
// by Configure.
func Listen(inner net.Listener, cfg *tls.Config) net.Listener {
	return &listener{Listener: inner, cfg: cfg}
}

// Configure sets srv up to serve the connections of Listen: HTTP/1.1, and
// HTTP/2 when http2 is set, and the connection in each request's context
// (for Abort). A ConnContext already set still runs.
func Configure(srv *http.Server, http2 bool) {
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(http2)
	srv.Protocols = p
	prev := srv.ConnContext
	srv.ConnContext = func(ctx context.Context, nc net.Conn) context.Context {
		if prev != nil {
			ctx = prev(ctx, nc)
		}
		if c, ok := nc.(*conn); ok {
			ctx = context.WithValue(ctx, connKey{}, c)
		}
		return ctx
	}
}

type connKey struct{}

type listener struct {
	net.Listener
	cfg *tls.Config
}

func (l *listener) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := tls.Server(nc, l.cfg)
	return &conn{Conn: tc, tc: tc, slot: make(chan struct{}, 1)}, nil
}

// conn is the plaintext side of one TLS connection. On an HTTP/2
// connection it follows the frames the server writes (9-byte header, then
// the payload) to find the RST_STREAM frames.
type conn struct {
	net.Conn
	tc *tls.Conn

	// slot is held from an abort's arm until its RST_STREAM is written.
	slot chan struct{}

	mu      sync.Mutex // guards what follows and serialises Write
	proto   int        // 0 not known yet, 1 HTTP/1.x, 2 HTTP/2
	hdr     [9]byte    // header of the current frame
	hdrN    int        // header bytes seen
	left    uint32     // payload bytes left in the current frame
	rst     bool       // the current frame is RST_STREAM
	rstN    int        // RST_STREAM payload bytes seen
	rstZero bool       // the error code's first three bytes were zero
	armed   bool       // an abort waits for its RST_STREAM
	code    Reset      // the code that RST_STREAM must carry
	gen     int        // arm generation, for the timeout
}

// arm waits for the connection's abort slot (bounded by ctx and
// armTimeout) and arms it: the next RST_STREAM with INTERNAL_ERROR that
// the server writes carries how's code.
func (c *conn) arm(ctx context.Context, how Reset) {
	t := time.NewTimer(armTimeout)
	defer t.Stop()
	select {
	case c.slot <- struct{}{}:
	case <-ctx.Done():
		return
	case <-t.C:
		return
	}
	c.mu.Lock()
	c.gen++
	gen := c.gen
	c.armed, c.code = true, how
	c.mu.Unlock()
	time.AfterFunc(armTimeout, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.armed && c.gen == gen {
			c.disarmLocked()
		}
	})
}

func (c *conn) disarmLocked() {
	c.armed = false
	<-c.slot
}

// Write passes p through, with the error code of an armed RST_STREAM
// changed. INTERNAL_ERROR (2) and REFUSED_STREAM (7) differ only in the
// last of their four bytes, so no byte is held back.
func (c *conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.proto == 0 {
		c.proto = 1
		if c.tc.ConnectionState().NegotiatedProtocol == "h2" {
			c.proto = 2
		}
	}
	if c.proto != 2 {
		return c.Conn.Write(p)
	}
	out := p
	for i := 0; i < len(p); {
		if c.hdrN < len(c.hdr) {
			n := copy(c.hdr[c.hdrN:], p[i:])
			c.hdrN += n
			i += n
			if c.hdrN == len(c.hdr) {
				c.left = uint32(c.hdr[0])<<16 | uint32(c.hdr[1])<<8 | uint32(c.hdr[2])
				c.rst = c.hdr[3] == 0x3 && c.left == 4
				c.rstN, c.rstZero = 0, true
				if c.left == 0 {
					c.hdrN = 0
				}
			}
			continue
		}
		if !c.rst {
			n := min(uint32(len(p)-i), c.left)
			i += int(n)
			c.left -= n
		} else {
			b := p[i]
			if c.rstN < 3 {
				c.rstZero = c.rstZero && b == 0
			} else if c.rstZero && b == byte(Internal) && c.armed {
				if c.code != Internal {
					if &out[0] == &p[0] {
						out = append([]byte(nil), p...)
					}
					out[i] = byte(c.code)
				}
				c.disarmLocked()
			}
			c.rstN++
			i++
			c.left--
		}
		if c.left == 0 {
			c.hdrN = 0
		}
	}
	return c.Conn.Write(out)
}

// Close closes the connection and frees an armed abort.
func (c *conn) Close() error {
	c.mu.Lock()
	if c.armed {
		c.disarmLocked()
	}
	c.mu.Unlock()
	return c.Conn.Close()
}

var (
	localOnce sync.Once
	localCert tls.Certificate
	localErr  error
)

// LocalCertificate returns a self-signed certificate for localhost,
// 127.0.0.1 and ::1, made once per process.
func LocalCertificate() (tls.Certificate, error) {
	localOnce.Do(func() { localCert, localErr = SelfSigned(nil) })
	return localCert, localErr
}

// SelfSigned makes a self-signed ECDSA P-256 certificate valid for a year
// for localhost, 127.0.0.1, ::1 and the extra hosts (names or addresses).
// Its Leaf is set.
func SelfSigned(hosts []string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{"mwallet-sim"}, CommonName: "mwallet-sim local certificate"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	for _, h := range hosts {
		h = strings.TrimSpace(h)
		switch ip := net.ParseIP(h); {
		case h == "":
		case ip != nil:
			if !ip.IsUnspecified() {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			}
		default:
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// CertPEM encodes cert's leaf as a PEM block.
func CertPEM(cert tls.Certificate) ([]byte, error) {
	if len(cert.Certificate) == 0 {
		return nil, errors.New("h2serve: no certificate")
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), nil
}

// Fingerprint is the SHA-256 of cert's leaf in DER, as colon-separated
// upper-case hex (the form browsers and openssl x509 -fingerprint print).
func Fingerprint(cert tls.Certificate) string {
	if len(cert.Certificate) == 0 {
		return ""
	}
	sum := sha256.Sum256(cert.Certificate[0])
	h := strings.ToUpper(hex.EncodeToString(sum[:]))
	var b strings.Builder
	for i := 0; i < len(h); i += 2 {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(h[i : i+2])
	}
	return b.String()
}

// Client returns an HTTP client that trusts cert and offers HTTP/2 and
// HTTP/1.1; it speaks HTTP/2 to a server that accepts it.
func Client(cert tls.Certificate) *http.Client {
	pool := x509.NewCertPool()
	if cert.Leaf != nil {
		pool.AddCert(cert.Leaf)
	} else if len(cert.Certificate) > 0 {
		if leaf, err := x509.ParseCertificate(cert.Certificate[0]); err == nil {
			pool.AddCert(leaf)
		}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	tr.ForceAttemptHTTP2 = true
	return &http.Client{Transport: tr}
}
