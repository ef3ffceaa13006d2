package mwallet

import (
	"strings"
	"testing"
)

// TestValidIdempotencyKey checks the 8-4-4-4-12 hex shape the service checks:
// any version and either case are accepted; a hyphen out of place, a
// non-hex character, a wrong length or surrounding space is refused.
func TestValidIdempotencyKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key  string
		want bool
	}{
		{"3f0e1f0c-7d0c-4a53-9b0e-8a6c2b3d4e5f", true},
		{"3F0E1F0C-7D0C-4A53-9B0E-8A6C2B3D4E5F", true},
		{"00000000-0000-0000-0000-000000000000", true},
		{"3f0e1f0c-7d0c-1a53-cb0e-8a6c2b3d4e5f", true},  // any version and variant
		{"3f0e1f0c7-d0c-4a53-9b0e-8a6c2b3d4e5f", false}, // hyphen moved, same length
		{"3f0e1f0c-7d0c-4a539-b0e-8a6c2b3d4e5f", false},
		{"3f0e1f0c-7d0c-4a53-9b0e8-a6c2b3d4e5f", false},
		{"3f0e1f0c07d0c04a5309b0e08a6c2b3d4e5f", false}, // no hyphens at all
		{"3f0e1f0c-7d0c-4a53-9b0e-8a6c2b3d4e5G", false},
		{"3f0e1f0c-7d0c-4a53-9b0e-8a6c2b3d4e5z", false},
		{"3f0e1f0c-7d0c-4a53-9b0e-8a6c2b3d4e5", false},
		{"3f0e1f0c-7d0c-4a53-9b0e-8a6c2b3d4e5f0", false},
		{" 3f0e1f0c-7d0c-4a53-9b0e-8a6c2b3d4e5", false},
		{"3f0e1f0c-7d0c-4a53-9b0e-8a6c2b3d4e5\n", false},
		{strings.Repeat("-", 36), false},
		{"", false},
	}
	for _, tt := range tests {
		if got := ValidIdempotencyKey(tt.key); got != tt.want {
			t.Errorf("ValidIdempotencyKey(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
	for i := 0; i < 100; i++ {
		if k := NewIdempotencyKey(); !ValidIdempotencyKey(k) {
			t.Fatalf("NewIdempotencyKey() = %q is not UUID-shaped", k)
		}
	}
}
