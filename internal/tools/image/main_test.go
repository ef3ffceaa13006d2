package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// fakeRelease writes two "binaries" and their SHA256SUMS.
func fakeRelease(t *testing.T) (map[string]string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	bins, sums := map[string]string{}, map[string]string{}
	for _, arch := range architectures {
		content := []byte("#!/bin/sh\necho mwallet-sim " + arch + "\n")
		p := filepath.Join(dir, "mwallet-sim-linux-"+arch)
		if err := os.WriteFile(p, content, 0o755); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(content)
		bins[arch], sums["mwallet-sim-linux-"+arch] = p, hex.EncodeToString(sum[:])
	}
	return bins, sums
}

func writeLayout(t *testing.T, bins map[string]string, created time.Time) (string, string) {
	t.Helper()
	idx, err := build(bins, "v0.1.0", "0123456789abcdef0123456789abcdef01234567", created)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "image")
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AppendIndex(idx); err != nil {
		t.Fatal(err)
	}
	d, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return dir, d.String()
}

// The image built from the release binaries passes its own inspection:
// both platforms, the entrypoint, the user, the port, the files with their
// modes and owners, each binary equal to its SHA256SUMS line.
func TestBuildThenInspect(t *testing.T) {
	t.Parallel()
	bins, sums := fakeRelease(t)
	dir, _ := writeLayout(t, bins, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	rep, err := inspect(dir, sums)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.problems) > 0 {
		t.Fatalf("problems: %v\n%s", rep.problems, rep.text)
	}
	for _, want := range []string{
		`linux/amd64  manifest sha256:`, `linux/arm64  manifest sha256:`,
		`entrypoint ["/mwallet-sim","serve","-addr","0.0.0.0:8080"]  cmd []  user 65532:65532  ports 8080/tcp  created 2026-12-01T00:00:00Z  version v0.1.0`,
		"/data         drwxr-xr-x 65532:65532",
		"= mwallet-sim-linux-arm64 of SHA256SUMS",
		"/tmp          dtrwxrwxrwx     0:0",
	} {
		if !strings.Contains(rep.text, want) {
			t.Errorf("inspection lacks %q:\n%s", want, rep.text)
		}
	}
	if len(rep.binaries) != 2 {
		t.Errorf("binaries of %d platforms, want 2", len(rep.binaries))
	}
}

// The same binaries and time give the same image, byte for byte; another
// time, another image.
func TestBuildIsReproducible(t *testing.T) {
	t.Parallel()
	bins, _ := fakeRelease(t)
	when := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	_, d1 := writeLayout(t, bins, when)
	_, d2 := writeLayout(t, bins, when)
	_, d3 := writeLayout(t, bins, when.Add(time.Second))
	if d1 != d2 || d1 == d3 {
		t.Errorf("digests %s, %s (same input), %s (another time)", d1, d2, d3)
	}
}

// A binary that is not the release file is found out.
func TestInspectFindsAnotherBinary(t *testing.T) {
	t.Parallel()
	bins, sums := fakeRelease(t)
	dir, _ := writeLayout(t, bins, time.Unix(0, 0))
	sums["mwallet-sim-linux-amd64"] = strings.Repeat("0", 64)
	delete(sums, "mwallet-sim-linux-arm64")
	rep, err := inspect(dir, sums)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(rep.problems, "\n")
	for _, want := range []string{"linux/amd64: /mwallet-sim is not the release file mwallet-sim-linux-amd64", "linux/arm64: SHA256SUMS has no mwallet-sim-linux-arm64"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
}
