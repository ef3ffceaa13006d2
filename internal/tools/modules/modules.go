// Package modules finds the Go modules of the repository: the main module
// and each nested module (a directory with its own go.mod, such as
// redisstore/ and otel/). The repository's tools (testall, apicompat,
// release) share it, so that a new nested module is tested, guarded and
// tagged without changing any of them.
package modules

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Module is one Go module of the repository.
type Module struct {
	// Dir is the module's directory relative to the root, "." for the
	// main module, slash-separated.
	Dir string
	// Path is the module path of its go.mod.
	Path string
	// Requires lists the module paths its go.mod requires.
	Requires []string
}

// Needs reports whether the module requires a module path with this prefix.
func (m Module) Needs(prefix string) bool {
	for _, r := range m.Requires {
		if strings.HasPrefix(r, prefix) {
			return true
		}
	}
	return false
}

// Find walks root for go.mod files: the main module first, then the nested
// ones in path order. Hidden directories and those starting with _,
// testdata, vendor and node_modules are skipped.
func Find(root string) ([]Module, error) {
	var mods []Module
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() != "go.mod" {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		mods = append(mods, Module{Dir: filepath.ToSlash(rel), Path: modulePath(string(b)), Requires: requires(string(b))})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(mods, func(i, j int) bool {
		if (mods[i].Dir == ".") != (mods[j].Dir == ".") {
			return mods[i].Dir == "."
		}
		return mods[i].Dir < mods[j].Dir
	})
	if len(mods) == 0 || mods[0].Dir != "." {
		return nil, fmt.Errorf("no go.mod at %s", root)
	}
	return mods, nil
}

// Root is the directory of the main module: `go env GOMOD` from the
// working directory, which must be inside the main module.
func Root(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside a Go module: run from the repository")
	}
	return filepath.Dir(gomod), nil
}

// goModLines returns the lines of a go.mod without comments, trimmed.
func goModLines(gomod string) []string {
	var out []string
	for _, line := range strings.Split(gomod, "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		out = append(out, strings.TrimSpace(line))
	}
	return out
}

// modulePath returns the path of a go.mod's module directive.
func modulePath(gomod string) string {
	for _, line := range goModLines(gomod) {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// requires returns the module paths of a go.mod's require directives.
func requires(gomod string) []string {
	var out []string
	block := false
	for _, line := range goModLines(gomod) {
		switch {
		case line == "":
		case block && line == ")":
			block = false
		case block:
			out = append(out, strings.Fields(line)[0])
		case line == "require (":
			block = true
		case strings.HasPrefix(line, "require "):
			if f := strings.Fields(line); len(f) >= 2 {
				out = append(out, f[1])
			}
		}
	}
	return out
}
