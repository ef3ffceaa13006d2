package modules

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Modules are found by their go.mod files, the main module first; hidden
// directories, testdata, vendor and node_modules are not searched.
func TestFind(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, filepath.Join(root, "go.mod"), "module example.com/root\n\ngo 1.24\n")
	write(t, filepath.Join(root, "store", "go.mod"), "module example.com/root/store // the store\n\ngo 1.24\n\nrequire (\n\tgithub.com/redis/go-redis/v9 v9.17.3 // a comment\n\texample.com/root v0.0.0\n)\n")
	write(t, filepath.Join(root, "e2e", "web", "go.mod"), "module \"example.com/root/e2e/web\"\n\nrequire github.com/chromedp/chromedp v0.14.2\n")
	for _, skipped := range []string{".git/x", "testdata/x", "vendor/x", "node_modules/x", "_old/x"} {
		write(t, filepath.Join(root, skipped, "go.mod"), "module skipped\n")
	}
	mods, err := Find(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []Module{
		{Dir: ".", Path: "example.com/root"},
		{Dir: "e2e/web", Path: "example.com/root/e2e/web", Requires: []string{"github.com/chromedp/chromedp"}},
		{Dir: "store", Path: "example.com/root/store", Requires: []string{"github.com/redis/go-redis/v9", "example.com/root"}},
	}
	if diff := cmp.Diff(want, mods); diff != "" {
		t.Errorf("modules (-want +got):\n%s", diff)
	}
	if !mods[2].Needs("github.com/redis/go-redis") || mods[1].Needs("github.com/redis/go-redis") {
		t.Error("Needs")
	}
}

// In this repository: the main module and at least the nested modules the
// README names, each with its module path.
func TestFindThisRepository(t *testing.T) {
	t.Parallel()
	mods, err := Find(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{}
	for _, m := range mods {
		paths[m.Dir] = m.Path
	}
	for dir, path := range map[string]string{
		".":           "github.com/mwallet/mwallet-go",
		"redisstore":  "github.com/mwallet/mwallet-go/redisstore",
		"otel":        "github.com/mwallet/mwallet-go/otel",
		"e2e/browser": "github.com/mwallet/mwallet-go/e2e/browser",
	} {
		if paths[dir] != path {
			t.Errorf("module %s: path %q, want %q; found %v", dir, paths[dir], path, mods)
		}
	}
	if mods[0].Dir != "." {
		t.Errorf("the main module is not first: %v", mods)
	}
}
