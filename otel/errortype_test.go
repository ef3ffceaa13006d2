package mwotel

import (
	"context"
	"errors"
	"fmt"
	"testing"

	mwallet "github.com/mwallet/mwallet-go"
)

// TestErrorType: error.type names each kind of ending, a success answer
// that could not be read included (the call ran: not a parameter error,
// whatever its cause).
func TestErrorType(t *testing.T) {
	t.Parallel()
	unreadable := &mwallet.AnswerError{Method: "POST", Path: "/v1/qrpay/payments", StatusCode: 201, Executed: true,
		Err: fmt.Errorf("reading: %w", context.Canceled)}
	for _, tt := range []struct {
		status int
		err    error
		want   string
	}{
		{201, nil, ""},
		{400, &mwallet.Error{HTTPStatus: 400, Code: mwallet.CodeInvalidRequest}, "400"},
		{201, unreadable, "answer_unreadable"},
		{0, &mwallet.ParamError{Param: "amount"}, "param_error"},
		{0, &mwallet.TransportError{Method: "GET", Path: "/v1/x", Err: errors.New("reset")}, "transport_error"},
		{0, context.DeadlineExceeded, "timeout"},
		{0, errors.New("something else"), "_OTHER"},
	} {
		if got := errorType(tt.status, tt.err); got != tt.want {
			t.Errorf("errorType(%d, %v) = %q, want %q", tt.status, tt.err, got, tt.want)
		}
	}
}
