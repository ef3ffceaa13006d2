package simulator

import (
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
	s.mu.Lock()
	hc := s.webhookStateLocked().client
	s.mu.Unlock()
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
