package mwallet

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mwallet/mwallet-go/internal/h2serve"
)

// netHTTPText are error texts of net/http's HTTP/2 client (h2_bundle.go,
// the same in Go 1.24, 1.25 and 1.26). The tests against live servers
// below (h2serve's resets, rawH2's GOAWAYs) fail if a Go release changes
// what reaches the client.
const (
	textRefusedWrapped  = "http2: Transport: cannot retry err [stream error: stream ID 3; REFUSED_STREAM; received from peer] after Request.Body was written; define Request.GetBody to avoid this error"
	textGoAwayWrapped   = "http2: Transport: cannot retry err [http2: Transport received Server's graceful shutdown GOAWAY] after Request.Body was written; define Request.GetBody to avoid this error"
	textProtocolWrapped = "http2: Transport: cannot retry err [stream error: stream ID 5; PROTOCOL_ERROR; received from peer] after Request.Body was written; define Request.GetBody to avoid this error"
)

// asStreamError mimics the As method of net/http's unexported HTTP/2
// StreamError (h2_error.go): it fills any struct of the same shape.
type asStreamError struct {
	id, code uint32
}

func (e asStreamError) Error() string { return "stream error: stream ID " + strconv.Itoa(int(e.id)) }

func (e asStreamError) As(target any) bool {
	t, ok := target.(*h2StreamError)
	if ok {
		*t = h2StreamError{StreamID: e.id, Code: e.code}
	}
	return ok
}

// TestClassifyNetErr is the classification table of transport errors:
// what each guarantees decides whether a write without an idempotency key
// may be sent again (not sent), only a keyed write or a read may (maybe
// sent), or nothing is retried (fatal).
func TestClassifyNetErr(t *testing.T) {
	t.Parallel()
	post := func(err error) error { return &url.Error{Op: "Post", URL: "https://api.example/v1/x", Err: err} }
	tests := []struct {
		name string
		err  error
		want netClass
	}{
		// HTTP/2: not processed.
		{"REFUSED_STREAM", post(asStreamError{3, 0x7}), netNotSent},
		{"REFUSED_STREAM net/http did not resend (body)", post(errors.New(textRefusedWrapped)), netNotSent},
		{"GOAWAY below the stream", post(errors.New("http2: Transport received Server's graceful shutdown GOAWAY")), netNotSent},
		{"GOAWAY below the stream, net/http did not resend (body)", post(errors.New(textGoAwayWrapped)), netNotSent},
		{"GOAWAY with an error code on the connection's first stream", post(errors.New("http2: Transport received GOAWAY from server ErrCode:ENHANCE_YOUR_CALM")), netNotSent},
		{"connection unusable before writing", post(errors.New("http2: client conn not usable")), netNotSent},
		{"connection never established", post(errors.New("http2: client conn could not be established")), netNotSent},
		// HTTP/2: may have been processed.
		{"RST_STREAM INTERNAL_ERROR", post(asStreamError{3, 0x2}), netMaybeSent},
		{"RST_STREAM CANCEL", post(asStreamError{3, 0x8}), netMaybeSent},
		{"RST_STREAM NO_ERROR", post(asStreamError{3, 0x0}), netMaybeSent},
		{"RST_STREAM PROTOCOL_ERROR", post(asStreamError{3, 0x1}), netMaybeSent},
		{"RST_STREAM PROTOCOL_ERROR, net/http did not resend (body)", post(errors.New(textProtocolWrapped)), netMaybeSent},
		{"RST_STREAM ENHANCE_YOUR_CALM", post(asStreamError{3, 0xb}), netMaybeSent},
		{"RST_STREAM HTTP_1_1_REQUIRED", post(asStreamError{3, 0xd}), netMaybeSent},
		{"GOAWAY at or above the stream, connection closed", post(errors.New(`http2: server sent GOAWAY and closed the connection; LastStreamID=3, ErrCode=NO_ERROR, debug=""`)), netMaybeSent},
		{"connection error", post(errors.New("connection error: PROTOCOL_ERROR")), netMaybeSent},
		{"client connection lost", post(errors.New("http2: client connection lost")), netMaybeSent},
		{"timeout awaiting headers", post(errors.New("http2: timeout awaiting response headers")), netMaybeSent},
		// HTTP/1.1 and TCP, unchanged.
		{"connection refused", post(&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}), netNotSent},
		{"DNS", post(&net.DNSError{Err: "no such host", Name: "api.example"}), netNotSent},
		{"connection reset", post(&net.OpError{Op: "read", Err: syscall.ECONNRESET}), netMaybeSent},
		{"EOF", post(io.EOF), netMaybeSent},
		{"unexpected EOF", io.ErrUnexpectedEOF, netMaybeSent},
		{"deadline", post(context.DeadlineExceeded), netMaybeSent},
		{"canceled", post(context.Canceled), netFatal},
		{"unknown authority", post(x509.UnknownAuthorityError{}), netFatal},
		{"not TLS", post(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), netFatal},
		{"other", post(errors.New("unsupported protocol scheme")), netFatal},
		{"nil", nil, netFatal},
	}
	for _, tt := range tests {
		if got := classifyNetErr(tt.err); got != tt.want {
			t.Errorf("%s: %v is %s, want %s", tt.name, tt.err, got, tt.want)
		}
	}
}

