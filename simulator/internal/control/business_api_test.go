package control

import (
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
)

// fakeBusiness serves POST /v1/cards/{id}/ship and GET /v1/assets.
type fakeBusiness struct{}

func (fakeBusiness) Endpoints() []api.Endpoint {
	return []api.Endpoint{{Method: "GET", Pattern: "/v1/assets"}, {Method: "POST", Pattern: "/v1/cards/{id}/ship"}}
}

func (fakeBusiness) AllowedMethods(r *http.Request) []string {
	switch r.URL.Path {
	case "/v1/assets":
		return []string{"GET"}
	case "/v1/cards/c1/ship":
		return []string{"POST"}
	}
	return nil
}

// TestIsBusinessPath: the router's served paths and the prefixes of its
// patterns are business paths, as BusinessPath says over them.
func TestIsBusinessPath(t *testing.T) {
	tests := []struct {
		p    string
		want bool
	}{
		{"/v1/assets", true},
		{"/v1/cards/c1/ship", true},
		{"/v1/cards/c9*", true},
		{"/v1/members", true},
		{"/v1/nothing", false},
		{"/_sim/clock", false},
	}
	for _, tt := range tests {
		if got := IsBusinessPath(fakeBusiness{}, tt.p); got != tt.want {
			t.Errorf("IsBusinessPath(%q) = %v, want %v", tt.p, got, tt.want)
		}
	}
}

// TestCheckBusinessEndpoint: a write the router serves passes; another is
// the refusal listing the writes, as refused makes it an error.
func TestCheckBusinessEndpoint(t *testing.T) {
	var got *Refusal
	refused := func(r *Refusal) error { got = r; return errors.New(r.Message()) }
	if err := CheckBusinessEndpoint(fakeBusiness{}, "post", "/v1/cards/c1/ship?x=1", refused); err != nil {
		t.Fatalf("served write: %v", err)
	}
	if err := CheckBusinessEndpoint(fakeBusiness{}, "POST", "/v1/assets", refused); err == nil {
		t.Fatal("unserved write: no error")
	}
	want := &Refusal{Kind: "business endpoint", Name: "POST /v1/assets", Valid: []string{"POST /v1/cards/{id}/ship"}, Field: "method and path"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("refusal (-want +got):\n%s", diff)
	}
}

// TestViaJSON: a value comes back as JSON gives it (numbers as float64).
func TestViaJSON(t *testing.T) {
	tests := []struct {
		in, want map[string]any
	}{
		{nil, nil},
		{map[string]any{"n": 3, "s": "x"}, map[string]any{"n": float64(3), "s": "x"}},
	}
	for _, tt := range tests {
		got, err := ViaJSON(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ViaJSON(%v) (-want +got):\n%s", tt.in, diff)
		}
	}
	if _, err := ViaJSON(map[string]any{"f": func() {}}); err == nil {
		t.Error("ViaJSON of a func: no error")
	}
}
