package simulator

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// maxHostMethods is the most methods the lines' Host interfaces may declare
// in all. A Host keeps only what one line needs of another (or of the
// simulator's gateway and delivery); what every line uses is the kernel's,
// through the transaction. Lower it when a method goes; never raise it.
const maxHostMethods = 20

// hostMethods are the methods of each line's Host interface, read from
// its source (a line without one needs no other).
func hostMethods(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, line := range linePackages {
		files, err := filepath.Glob(filepath.Join("internal", line, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(gotoken.NewFileSet(), f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				ts, ok := n.(*ast.TypeSpec)
				if !ok || ts.Name.Name != "Host" {
					return true
				}
				it, ok := ts.Type.(*ast.InterfaceType)
				if !ok {
					t.Errorf("%s: Host is not an interface", f)
					return false
				}
				for _, m := range it.Methods.List {
					if len(m.Names) == 0 {
						t.Errorf("%s: Host embeds %v: list its methods", f, m.Type)
					}
					for _, name := range m.Names {
						out[line] = append(out[line], name.Name)
					}
				}
				return false
			})
		}
		sort.Strings(out[line])
	}
	return out
}

// TestHostsKeepOnlyWhatALineNeedsOfAnother counts the lines' Host methods
// (at most maxHostMethods), lists them, so that a new one is a change this
// test shows, and refuses a Host method named as a service of the kernel's
// transaction (the clock, ids, the ledger, events, the catalogue, the
// merchant's configuration, timers): those are reached through the Tx.
func TestHostsKeepOnlyWhatALineNeedsOfAnother(t *testing.T) {
	t.Parallel()
	got := hostMethods(t)
	want := map[string][]string{
		"cards":       {"AllocateBinding", "BindingActive", "CompensateBinding", "KYCInReview", "Member", "RequireStepUp"},
		"kyc":         {"BindingWithdrawn", "Member", "SetMemberKYC"},
		"merchant":    {"AdvanceQueued"},
		"qrpay":       {"Member", "MerchantFeeRateBps", "RequireStepUp"},
		"remittances": {"HasKYCProfile", "KYCInReview", "Member", "MemberByExternal", "MerchantStatus"},
		"stepup":      {"Room"},
		"webhooks":    {"AutoFlush"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Host methods (-want +got):\n%s", diff)
	}
	n := 0
	for _, ms := range got {
		n += len(ms)
	}
	if n > maxHostMethods {
		t.Errorf("%d Host methods in all, at most %d", n, maxHostMethods)
	}
	txType := reflect.TypeOf((*kernel.Tx)(nil))
	for line, ms := range got {
		for _, m := range ms {
			if _, ok := txType.MethodByName(m); ok {
				t.Errorf("%s.Host.%s is a service of the transaction (kernel.Tx.%s)", line, m, m)
			}
		}
	}
}