// TestHTTP2StreamErrorsFromNetHTTP classifies the errors a live HTTP/2
// server makes net/http return, for a signed write (a body net/http may
// not rewind) and a read.
func TestHTTP2StreamErrorsFromNetHTTP(t *testing.T) {
	t.Parallel()
	cert, err := h2serve.LocalCertificate()
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		h2serve.Abort(w, r, map[string]h2serve.Reset{"/refused": h2serve.Refused, "/internal": h2serve.Internal}[r.URL.Path])
	})}
	h2serve.Configure(srv, true)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(h2serve.Listen(ln, h2serve.TLSConfig(cert, true))) }()
	hc := h2serve.Client(cert)
	t.Cleanup(func() { hc.CloseIdleConnections(); _ = srv.Close() })
	for _, tt := range []struct {
		path string
		want netClass
	}{{"/refused", netNotSent}, {"/internal", netMaybeSent}} {
		req, _ := http.NewRequest(http.MethodPost, "https://"+ln.Addr().String()+tt.path, http.NoBody)
		req.Body = io.NopCloser(io.LimitReader(nil, 0)) // a body net/http cannot rewind
		req.GetBody = nil
		_, err := hc.Do(req)
		if got := classifyNetErr(err); got != tt.want {
			t.Errorf("%s: %v is %s, want %s", tt.path, err, got, tt.want)
		}
	}
}

// rawH2 is a minimal HTTP/2 server over TLS that answers every request with
// 200 and a token body, except where its script sends GOAWAY instead.
type rawH2 struct {
	t      *testing.T
	ln     net.Listener
	script func(conn, stream int) (goaway bool, last uint32, code uint32, closeConn bool)

	mu       sync.Mutex
	conns    int
	answered int           // requests answered (processed)
	accepted chan struct{} // closed and replaced at each accepted connection
	closed   chan struct{} // closed when the test ends
}

func startRawH2(t *testing.T, script func(conn, stream int) (bool, uint32, uint32, bool)) (*rawH2, *http.Client) {
	t.Helper()
	cert, err := h2serve.LocalCertificate()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2"}})
	if err != nil {
		t.Fatal(err)
	}
	s := &rawH2{t: t, ln: ln, script: script, accepted: make(chan struct{}), closed: make(chan struct{})}
	go s.serve()
	hc := h2serve.Client(cert)
	t.Cleanup(func() { close(s.closed); hc.CloseIdleConnections(); _ = ln.Close() })
	return s, hc
}

func (s *rawH2) serve() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns++
		n := s.conns
		close(s.accepted)
		s.accepted = make(chan struct{})
		s.mu.Unlock()
		go s.serveConn(c, n)
	}
}

// awaitConnAfter waits until connection n+1 is accepted, or the test ends.
func (s *rawH2) awaitConnAfter(n int) {
	for {
		s.mu.Lock()
		more, next := s.conns > n, s.accepted
		s.mu.Unlock()
		if more {
			return
		}
		select {
		case <-next:
		case <-s.closed:
			return
		}
	}
}

