package inputlog

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
)

// TestFuncs checks that a Funcs host answers with its functions and makes
// no draws for a control request.
func TestFuncs(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f := Funcs{
		Clock:         func() time.Time { return now },
		BusinessDraws: func(*kernel.Tx, *http.Request) []bool { return []bool{true, false} },
		DigestAt:      func(func(*kernel.Tx)) (string, error) { return "d1", nil },
		StateWriter: func(w io.Writer, _ *kernel.Capture) error {
			_, err := io.WriteString(w, "state")
			return err
		},
	}
	var h Host = f
	if got := h.Now(); !got.Equal(now) {
		t.Errorf("Now() = %v, want %v", got, now)
	}
	tests := []struct {
		path string
		want []bool
	}{
		{"/v1/assets", []bool{true, false}},
		{"/_sim/clock", nil},
		{"/%5Fsim/clock", nil},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(http.MethodGet, tt.path, nil)
		if diff := cmp.Diff(tt.want, h.Draws(nil, r)); diff != "" {
			t.Errorf("Draws(%s) (-want +got):\n%s", tt.path, diff)
		}
	}
	if d, err := h.Digest(nil); d != "d1" || err != nil {
		t.Errorf("Digest = %q, %v; want d1", d, err)
	}
	var buf bytes.Buffer
	if err := h.WriteState(&buf, nil); err != nil || buf.String() != "state" {
		t.Errorf("WriteState wrote %q, %v", buf.String(), err)
	}
	// A body the log did not capture is left as it is.
	in := &recfile.Input{}
	h.Body(httptest.NewRequest(http.MethodPost, "/v1/x", nil), in)
	if diff := cmp.Diff(&recfile.Input{}, in); diff != "" {
		t.Errorf("Body of an uncaptured request (-want +got):\n%s", diff)
	}
}
