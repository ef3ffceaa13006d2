package inputlog

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/recfile"
	"github.com/mwallet/mwallet-go/simulator/internal/replay"
)

// TestDriverFuncs checks that each Driver method of a DriverFuncs calls its
// function, and that Serve hands the handler the body through a Capture
// carrying the replay's hooks.
func TestDriverFuncs(t *testing.T) {
	var calls []string
	note := func(s string) { calls = append(calls, s) }
	var base string
	var served string
	var hooked bool
	d := DriverFuncs{
		Handler: http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			served = string(b)
			_, _, hooked = Replayed(r)
		}),
		CallFunc:       func(in *recfile.Input) error { note("call " + in.Call); return nil },
		Due:            func() error { note("due"); return nil },
		AttemptFunc:    func(in *recfile.Input) error { note("attempt " + in.Delivery); return nil },
		Abort:          func(ids []string) error { note("abort " + strings.Join(ids, ",")); return nil },
		Flight:         func(*kernel.Tx) []string { note("inflight"); return []string{"d1"} },
		KickFunc:       func(*kernel.Tx) { note("kick") },
		Base:           &base,
		DigestOf:       func(*kernel.Tx) (string, error) { return "current", nil },
		LegacyDigestOf: func(*kernel.Tx) (string, error) { return "legacy", nil },
	}
	var dr Driver = d
	_ = dr.Call(&recfile.Input{Call: "Cards.Ship"})
	_ = dr.FlushDue()
	_ = dr.Attempt(&recfile.Input{Delivery: "d1"})
	_ = dr.FlushAbort([]string{"d1", "d2"})
	if got := dr.InFlight(nil); !cmp.Equal(got, []string{"d1"}) {
		t.Errorf("InFlight = %v", got)
	}
	dr.Kick(nil)
	want := []string{"call Cards.Ship", "due", "attempt d1", "abort d1,d2", "inflight", "kick"}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	dr.SetBase("http://recorded")
	if base != "http://recorded" {
		t.Errorf("SetBase: base %q", base)
	}
	for _, tt := range []struct {
		legacy bool
		want   string
	}{{false, "current"}, {true, "legacy"}} {
		if got, err := dr.Digest(nil, tt.legacy); got != tt.want || err != nil {
			t.Errorf("Digest(legacy %v) = %q, %v; want %q", tt.legacy, got, err, tt.want)
		}
	}
	h := &replay.Hooks{Want: &recfile.Input{}, W: &replay.Writer{}}
	dr.Serve(h, httptest.NewRequest(http.MethodPost, "/v1/x", nil), io.NopCloser(strings.NewReader("body")))
	if served != "body" || !hooked {
		t.Errorf("Serve: handler read %q, replayed %v; want body, true", served, hooked)
	}
}
