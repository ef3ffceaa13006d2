package api

import "testing"

// TestIsAlpha: exactly n upper-case ASCII letters, nothing else.
func TestIsAlpha(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		n    int
		want bool
	}{
		{"GB", 2, true},
		{"THB", 3, true},
		{"gb", 2, false},
		{"Gb", 2, false},
		{"GBP", 2, false},
		{"G", 2, false},
		{"", 0, true},
		{"", 2, false},
		{"G1", 2, false},
		{"G@", 2, false},
		{"G[", 2, false},
		{"ÄB", 2, false},
		{"ÄB", 3, false},
	}
	for _, tt := range tests {
		if got := IsAlpha(tt.s, tt.n); got != tt.want {
			t.Errorf("IsAlpha(%q, %d) = %v, want %v", tt.s, tt.n, got, tt.want)
		}
	}
}

// TestShapes: the digit and uuid shapes path ids and PINs are checked with.
func TestShapes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		v            string
		digits, uuid bool
	}{
		{"", false, false},
		{"0123", true, false},
		{"12a", false, false},
		{"١٢٣", false, false}, // non-ASCII digits
		{"0f8fad5b-d9cb-469f-a165-70867728950e", false, true},
		{"0F8FAD5B-D9CB-469F-A165-70867728950E", false, true},
		{"0f8fad5bd9cb469fa16570867728950e", false, false},
		{"0f8fad5b-d9cb-469f-a165-70867728950g", false, false},
	} {
		if got := AllDigits(tt.v); got != tt.digits {
			t.Errorf("AllDigits(%q) = %v", tt.v, got)
		}
		if got := UUIDShaped(tt.v); got != tt.uuid {
			t.Errorf("UUIDShaped(%q) = %v", tt.v, got)
		}
	}
}
