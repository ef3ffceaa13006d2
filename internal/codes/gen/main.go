// Command gen writes codes_gen.go from codes.tsv. Run it with go generate
// in the root package (see codes.go there).
package main

import (
	"fmt"
	"os"

	"github.com/mwallet/mwallet-go/internal/codes"
)

func main() {
	in, out := "codes.tsv", "codes_gen.go"
	if len(os.Args) == 3 {
		in, out = os.Args[1], os.Args[2]
	}
	if err := run(in, out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	tsv, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	rows, err := codes.Parse(tsv)
	if err != nil {
		return err
	}
	src, err := codes.Generate(rows)
	if err != nil {
		return err
	}
	return os.WriteFile(out, src, 0o644)
}
