package simulator

import (
	"crypto/x509"
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/tlsserver"
)

// startTLS serves h (the simulator, with its exchange log) over HTTPS on a
// loopback port: HTTP/1.1, and HTTP/2 when http2 is set
// (internal/tlsserver).
func (g *gateway) startTLS(h http.Handler, http2 bool) error {
	t, err := tlsserver.Start(h, http2)
	if err != nil {
		return err
	}
	g.tls = t
	return nil
}

// closeServers stops the server New started: httptest's or the HTTPS one.
func (g *gateway) closeServers() {
	if g.server != nil {
		g.server.Close()
	}
	if g.tls != nil {
		g.tls.Close()
	}
}

// HTTPClient returns the HTTP client of the embedded server: it trusts the
// certificate of a simulator started with WithTLS or WithHTTP2 and speaks
// HTTP/2 to one started with WithHTTP2. Client uses it. Nil for a
// simulator from NewHandler.
func (s *Simulator) HTTPClient() *http.Client {
	switch {
	case s.wiring.gw.tls != nil:
		return s.wiring.gw.tls.Client
	case s.wiring.gw.server != nil:
		return s.wiring.gw.server.Client()
	}
	return nil
}

// Certificate returns the certificate of a simulator started with WithTLS
// or WithHTTP2 (self-signed, for localhost, 127.0.0.1 and ::1), so other
// clients can trust it; nil otherwise.
func (s *Simulator) Certificate() *x509.Certificate {
	if s.wiring.gw.tls == nil {
		return nil
	}
	return s.wiring.gw.tls.Cert.Leaf
}
