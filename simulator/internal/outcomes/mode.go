package outcomes

import (
	"fmt"
	"strings"
	"time"
)

// String names the mode as the control API writes it: "manual" (the empty
// Kind too), "immediate" or "after:<duration>" ("after:30s").
func (m Mode) String() string {
	switch m.Kind {
	case "", Manual:
		return Manual
	case After:
		return After + ":" + m.After.String()
	}
	return m.Kind
}

// ParseMode reads "manual" (or the empty string), "immediate" or
// "after:<duration>" with a duration that is not negative. Any other text
// is refused with an error naming it and the modes.
func ParseMode(s string) (Mode, error) {
	switch {
	case s == Manual || s == "":
		return Mode{Kind: Manual}, nil
	case s == Immediate:
		return Mode{Kind: Immediate}, nil
	case strings.HasPrefix(s, After+":"):
		d, err := time.ParseDuration(strings.TrimPrefix(s, After+":"))
		if err != nil || d < 0 {
			return Mode{}, fmt.Errorf("bad outcome duration %q", s)
		}
		return Mode{Kind: After, After: d}, nil
	}
	return Mode{}, fmt.Errorf("unknown outcome mode %q (manual, immediate, after:<duration>)", s)
}
