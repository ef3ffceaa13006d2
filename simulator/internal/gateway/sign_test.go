package gateway

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestAllowEntryMatches(t *testing.T) {
	t.Parallel()
	ip := netip.MustParseAddr("192.168.10.20")
	tests := []struct {
		entry string
		want  bool
	}{
		{"192.168.10.20", true},
		{"192.168.10.21", false},
		{"192.168.10.*", true},
		{"192.168.*", true},
		{"192.*", true},
		{"193.*", false},
		{"*", false},
		{"192.168.10.2*", false},
		{"192.168.010.*", false},
		{"192.168.10.0/24", true},
		{"192.168.0.0/16", true},
		{"192.0.0.0/8", true},
		{"192.168.11.0/24", false},
		{"192.168.10.16/28", false},
		{"192.168.10.20/32", false},
		{"192.168.10.0/024", false},
		{"192.168.10.0/", false},
		{"::ffff:192.168.10.20", false},
		{"fe80::/64", false},
		{"", false},
		{"192.168.10.20 ", false},
	}
	for _, tt := range tests {
		if got := AllowEntryMatches(tt.entry, ip); got != tt.want {
			t.Errorf("AllowEntryMatches(%q) = %v, want %v", tt.entry, got, tt.want)
		}
	}
}

func TestSignAndTarget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, uri, want string
	}{
		{"origin form keeps the query as sent", "/v1/cards?limit=2&x=%41", "/v1/cards?limit=2&x=%41"},
		{"absolute form falls back to the URL", "http://h/v1/cards?a=1", "/v1/cards?a=1"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(http.MethodGet, tt.uri, nil)
		if got := RequestTarget(r); got != tt.want {
			t.Errorf("%s: RequestTarget = %q, want %q", tt.name, got, tt.want)
		}
	}
	// The contract's x-signature over a known key and request.
	got := Sign("sk_test", "POST", "/v1/cards", "1700000000", "n1", []byte(`{"a":1}`))
	if want := "sriEyOSHEFnbx2awGPVKUN4xKa2tDquXNZeioscqo5w="; got != want {
		t.Errorf("Sign = %q, want %q", got, want)
	}
	if Sign("sk_test", "POST", "/v1/cards", "1700000000", "n2", []byte(`{"a":1}`)) == got {
		t.Error("the nonce is not signed")
	}
}

func TestRemoteIP(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"192.0.2.1:443":        "192.0.2.1",
		"[::ffff:192.0.2.1]:1": "192.0.2.1",
		"192.0.2.7":            "192.0.2.7",
		"nonsense":             "invalid IP",
	} {
		r := &http.Request{RemoteAddr: addr}
		if got := RemoteIP(r).String(); got != want {
			t.Errorf("RemoteIP(%q) = %q, want %q", addr, got, want)
		}
	}
}
