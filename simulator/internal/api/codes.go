package api

// IsAlpha reports whether s is n upper-case ASCII letters (an ISO code:
// a country of 2, a currency of 3).
func IsAlpha(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}
