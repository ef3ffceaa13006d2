package tlsserver

import (
	"crypto/x509"
	"net/http"
	"net/http/httptest"
)

// Served is the server a simulator New started: httptest's loopback server
// (HTTP) or the HTTPS one of WithTLS and WithHTTP2 (TLS). The zero value
// serves nothing (a simulator from NewHandler).
type Served struct {
	HTTP *httptest.Server
	TLS  *Server
}

// Serve starts serving h: over HTTPS when tls is set (HTTP/2 too when http2
// is), else on httptest's loopback server. Either way OPTIONS * reaches h,
// which answers it with its envelope.
func (s *Served) Serve(h http.Handler, tls, http2 bool) error {
	if tls {
		t, err := Start(h, http2)
		if err != nil {
			return err
		}
		s.TLS = t
		return nil
	}
	s.HTTP = httptest.NewUnstartedServer(h)
	s.HTTP.Config.DisableGeneralOptionsHandler = true
	s.HTTP.Start()
	return nil
}

// URL is the base URL of the server started, empty when none is.
func (s *Served) URL() string {
	switch {
	case s.HTTP != nil:
		return s.HTTP.URL
	case s.TLS != nil:
		return s.TLS.URL
	}
	return ""
}

// Client is the HTTP client of the server started: it trusts the HTTPS
// server's certificate and speaks HTTP/2 to one that does. Nil when no
// server is started.
func (s *Served) Client() *http.Client {
	switch {
	case s.TLS != nil:
		return s.TLS.Client
	case s.HTTP != nil:
		return s.HTTP.Client()
	}
	return nil
}

// Certificate is the HTTPS server's certificate, nil when no HTTPS server
// is started.
func (s *Served) Certificate() *x509.Certificate {
	if s.TLS == nil {
		return nil
	}
	return s.TLS.Cert.Leaf
}

// Close stops the server started, if any.
func (s *Served) Close() {
	if s.HTTP != nil {
		s.HTTP.Close()
	}
	if s.TLS != nil {
		s.TLS.Close()
	}
}
