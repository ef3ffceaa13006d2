package inputlog

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
	"github.com/mwallet/mwallet-go/simulator/internal/replay"
)

// TestCapture holds what the capture of a request's body keeps for its
// logged input, whether the request is a replay's, and the draws its
// recorded input made.
func TestCapture(t *testing.T) {
	t.Parallel()
	want := &recfile.Input{Draws: []bool{true, false}}
	tests := []struct {
		name      string
		put       func(r *http.Request)
		read      int // bytes the handler reads before the body is kept
		keep      string
		replayed  bool
		draws     []bool
		handlerRd string // what the handler reads after the body is kept
	}{
		{name: "no capture", put: func(*http.Request) {}},
		{name: "captured, unread", put: CaptureBody, keep: "hello", handlerRd: "hello"},
		{name: "captured, read in part", put: CaptureBody, read: 2, keep: "hello", handlerRd: "llo"},
		{name: "captured twice keeps the first", put: func(r *http.Request) { CaptureBody(r); CaptureBody(r) }, keep: "hello", handlerRd: "hello"},
		{name: "replayed", put: func(r *http.Request) {
			ReplayBody(r, io.NopCloser(strings.NewReader("hello")), &replay.Hooks{Want: want})
		}, keep: "hello", replayed: true, draws: want.Draws, handlerRd: "hello"},
		{name: "replayed without its input", put: func(r *http.Request) {
			ReplayBody(r, io.NopCloser(strings.NewReader("hello")), &replay.Hooks{})
		}, keep: "hello", replayed: true, handlerRd: "hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := http.NewRequest("POST", "/v1/x", strings.NewReader("hello"))
			tt.put(r)
			head := make([]byte, tt.read)
			if _, err := io.ReadFull(r.Body, head); err != nil {
				t.Fatal(err)
			}
			var in recfile.Input
			KeepBody(r, &in)
			if got := string(in.Body); got != tt.keep {
				t.Errorf("kept %q, want %q", got, tt.keep)
			}
			if diff := cmp.Diff(tt.draws, in.Draws); diff != "" {
				t.Errorf("logged draws (-want +got):\n%s", diff)
			}
			draws, park, ok := Replayed(r)
			if ok != tt.replayed || (park != nil) != tt.replayed {
				t.Errorf("Replayed: ok %v, park %v; want %v", ok, park != nil, tt.replayed)
			}
			if diff := cmp.Diff(tt.draws, draws); diff != "" {
				t.Errorf("Replayed draws (-want +got):\n%s", diff)
			}
			if tt.keep == "" {
				return
			}
			rest, _ := io.ReadAll(r.Body)
			if string(rest) != tt.handlerRd {
				t.Errorf("handler read %q after the keep, want %q", rest, tt.handlerRd)
			}
			if err := r.Body.Close(); err != nil {
				t.Error(err)
			}
		})
	}
}
