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
