package simulator_test

import (
	"os"
	"path/filepath"
	"testing"
)

// copyDataDir copies the log and the snapshot of testdata/NAME, a data
// directory an earlier build wrote, into a fresh directory of the test's
// and returns it, so that opening it cannot change the testdata.
func copyDataDir(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	for _, file := range []string{"log", "snapshot"} {
		b, err := os.ReadFile(filepath.Join("testdata", name, file))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, file), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
