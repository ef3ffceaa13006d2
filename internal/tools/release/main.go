// Command release cross-compiles mwallet-sim, the standalone simulator, for
// the platforms a team without Go runs it on, and writes their SHA-256
// checksums. From the repository root:
//
//	go run ./internal/tools/release -out dist                  # all six platforms
//	go run ./internal/tools/release -out dist -version v1.2.3  # names carry the version
//	go run ./internal/tools/release -out dist -targets linux/amd64,darwin/arm64
//
// Each binary is static (CGO_ENABLED=0) and reproducible from the same
// source (-trimpath, -buildvcs=false, symbols stripped), named
// mwallet-sim[-VERSION]-GOOS-GOARCH (with .exe on Windows). SHA256SUMS
// lists every file in the format of sha256sum, so `sha256sum -c SHA256SUMS`
// checks a download. It prints each file with its size, and exits 1 when a
// build fails, 2 for a wrong flag.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// defaultTargets are the platforms of a release: Linux, macOS and Windows
// on amd64 and arm64.
var defaultTargets = []string{
	"linux/amd64", "linux/arm64",
	"darwin/amd64", "darwin/arm64",
	"windows/amd64", "windows/arm64",
}

// pkg is the command that is released.
const pkg = "./cmd/mwallet-sim"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// artefact is one built file.
type artefact struct {
	name   string
	size   int64
	sha256 string
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "dist", "directory the binaries and SHA256SUMS are written to (created if missing)")
	version := fs.String("version", "", "version put in the file names, for example v1.2.3 (default: none)")
	targets := fs.String("targets", strings.Join(defaultTargets, ","), "comma-separated GOOS/GOARCH pairs")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	list, err := parseTargets(*targets)
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if err == nil && *version != "" && !regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`).MatchString(*version) {
		err = fmt.Errorf("-version %q: letters, digits and . _ + - only", *version)
	}
	if err != nil {
		fmt.Fprintln(stderr, "release:", err)
		return 2
	}
	arts, err := build(*out, *version, list, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "release:", err)
		return 1
	}
	fmt.Fprintf(stdout, "%d binaries and SHA256SUMS in %s\n", len(arts), *out)
	return 0
}

// parseTargets reads "goos/goarch,..." and refuses duplicates and malformed
// pairs (go build judges whether a pair exists).
func parseTargets(s string) ([]string, error) {
	var list []string
	seen := map[string]bool{}
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimSpace(t)
		goos, goarch, ok := strings.Cut(t, "/")
		if !ok || goos == "" || goarch == "" || strings.Contains(goarch, "/") {
			return nil, fmt.Errorf("-targets: %q is not GOOS/GOARCH", t)
		}
		if seen[t] {
			return nil, fmt.Errorf("-targets: %s twice", t)
		}
		seen[t] = true
		list = append(list, t)
	}
	return list, nil
}

// fileName is the released name of the binary for target.
func fileName(version, target string) string {
	goos, goarch, _ := strings.Cut(target, "/")
	name := "mwallet-sim"
	if version != "" {
		name += "-" + version
	}
	name += "-" + goos + "-" + goarch
	if goos == "windows" {
		name += ".exe"
	}
	return name
}

// build compiles every target into out, one after the other, then writes
// SHA256SUMS.
func build(out, version string, targets []string, stdout io.Writer) ([]artefact, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	var arts []artefact
	for _, t := range targets {
		goos, goarch, _ := strings.Cut(t, "/")
		name := fileName(version, t)
		path := filepath.Join(out, name)
		start := time.Now()
		cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", path, pkg)
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("%s: %v\n%s", t, err, b)
		}
		a, err := describe(path)
		if err != nil {
			return nil, err
		}
		arts = append(arts, a)
		fmt.Fprintf(stdout, "%-36s %6.1f MiB  %s  (%.1fs)\n", a.name, float64(a.size)/(1<<20), a.sha256, time.Since(start).Seconds())
	}
	sort.Slice(arts, func(i, j int) bool { return arts[i].name < arts[j].name })
	var sums strings.Builder
	for _, a := range arts {
		fmt.Fprintf(&sums, "%s  %s\n", a.sha256, a.name)
	}
	return arts, os.WriteFile(filepath.Join(out, "SHA256SUMS"), []byte(sums.String()), 0o644)
}

// describe hashes a built file.
func describe(path string) (artefact, error) {
	f, err := os.Open(path)
	if err != nil {
		return artefact{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return artefact{}, err
	}
	return artefact{name: filepath.Base(path), size: n, sha256: hex.EncodeToString(h.Sum(nil))}, nil
}
