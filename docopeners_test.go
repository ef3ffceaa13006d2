package mwallet_test

import (
	"go/doc"
	"go/token"
	"strings"
	"testing"
)

// The packages a newcomer opens first with go doc start with usage: a code
// example within the first lines of the package documentation, before any
// section heading.
func TestPackageDocsOpenWithUsage(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{".", "simulator", "simulator/simtest", "webhooks"} {
		fset := token.NewFileSet()
		pkg, err := doc.NewFromFiles(fset, parsePackage(t, fset, dir), modulePath+"/"+dir)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(pkg.Doc, "\n")
		code := -1
		for i, l := range lines {
			if strings.HasPrefix(l, "# ") {
				break
			}
			if strings.HasPrefix(l, "\t") {
				code = i
				break
			}
		}
		if code < 0 || code > 8 {
			t.Errorf("%s: the package documentation must open with a code example (first code line %d, want within the first 8 lines and before any heading)", dir, code)
		}
	}
}
