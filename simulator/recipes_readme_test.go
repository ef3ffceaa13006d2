package simulator_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mwallet/mwallet-go/simulator"
)

// recipesGuide is the guide that holds the error recipes table.
const recipesGuide = "guide/control-api.md"

var updateReadme = flag.Bool("update-readme", false, "rewrite the error recipes table of guide/control-api.md")

const (
	recipesBegin = "<!-- recipes:begin -->\n"
	recipesEnd   = "<!-- recipes:end -->"
)

// recipesTable renders the guide's error table from the recipes: code,
// HTTP status, the call that answers it, how it is produced, injected or
// not (and why).
func recipesTable() string {
	var b strings.Builder
	b.WriteString("| code | HTTP | answered by | how it is produced | injected |\n|---|---|---|---|---|\n")
	for _, r := range simulator.ErrorRecipes() {
		inj := "no"
		if r.Injected {
			inj = "yes: " + r.Note
		}
		last := r.Steps[len(r.Steps)-1]
		fmt.Fprintf(&b, "| `%s` | %d | `%s %s` | %s | %s |\n", r.Code, r.Expect.Status, last.Method, last.Path, r.Title, inj)
	}
	return b.String()
}

// TestReadmeRecipesTable keeps the error table of guide/control-api.md generated from
// the recipes.
func TestReadmeRecipesTable(t *testing.T) {
	b, err := os.ReadFile(recipesGuide)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i, j := strings.Index(text, recipesBegin), strings.Index(text, recipesEnd)
	if i < 0 || j < i {
		t.Fatal("guide/control-api.md lacks the recipes table markers")
	}
	want := recipesTable()
	if got := text[i+len(recipesBegin) : j]; got != want {
		if *updateReadme {
			text = text[:i+len(recipesBegin)] + want + text[j:]
			if err := os.WriteFile(recipesGuide, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("the error recipes table of guide/control-api.md is not generated from the recipes; run go test ./simulator -run TestReadmeRecipesTable -update-readme\n--- want\n%s", want)
	}
}
