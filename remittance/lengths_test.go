package remittance_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mwallet/mwallet-go/remittance"
)

// TestPayoutLengthCountsCharacters: payout_amount is "at most 32 chars",
// counted in characters. A valid amount is ASCII; multi-byte input longer
// than 32 bytes but not 32 characters is refused for its syntax, not its
// length.
func TestPayoutLengthCountsCharacters(t *testing.T) {
	t.Parallel()
	long := func(n int) string { return strings.Repeat("1", n-3) + ".00" } // n characters, GBP precision
	tests := []struct {
		name, amount string
		lengthErr    bool // the error names the 32-character limit
		ok           bool
	}{
		{"32 characters", long(32), false, true},
		{"33 characters", long(33), true, false},
		{"11 three-byte characters (33 bytes)", strings.Repeat("€", 11), false, false},
		{"32 two-byte digits (64 bytes)", strings.Repeat("١", 29) + ".00", false, false},
		{"33 two-byte digits", strings.Repeat("١", 30) + ".00", true, false},
	}
	for _, tt := range tests {
		_, err := remittance.ParsePayout("GBP", tt.amount)
		if tt.ok != (err == nil) {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if err == nil {
			continue
		}
		if got := strings.Contains(err.Error(), fmt.Sprintf("longer than %d characters", remittance.MaxPayoutAmountLen)); got != tt.lengthErr {
			t.Errorf("%s (%d characters, %d bytes): %v; length error %v, want %v",
				tt.name, utf8.RuneCountInString(tt.amount), len(tt.amount), err, got, tt.lengthErr)
		}
	}
}

// TestPayeeMaskKeepsCharacters: the account number is masked per
// character, keeping the last four, and never cut inside a multi-byte one.
func TestPayeeMaskKeepsCharacters(t *testing.T) {
	t.Parallel()
	tests := []struct{ account, want string }{
		{"GB29NWBK60161331926819", "******************6819"},
		{"12345ÄÖÜß", "*****ÄÖÜß"},
		{"ÄÖÜ", "***"},
		{"", ""},
	}
	for _, tt := range tests {
		s := remittance.PayeeParams{AccountNumber: tt.account}.String()
		if !strings.Contains(s, "AccountNumber:"+tt.want+" ") || !utf8.ValidString(s) {
			t.Errorf("%q masked as %s, want AccountNumber:%s", tt.account, s, tt.want)
		}
		if tt.account != "" && len(tt.account) > 4 && strings.Contains(s, tt.account) {
			t.Errorf("%q appears unmasked", tt.account)
		}
	}
}
