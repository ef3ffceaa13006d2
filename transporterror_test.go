package mwallet

import (
	"context"
	"fmt"
	"testing"
)

// TestTransportErrorSaysWhatHappened: the message of a TransportError says
// what ended the call as it was: not sent, an unknown outcome (with the
// key), no answer at all, or stopped after an answer it could not act on
// (a 429 whose wait the call could not make), never "no answer" when one
// came.
func TestTransportErrorSaysWhatHappened(t *testing.T) {
	t.Parallel()
	limited := &Error{HTTPStatus: 429, Code: CodeRateLimited, Type: "rate_limit_error", Message: "slow down"}
	tests := []struct {
		name string
		err  *TransportError
		want string
	}{
		{"nothing left the client", &TransportError{Method: "POST", Path: "/v1/deposits", NotSent: true, IdempotencyKey: "k1", Err: context.Canceled},
			"mwallet: POST /v1/deposits: not sent (idempotency key k1): context canceled"},
		{"a keyed write that may have run", &TransportError{Method: "POST", Path: "/v1/deposits", Attempts: 2, IdempotencyKey: "k2", Err: context.DeadlineExceeded},
			"mwallet: POST /v1/deposits: outcome unknown after 2 attempt(s) (idempotency key k2): context deadline exceeded"},
		{"a read without an answer", &TransportError{Method: "GET", Path: "/v1/assets", Attempts: 3, Err: context.DeadlineExceeded},
			"mwallet: GET /v1/assets: no answer after 3 attempt(s): context deadline exceeded"},
		{"a read answered 429, the wait not made", &TransportError{Method: "GET", Path: "/v1/assets", Attempts: 1, Err: fmt.Errorf("waiting 30s to retry: %w", limited)},
			"mwallet: GET /v1/assets: stopped after 1 attempt(s): waiting 30s to retry: " + limited.Error()},
		{"a keyed write answered 429 each time, none processed", &TransportError{Method: "POST", Path: "/v1/deposits", Attempts: 2, NotSent: true, IdempotencyKey: "k3", Err: limited},
			"mwallet: POST /v1/deposits: stopped after 2 attempt(s), none processed (idempotency key k3): " + limited.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q\nwant      %q", got, tt.want)
			}
		})
	}
}
