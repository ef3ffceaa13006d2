package simulator

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/mwallet/mwallet-go/internal/h2serve"
)

// tlsServer is the HTTPS server of a simulator started with WithTLS or
// WithHTTP2.
type tlsServer struct {
	srv    *http.Server
	url    string
	cert   tls.Certificate
	client *http.Client
	done   chan struct{}
}

// startTLS serves h (the simulator, with its exchange log) over HTTPS on a
// loopback port: HTTP/1.1, and HTTP/2 when http2 is set.
func (g *gateway) startTLS(h http.Handler, http2 bool) error {
	cert, err := h2serve.LocalCertificate()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		if ln, err = net.Listen("tcp6", "[::1]:0"); err != nil {
			return err
		}
	}
	// OPTIONS * reaches the simulator, which answers it with its envelope.
	srv := &http.Server{Handler: h, DisableGeneralOptionsHandler: true, ReadHeaderTimeout: 10 * time.Second}
	h2serve.Configure(srv, http2)
	t := &tlsServer{srv: srv, url: "https://" + ln.Addr().String(), cert: cert, client: h2serve.Client(cert), done: make(chan struct{})}
	go func() {
		defer close(t.done)
		_ = srv.Serve(h2serve.Listen(ln, h2serve.TLSConfig(cert, http2)))
	}()
	g.tls = t
	return nil
}

// closeServers stops the server New started: httptest's or the HTTPS one.
func (g *gateway) closeServers() {
	if g.server != nil {
		g.server.Close()
	}
	if g.tls != nil {
		g.tls.close()
	}
}

// close stops the server: the simulator's own client lets go of its
// connections, requests in flight get up to two seconds, then every
// connection is closed.
func (t *tlsServer) close() {
	t.client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := t.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		_ = t.srv.Close()
	}
	<-t.done
}

// HTTPClient returns the HTTP client of the embedded server: it trusts the
// certificate of a simulator started with WithTLS or WithHTTP2 and speaks
// HTTP/2 to one started with WithHTTP2. Client uses it. Nil for a
// simulator from NewHandler.
func (s *Simulator) HTTPClient() *http.Client {
	switch {
	case s.wiring.gw.tls != nil:
		return s.wiring.gw.tls.client
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
	return s.wiring.gw.tls.cert.Leaf
}