func writeH2Frame(w io.Writer, typ, flags byte, stream uint32, payload []byte) error {
	hdr := []byte{byte(len(payload) >> 16), byte(len(payload) >> 8), byte(len(payload)), typ, flags, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(hdr[5:], stream)
	_, err := w.Write(append(hdr, payload...))
	return err
}

func (s *rawH2) serveConn(c net.Conn, connN int) {
	defer c.Close()
	preface := make([]byte, 24)
	if _, err := io.ReadFull(c, preface); err != nil {
		return
	}
	if writeH2Frame(c, 0x4, 0, 0, nil) != nil { // SETTINGS
		return
	}
	body := []byte(`{"auth_token":"tok_raw","expired_at":` + strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10) + `,"token_type":"Bearer","scopes":[]}`)
	streams := 0
	hdr := make([]byte, 9)
	for {
		if _, err := io.ReadFull(c, hdr); err != nil {
			return
		}
		length := int(hdr[0])<<16 | int(hdr[1])<<8 | int(hdr[2])
		typ, flags, id := hdr[3], hdr[4], binary.BigEndian.Uint32(hdr[5:])&0x7fffffff
		if _, err := io.CopyN(io.Discard, c, int64(length)); err != nil {
			return
		}
		switch {
		case typ == 0x4 && flags&0x1 == 0: // SETTINGS: acknowledge
			_ = writeH2Frame(c, 0x4, 0x1, 0, nil)
			continue
		case (typ == 0x1 || typ == 0x0) && flags&0x1 != 0: // HEADERS or DATA ending the request
		default:
			continue
		}
		streams++
		goaway, last, code, closeConn := s.script(connN, streams)
		if goaway {
			p := make([]byte, 8)
			binary.BigEndian.PutUint32(p, last)
			binary.BigEndian.PutUint32(p[4:], code)
			_ = writeH2Frame(c, 0x7, 0, 0, p)
			if closeConn {
				if last < id {
					// The client must read the GOAWAY before the
					// connection ends, or it cannot know the stream was
					// not processed: end it once the client has opened
					// its next connection, which it does only after
					// reading the GOAWAY (no timer).
					s.awaitConnAfter(connN)
				}
				return
			}
			continue
		}
		s.mu.Lock()
		s.answered++
		s.mu.Unlock()
		// :status 200 (HPACK static table index 8), then the body.
		if writeH2Frame(c, 0x1, 0x4, id, []byte{0x88}) != nil || writeH2Frame(c, 0x0, 0x1, id, body) != nil {
			return
		}
	}
}

// TestHTTP2GoAway: a GOAWAY whose last stream id is below the request's
// means the request was not processed, so even a write without a key is
// sent again (on a new connection); a GOAWAY that covers the request, then
// the connection's end, leaves the outcome unknown, so only a keyed write
// is sent again.
func TestHTTP2GoAway(t *testing.T) {
	t.Parallel()
	const (
		noError       = 0x0
		enhanceYrCalm = 0xb
	)
	tests := []struct {
		name string
		// script: on connection 1, stream 1 is the token exchange and
		// stream 2 the call under test, unless the script ends
		// connection 1 after the exchange.
		script   func(conn, stream int) (bool, uint32, uint32, bool)
		req      func() *Request
		ok       bool
		attempts int
	}{
		{"graceful GOAWAY below the stream, write without key", func(conn, stream int) (bool, uint32, uint32, bool) {
			return conn == 1 && stream == 2, 1, noError, false
		}, unkeyedWrite, true, 2},
		{"GOAWAY below the stream, then GOAWAY with an error on the next connection's first stream, write without key", func(conn, stream int) (bool, uint32, uint32, bool) {
			switch {
			case conn == 1 && stream == 2:
				return true, 1, noError, true
			case conn == 2 && stream == 1:
				return true, 0, enhanceYrCalm, false
			}
			return false, 0, 0, false
		}, unkeyedWrite, true, 3},
		{"GOAWAY covering the stream, then close: write without key", func(conn, stream int) (bool, uint32, uint32, bool) {
			return conn == 1 && stream == 2, 3, noError, true
		}, unkeyedWrite, false, 1},
		{"GOAWAY covering the stream, then close: keyed write", func(conn, stream int) (bool, uint32, uint32, bool) {
			return conn == 1 && stream == 2, 3, noError, true
		}, postReq, true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, hc := startRawH2(t, tt.script)
			c, err := New("https://"+s.ln.Addr().String(), testCreds(), WithHTTPClient(hc), WithRetryBackoff(time.Millisecond, 5*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Do(context.Background(), tt.req(), nil)
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok %v", err, tt.ok)
			}
			var te *TransportError
			switch {
			case err == nil && resp.Attempts != tt.attempts:
				t.Errorf("attempts %d, want %d", resp.Attempts, tt.attempts)
			case err != nil && (!errors.As(err, &te) || te.Attempts != tt.attempts || te.NotSent):
				t.Errorf("err = %v, want a *TransportError after %d attempt(s), outcome unknown", err, tt.attempts)
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			// The exchange plus the one processed send of the call (none
			// when it failed: the covered stream was never answered).
			want := 2
			if !tt.ok {
				want = 1
			}
			if s.answered != want {
				t.Errorf("server answered %d requests, want %d", s.answered, want)
			}
		})
	}
}
