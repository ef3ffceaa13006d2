// Package tlsserver is the server a simulator New starts (Served):
// httptest's loopback server, or the HTTPS server of one started with
// WithTLS or WithHTTP2 (Server: a loopback port with a self-signed
// certificate (internal/h2serve), HTTP/1.1 and, when asked, HTTP/2, and a
// client that trusts it).
package tlsserver

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/mwallet/mwallet-go/internal/h2serve"
)

// Server is a running HTTPS server: its base URL, its certificate and a
// client that trusts it (and speaks HTTP/2 to a server that does).
type Server struct {
	srv    *http.Server
	URL    string
	Cert   tls.Certificate
	Client *http.Client
	done   chan struct{}
}

// Start serves h over HTTPS on a loopback port (IPv4, else IPv6):
// HTTP/1.1, and HTTP/2 when http2 is set. OPTIONS * reaches h.
func Start(h http.Handler, http2 bool) (*Server, error) {
	cert, err := h2serve.LocalCertificate()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		if ln, err = net.Listen("tcp6", "[::1]:0"); err != nil {
			return nil, err
		}
	}
	srv := &http.Server{Handler: h, DisableGeneralOptionsHandler: true, ReadHeaderTimeout: 10 * time.Second}
	h2serve.Configure(srv, http2)
	t := &Server{srv: srv, URL: "https://" + ln.Addr().String(), Cert: cert, Client: h2serve.Client(cert), done: make(chan struct{})}
	go func() {
		defer close(t.done)
		_ = srv.Serve(h2serve.Listen(ln, h2serve.TLSConfig(cert, http2)))
	}()
	return t, nil
}

// Close stops the server: its own client lets go of its connections,
// requests in flight get up to two seconds, then every connection is
// closed.
func (t *Server) Close() {
	t.Client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := t.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		_ = t.srv.Close()
	}
	<-t.done
}
