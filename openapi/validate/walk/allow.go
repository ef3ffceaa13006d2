package walk

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Allowlist lists differences that are deliberate fixes: a build after the
// fix answers differently from one before it. Each line is
//
//	OPERATION | SUBSTRING | FIX | TEST
//
// OPERATION is "METHOD /template" as in Diff.Op (or * for any), SUBSTRING
// must occur in the request sent or in one of the answers, FIX says what
// changed and TEST names the test that proves the fix. Blank lines and
// lines starting with # are ignored.
type Allowlist struct {
	entries []allowEntry
}

type allowEntry struct {
	op, substr, fix, test string
	line                  int
	used                  int
}

// ParseAllowlist reads an allowlist.
func ParseAllowlist(r io.Reader) (*Allowlist, error) {
	a := &Allowlist{}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "|")
		if len(parts) != 4 {
			return nil, fmt.Errorf("line %d: want OPERATION | SUBSTRING | FIX | TEST, got %d fields", n, len(parts))
		}
		e := allowEntry{line: n}
		for i, p := range parts {
			parts[i] = strings.TrimSpace(p)
			if parts[i] == "" {
				return nil, fmt.Errorf("line %d: field %d is empty", n, i+1)
			}
		}
		e.op, e.substr, e.fix, e.test = parts[0], parts[1], parts[2], parts[3]
		a.entries = append(a.entries, e)
	}
	return a, sc.Err()
}

// Match returns the fix and test of the first entry that allows d, and
// whether one does. A nil Allowlist allows nothing.
func (a *Allowlist) Match(d Diff) (fix, test string, ok bool) {
	if a == nil {
		return "", "", false
	}
	for i := range a.entries {
		e := &a.entries[i]
		if e.op != "*" && e.op != d.Op {
			continue
		}
		hit := strings.Contains(d.Sent, e.substr)
		for _, ans := range d.Answers {
			hit = hit || strings.Contains(ans, e.substr)
		}
		if hit {
			e.used++
			return e.fix, e.test, true
		}
	}
	return "", "", false
}

// Unused lists the entries that matched nothing.
func (a *Allowlist) Unused() []string {
	if a == nil {
		return nil
	}
	var out []string
	for _, e := range a.entries {
		if e.used == 0 {
			out = append(out, fmt.Sprintf("line %d: %s | %s", e.line, e.op, e.substr))
		}
	}
	return out
}

// Group is the differences of one Diff.Key (operation, part, statuses).
// It is allowed only when every one of its differences matches an entry
// of the allowlist: one matching difference does not carry the others.
type Group struct {
	N         int    // differences in the group
	Unmatched int    // of those, how many no entry allows
	Fix       string // the fix (and test) of the last entry that matched
	Examples  []Diff // up to the show given to Add, of the unmatched ones
}

// Allowed reports whether every difference of g is allowed.
func (g *Group) Allowed() bool { return g.Unmatched == 0 }

// Groups collects differences by Diff.Key.
type Groups map[string]*Group

// Add puts d in its group, matching it against allow on its own, and
// keeps it as an example (at most show per group) when nothing allows it.
func (gs Groups) Add(d Diff, allow *Allowlist, show int) {
	g := gs[d.Key()]
	if g == nil {
		g = &Group{}
		gs[d.Key()] = g
	}
	g.N++
	if fix, test, ok := allow.Match(d); ok {
		g.Fix = fix + " (" + test + ")"
		return
	}
	g.Unmatched++
	if len(g.Examples) < show {
		g.Examples = append(g.Examples, d)
	}
}
