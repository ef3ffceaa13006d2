package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	"github.com/mwallet/mwallet-go/internal/h2serve"
)

// tlsSetup is the HTTPS side of serve: the certificate, where its PEM is,
// and whether HTTP/2 is offered.
type tlsSetup struct {
	cert     tls.Certificate
	certPath string // PEM of the certificate clients should trust
	temp     bool   // certPath was written by serve and is removed at exit
	http2    bool
}

// loadTLS loads -cert and -key, or makes a self-signed certificate for
// localhost, 127.0.0.1, ::1 and the host of addr and writes it to a
// temporary file.
func loadTLS(cfg serveConfig) (*tlsSetup, error) {
	s := &tlsSetup{http2: cfg.http2}
	if cfg.certFile != "" {
		cert, err := tls.LoadX509KeyPair(cfg.certFile, cfg.keyFile)
		if err != nil {
			return nil, fmt.Errorf("-cert/-key: %w", err)
		}
		s.cert, s.certPath = cert, cfg.certFile
		return s, nil
	}
	host, _, err := net.SplitHostPort(cfg.addr)
	if err != nil {
		return nil, fmt.Errorf("-addr %q: %w", cfg.addr, err)
	}
	if s.cert, err = h2serve.SelfSigned([]string{host}); err != nil {
		return nil, fmt.Errorf("self-signed certificate: %w", err)
	}
	pem, err := h2serve.CertPEM(s.cert)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", "mwallet-sim-*.pem")
	if err != nil {
		return nil, fmt.Errorf("write the certificate: %w", err)
	}
	_, werr := f.Write(pem)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = os.Remove(f.Name())
		return nil, fmt.Errorf("write the certificate: %w", werr)
	}
	s.certPath, s.temp = f.Name(), true
	return s, nil
}

// serve sets srv up for HTTPS and wraps ln.
func (s *tlsSetup) serve(srv *http.Server, ln net.Listener) net.Listener {
	h2serve.Configure(srv, s.http2)
	return h2serve.Listen(ln, h2serve.TLSConfig(s.cert, s.http2))
}

// close removes a certificate file serve wrote.
func (s *tlsSetup) close() {
	if s != nil && s.temp {
		_ = os.Remove(s.certPath)
	}
}

// print prints the protocols and the certificate to trust.
func (s *tlsSetup) print(w io.Writer) {
	protos := "HTTP/2 and HTTP/1.1"
	if !s.http2 {
		protos = "HTTP/1.1"
	}
	origin := "self-signed certificate made at start (removed at exit)"
	if !s.temp {
		origin = "certificate from -cert"
	}
	fmt.Fprintf(w, "HTTPS with %s, %s:\n", protos, origin)
	fmt.Fprintf(w, "  certificate     %s\n", s.certPath)
	fmt.Fprintf(w, "  sha-256         %s\n", h2serve.Fingerprint(s.cert))
	fmt.Fprintf(w, "  trust it with   curl --cacert %s, or SSL_CERT_FILE=%s\n", s.certPath, s.certPath)
}

// checkTLSFlags reports flags that only make sense together.
func checkTLSFlags(c serveConfig, http2Set bool) error {
	switch {
	case (c.certFile == "") != (c.keyFile == ""):
		return errors.New("-cert and -key go together")
	case c.certFile != "" && !c.tls:
		return errors.New("-cert and -key need -tls")
	case http2Set && !c.tls:
		return errors.New("-http2 needs -tls")
	}
	return nil
}
