package kernel

import "testing"

func TestVerifyMode(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want bool
	}{
		{"1", true},
		{"0", false},
		{"", true},    // a test binary
		{"yes", true}, // not a setting: as unset
	} {
		t.Setenv(VerifyEnv, tc.env)
		if got := VerifyMode(); got != tc.want {
			t.Errorf("%s=%q: VerifyMode() = %v, want %v", VerifyEnv, tc.env, got, tc.want)
		}
	}
}
