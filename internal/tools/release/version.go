package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// projectURL is the repository's URL, as .goreleaser.yaml names it.
const projectURL = "https://github.com/mwallet/mwallet-go.git"

// snapshotVersion is the version .goreleaser.yaml's snapshot template
// gives ("{{ incpatch .Version }}-snapshot+{{ .ShortCommit }}"): the patch
// after the last release (v0.0.0 before the first), of commit short.
func snapshotVersion(last, short string) (string, error) {
	v := strings.TrimPrefix(cmp.Or(last, "v0.0.0"), "v")
	core, pre, _ := strings.Cut(v, "-")
	var x, y, z int
	if n, err := fmt.Sscanf(core, "%d.%d.%d", &x, &y, &z); err != nil || n != 3 || fmt.Sprintf("%d.%d.%d", x, y, z) != core {
		return "", fmt.Errorf("release %q is not vMAJOR.MINOR.PATCH", last)
	}
	if pre == "" {
		// A prerelease's incpatch drops the prerelease and keeps the patch.
		z++
	}
	return fmt.Sprintf("%d.%d.%d-snapshot+%s", x, y, z, short), nil
}

// distVersion is the version of GoReleaser's last run (dist/metadata.json).
func distVersion(dist string) (string, error) {
	meta, err := os.ReadFile(filepath.Join(dist, "metadata.json"))
	if err != nil {
		return "", err
	}
	var md struct{ Version string }
	if err := json.Unmarshal(meta, &md); err != nil || md.Version == "" {
		return "", fmt.Errorf("metadata.json: no version (%v)", err)
	}
	return md.Version, nil
}
