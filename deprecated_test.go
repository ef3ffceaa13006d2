package mwallet_test

import (
	"context"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// TestNewClientIsADeprecationThatStillWorks: code written for the earlier
// API keeps compiling and working with mwallet.NewClient, whose doc is a
// Deprecated: paragraph (which staticcheck's SA1019 and editors show at the
// call) pointing to mwclient.New for the product lines and to New for the
// root client alone.
func TestNewClientIsADeprecationThatStillWorks(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	creds := sim.Credentials()
	old, err := mwallet.NewClient(sim.URL(), creds.ClientCredentials(),
		mwallet.WithHTTPClient(sim.HTTPClient()))
	if err != nil {
		t.Fatal(err)
	}
	list, err := old.Assets(context.Background())
	if err != nil || len(list.Assets) == 0 {
		t.Fatalf("a client from NewClient: Assets = %v, %v", list, err)
	}

	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "client.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	p, err := doc.NewFromFiles(fset, []*ast.File{f}, "github.com/mwallet/mwallet-go")
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	for _, fn := range p.Funcs {
		docs[fn.Name] = fn.Doc
	}
	for _, typ := range p.Types {
		for _, fn := range typ.Funcs {
			docs[fn.Name] = fn.Doc
		}
	}
	d := docs["NewClient"]
	_, deprecation, found := strings.Cut(d, "\nDeprecated: ")
	if !found || !strings.Contains(deprecation, "mwclient.New(") || !strings.Contains(deprecation, "New.") {
		t.Errorf("NewClient's doc has no Deprecated: paragraph pointing to mwclient.New and New:\n%s", d)
	}
	if strings.Contains(docs["New"], "Deprecated") || docs["New"] == "" {
		t.Errorf("New's doc = %q", docs["New"])
	}
}
