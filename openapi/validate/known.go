package validate

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Known is a list of violations that are known and owned elsewhere: each
// entry is a line "KEY | SUBSTRING", matching a violation whose Key equals
// KEY and whose Detail contains SUBSTRING. Lines starting with # are
// comments (every entry has one saying why it is there); blank lines are
// ignored.
type Known struct {
	entries []knownEntry
}

type knownEntry struct {
	key, substr string
	line        int
	hits        int
}

// ParseKnown reads a known-violations list.
func ParseKnown(r io.Reader) (*Known, error) {
	k := &Known{}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, substr, ok := strings.Cut(line, " | ")
		if !ok || strings.TrimSpace(key) == "" || strings.TrimSpace(substr) == "" {
			return nil, fmt.Errorf("line %d: want \"KEY | SUBSTRING\", got %q", n, line)
		}
		k.entries = append(k.entries, knownEntry{key: strings.TrimSpace(key), substr: strings.TrimSpace(substr), line: n})
	}
	return k, sc.Err()
}

// Match reports whether v is a known violation, and counts the hit.
func (k *Known) Match(v Violation) bool {
	if k == nil {
		return false
	}
	for i := range k.entries {
		e := &k.entries[i]
		if v.Key == e.key && strings.Contains(v.Detail, e.substr) {
			e.hits++
			return true
		}
	}
	return false
}

// Unused returns the entries that matched no violation: each one is stale
// (the mismatch was fixed) and must be removed from the list.
func (k *Known) Unused() []string {
	if k == nil {
		return nil
	}
	var out []string
	for _, e := range k.entries {
		if e.hits == 0 {
			out = append(out, fmt.Sprintf("line %d: %s | %s", e.line, e.key, e.substr))
		}
	}
	return out
}
