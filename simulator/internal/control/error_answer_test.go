package control

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// TestErrorAnswer: the envelope of each kind of error, the declaring
// package's own errors answered by known, in order.
func TestErrorAnswer(t *testing.T) {
	t.Parallel()
	errOwn := errors.New("own")
	known := func(err error) *api.Error {
		if errors.Is(err, errOwn) {
			return api.NewErr("own_code", "own answer")
		}
		return nil
	}
	tests := []struct {
		name string
		err  error
		want *api.Error
	}{
		{"an answer as is", fmt.Errorf("wrapped: %w", api.NewErr("conflict", "taken")), api.NewErr("conflict", "taken")},
		{"the package's own", fmt.Errorf("x: %w", errOwn), api.NewErr("own_code", "own answer")},
		{"the marker of a missing object", fmt.Errorf("card crd_1: %w", api.ErrControlNotFound), api.NewErr("not_found", "card crd_1: not found")},
		{"a message that says not found", errors.New("order not found"), api.NewErr("not_found", "order not found")},
		{"anything else", errors.New("bad amount"), api.InvalidRequest("bad amount")},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ErrorAnswer(tt.err, known)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
