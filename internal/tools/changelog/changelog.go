// Package changelog reads CHANGELOG.md as the repository writes it (Keep a
// Changelog): level-two headings name the versions ("## [Unreleased]",
// "## [0.1.0] - 2026-12-01"), level-three headings the kinds of change, and
// each change is a list item, which may wrap over several lines.
//
// A change that breaks callers is a list item whose text starts with the
// word Breaking (also bold: **Breaking**), for example
//
//   - Breaking: `mwallet.Error.RetryAfter` is a time.Duration (it was int seconds).
//
// The compatibility guard (internal/tools/apicompat) accepts an
// incompatible API change when such an item of [Unreleased] names it.
package changelog

import (
	"fmt"
	"regexp"
	"strings"
)

// Section is one version's part of the changelog.
type Section struct {
	// Name is the text between the brackets of its heading: "Unreleased"
	// or a version without the v.
	Name string
	// Line is the 1-based line of its heading.
	Line int
	// Lines are the lines after the heading up to the next level-two
	// heading; Lines[i] is line Line+1+i.
	Lines []string
}

var versionHeading = regexp.MustCompile(`^##\s+\[([^\]]+)\]`)

// Sections returns the version sections in the order of the file.
func Sections(text string) []Section {
	var out []Section
	for i, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if strings.HasPrefix(line, "## ") {
			name := ""
			if m := versionHeading.FindStringSubmatch(line); m != nil {
				name = strings.TrimPrefix(strings.TrimSpace(m[1]), "v")
			}
			out = append(out, Section{Name: name, Line: i + 1})
			continue
		}
		if len(out) > 0 {
			out[len(out)-1].Lines = append(out[len(out)-1].Lines, line)
		}
	}
	return out
}

// Find returns the section named name ("Unreleased", case-insensitive, or a
// version with or without its v).
func Find(text, name string) (Section, error) {
	name = strings.TrimPrefix(name, "v")
	for _, s := range Sections(text) {
		if strings.EqualFold(s.Name, name) {
			return s, nil
		}
	}
	return Section{}, fmt.Errorf("no section ## [%s]", name)
}

// Body is the section's text without its heading, trimmed of blank lines
// at both ends.
func (s Section) Body() string {
	return strings.Trim(strings.Join(s.Lines, "\n"), "\n") + "\n"
}

// Item is one list item of a section.
type Item struct {
	// Line is the 1-based line of the file where the item starts.
	Line int
	// Text is the item's text without its bullet, its lines joined by
	// single spaces.
	Text string
}

var bullet = regexp.MustCompile(`^\s*[-*+]\s+`)

// Items returns the list items of the section, nested ones included. An
// item goes on over the following lines until a blank line, a heading or
// the next item.
func (s Section) Items() []Item {
	var out []Item
	open := false
	for i, line := range s.Lines {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
			open = false
		case bullet.MatchString(line):
			out = append(out, Item{Line: s.Line + 1 + i, Text: strings.TrimSpace(bullet.ReplaceAllString(line, ""))})
			open = true
		case open:
			out[len(out)-1].Text += " " + trimmed
		}
	}
	return out
}

var breakingMark = regexp.MustCompile(`^(\*\*|__)?Breaking\b`)

// Breaking returns the items marked as breaking: their text starts with
// the word Breaking, plain or bold.
func (s Section) Breaking() []Item {
	var out []Item
	for _, it := range s.Items() {
		if breakingMark.MatchString(it.Text) {
			out = append(out, it)
		}
	}
	return out
}

// receiver matches a method's receiver written as Go does, (*T) or (T), so
// that "(*mwallet.Client).Do" reads as "mwallet.Client.Do".
var receiver = regexp.MustCompile(`\(\*?([A-Za-z_][A-Za-z0-9_./-]*)\)`)

// Names reports whether text names the identifier ident, written in full:
// ident must stand on its own, not be part of a longer name. "mwallet.Error"
// is named by "`mwallet.Error`." but not by "mwallet.ErrorCode" nor by
// "mwallet.Error.RetryAfter" (which names the field).
func Names(text, ident string) bool {
	if ident == "" {
		return false
	}
	text = receiver.ReplaceAllString(text, "$1")
	for from := 0; ; {
		i := strings.Index(text[from:], ident)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(ident)
		from = start + 1
		if start > 0 && isNameByte(text[start-1], true) {
			continue
		}
		if end < len(text) {
			c := text[end]
			if isNameByte(c, false) {
				continue
			}
			if c == '.' && end+1 < len(text) && isNameByte(text[end+1], false) {
				continue
			}
		}
		return true
	}
}

// NamesMember reports whether text names the member (a field or a method)
// of the type typeIdent: in full, "webhooks.Deduper.Claim", or by the
// type in full and the member's name as a word of its own, as in
// "`webhooks.Deduper` is `Claim(ctx, id, now, lease)` ...".
func NamesMember(text, typeIdent, member string) bool {
	if Names(text, typeIdent+"."+member) {
		return true
	}
	if !Names(text, typeIdent) || member == "" {
		return false
	}
	for from := 0; ; {
		i := strings.Index(text[from:], member)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(member)
		from = start + 1
		if (start == 0 || !isNameByte(text[start-1], false)) && (end == len(text) || !isNameByte(text[end], false)) {
			return true
		}
	}
}

// isNameByte reports whether c continues a name; before a name, a path
// separator or a dot continues it as well.
func isNameByte(c byte, before bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
		return true
	case before && (c == '.' || c == '/' || c == '-'):
		return true
	}
	return false
}
