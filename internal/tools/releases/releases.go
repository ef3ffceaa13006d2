// Package releases reads and writes RELEASES, the file at the root of the
// repository that names each release and the commit it tags, one line per
// release, oldest first:
//
//	v0.1.0 0123456789abcdef0123456789abcdef01234567
//
// Lines starting with # are comments. The commit is named in full so that
// a clone without tags still knows the release's commit: the compatibility
// guard (internal/tools/apicompat) compares the API with the commit of the
// last line. The release tool (internal/tools/release tag) appends the line.
package releases

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// File is the name of the file at the root of the repository.
const File = "RELEASES"

// Release is one line of RELEASES.
type Release struct {
	Version string // v0.1.0
	Commit  string // 40 hexadecimal digits
	Line    int    // 1-based line in the file
}

var (
	versionRE = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)
	commitRE  = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// ValidVersion reports whether v is a semantic version with its v, as Go
// modules tag them (v0.1.0, v1.2.3-rc.1).
func ValidVersion(v string) bool { return versionRE.MatchString(v) }

// Parse reads the text of RELEASES. Versions must grow from line to line.
func Parse(text string) ([]Release, error) {
	var out []Release
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 || !ValidVersion(f[0]) || !commitRE.MatchString(f[1]) {
			return nil, fmt.Errorf("%s:%d: %q is not \"VERSION COMMIT\" (v1.2.3 and 40 hexadecimal digits)", File, i+1, line)
		}
		r := Release{Version: f[0], Commit: f[1], Line: i + 1}
		if len(out) > 0 && Compare(out[len(out)-1].Version, r.Version) >= 0 {
			return nil, fmt.Errorf("%s:%d: %s does not follow %s", File, i+1, r.Version, out[len(out)-1].Version)
		}
		out = append(out, r)
	}
	return out, nil
}

// Read parses the file at path; a missing file is no release.
func Read(path string) ([]Release, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return Parse(string(b))
}

// Line is the line Append writes for a release.
func Line(version, commit string) string { return version + " " + commit + "\n" }

// Compare orders two valid versions as semantic versioning does: -1, 0 or
// +1. A pre-release sorts before its release; pre-release identifiers
// compare numerically when both are numbers, else as strings.
func Compare(a, b string) int {
	ma, mb := versionRE.FindStringSubmatch(a), versionRE.FindStringSubmatch(b)
	if ma == nil || mb == nil {
		return strings.Compare(a, b)
	}
	for i := 1; i <= 3; i++ {
		x, _ := strconv.Atoi(ma[i])
		y, _ := strconv.Atoi(mb[i])
		if x != y {
			return cmpInt(x, y)
		}
	}
	pa, pb := strings.TrimPrefix(ma[4], "-"), strings.TrimPrefix(mb[4], "-")
	switch {
	case pa == pb:
		return 0
	case pa == "":
		return 1
	case pb == "":
		return -1
	}
	fa, fb := strings.Split(pa, "."), strings.Split(pb, ".")
	for i := 0; i < len(fa) && i < len(fb); i++ {
		x, errx := strconv.Atoi(fa[i])
		y, erry := strconv.Atoi(fb[i])
		switch {
		case errx == nil && erry == nil && x != y:
			return cmpInt(x, y)
		case errx == nil && erry != nil:
			return -1
		case errx != nil && erry == nil:
			return 1
		case errx != nil && fa[i] != fb[i]:
			return strings.Compare(fa[i], fb[i])
		}
	}
	return cmpInt(len(fa), len(fb))
}

func cmpInt(x, y int) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
