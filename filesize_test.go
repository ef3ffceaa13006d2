package mwallet_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxSourceLines is the longest a non-test Go source file may be without a
// line in the README saying why.
const maxSourceLines = 600

// TestSourceFilesStayShort walks every Go source file of the repository,
// nested modules included, and fails for a non-test file over
// maxSourceLines lines unless the README or a guide of docs/ names it (as `path/file.go`) with
// its reason. Generated files are exempt.
func TestSourceFilesStayShort(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	// The reasons may stand in the guides the README links (docs/).
	guides, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range guides {
		b, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		readme = append(readme, b...)
	}
	checked := 0
	err = filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		checked++
		if bytes.Contains(b, []byte("Code generated")) && bytes.Contains(b, []byte("DO NOT EDIT.")) {
			return nil
		}
		lines := bytes.Count(b, []byte("\n"))
		if lines > maxSourceLines && !bytes.Contains(readme, []byte("`"+filepath.ToSlash(p)+"`")) {
			t.Errorf("%s has %d lines (more than %d): split it along the specification's sections, or say in the README why it stays whole", p, lines, maxSourceLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked only %d source files; is the walk starting at the repository root?", checked)
	}
}
