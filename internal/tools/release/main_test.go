package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A release names one file per platform of the six, with .exe on Windows
// and the version when given. (The builds themselves run in CI,
// .ci/other-languages, which checks SHA256SUMS and runs the Linux binary.)
func TestReleaseFileNames(t *testing.T) {
	t.Parallel()
	var got, gotV []string
	for _, target := range defaultTargets {
		got = append(got, fileName("", target))
		gotV = append(gotV, fileName("v1.2.3", target))
	}
	want := []string{
		"mwallet-sim-linux-amd64", "mwallet-sim-linux-arm64",
		"mwallet-sim-darwin-amd64", "mwallet-sim-darwin-arm64",
		"mwallet-sim-windows-amd64.exe", "mwallet-sim-windows-arm64.exe",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	for i := range want {
		want[i] = strings.Replace(want[i], "mwallet-sim-", "mwallet-sim-v1.2.3-", 1)
	}
	if diff := cmp.Diff(want, gotV); diff != "" {
		t.Errorf("versioned names (-want +got):\n%s", diff)
	}
}

// A wrong flag or target exits 2 before anything is built, saying why.
func TestReleaseRefusesBadFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-targets", "linux"}, `"linux" is not GOOS/GOARCH`},
		{[]string{"-targets", "linux/amd64,linux/amd64"}, "linux/amd64 twice"},
		{[]string{"-targets", "linux/amd64/v3"}, "is not GOOS/GOARCH"},
		{[]string{"-targets", ""}, `"" is not GOOS/GOARCH`},
		{[]string{"-version", "1 2"}, `-version "1 2"`},
		{[]string{"-version", "../x"}, `-version "../x"`},
		{[]string{"extra"}, "unexpected arguments: extra"},
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		dir := t.TempDir()
		if code := run(append([]string{"-out", dir}, tt.args...), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("release %q: exit %d, stderr %q; want 2 with %q", tt.args, code, stderr.String(), tt.want)
		}
		if stdout.Len() != 0 {
			t.Errorf("release %q built something: %s", tt.args, stdout.String())
		}
	}
}
