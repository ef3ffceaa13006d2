package simulator

import (
	"net/http"
	"testing"
	"time"
)

// TestWebhookAttemptTimeout pins the contract's 10 s per-attempt timeout on
// the delivery client (a real-time bound, so it is checked on the client
// rather than by making a receiver hang for 10 s), and checks that a
// redirect is not followed: only a 2xx answer is a success.
func TestWebhookAttemptTimeout(t *testing.T) {
	t.Parallel()
	s := MustNew()
	t.Cleanup(s.Close)
	tx := s.k.Begin()
	hc := s.st.webhooks.Client()
	tx.End()
	if hc.Timeout != 10*time.Second {
		t.Errorf("delivery attempt timeout = %s, want 10s", hc.Timeout)
	}
	if hc.CheckRedirect == nil || hc.CheckRedirect(nil, nil) == nil {
		t.Errorf("the delivery client follows redirects")
	}
	if err := s.CheckLedger(); err != nil {
		t.Errorf("CheckLedger: %v", err)
	}
	if err := s.CheckInvariants(); err != nil {
		t.Errorf("CheckInvariants: %v", err)
	}
}

// TestDeliveryPoolIsPrivate pins that each simulator delivers through its
// own connection pool, never http.DefaultTransport: every
// httptest.Server.Close in the process closes the default pool's idle
// connections, and net/http puts a connection back in the idle pool just
// before handing a bodyless answer to the request, so a close in that gap
// failed an attempt the receiver had accepted ("http: CloseIdleConnections
// called").
func TestDeliveryPoolIsPrivate(t *testing.T) {
	t.Parallel()
	pool := func() (*http.Transport, http.RoundTripper) {
		s := MustNew()
		t.Cleanup(s.Close)
		tx := s.k.Begin()
		defer tx.End()
		return s.st.webhooks.Transport(), s.st.webhooks.Client().Transport
	}
	a, rtA := pool()
	b, _ := pool()
	if a == nil || a == http.DefaultTransport || a == b {
		t.Fatalf("delivery pools %p and %p (default %p): want one private pool per simulator", a, b, http.DefaultTransport)
	}
	if rtA == nil || rtA == http.DefaultTransport {
		t.Fatalf("the delivery client sends through %v, want the simulator's pool", rtA)
	}
	if l, ok := rtA.(interface{ Unwrap() http.RoundTripper }); ok && l.Unwrap() != a {
		t.Fatalf("the exchange logger sends through %v, want the simulator's pool", l.Unwrap())
	} else if !ok && rtA != a {
		t.Fatalf("the delivery client sends through %v, want the simulator's pool %p", rtA, a)
	}
}
