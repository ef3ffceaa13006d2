package mwallet_test

import (
	"go/ast"
	"go/doc"
	"go/token"
	"go/types"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// timeName matches the exported field names, and timeParam the parameter
// names, that hold a duration or an instant. Rates (perMinute) and counts
// are not durations.
var (
	timeName  = regexp.MustCompile(`(?:^|[a-z0-9])(?:At|Until|Expiry|Expires|Deadline|Timestamp|Time|After|Since|Timeout|Delay|Interval|TTL|Seconds|Secs|Minutes|Hours|Days|MS|Millis|ETA|Cooling|Age|Period|Date)$|^(?:Clock|Unix)`)
	timeParam = regexp.MustCompile(`^(?:at|until|expiry|expires|expiresAt|deadline|timestamp|ts|t|after|since|timeout|delay|interval|ttl|seconds|secs|ms|millis|minutes|hours|days|unix|age|period|wait)$|[a-z](?:At|Until|Timeout|Delay|Interval|TTL|Seconds|Secs|Minutes|Hours|MS|Millis|Unix)$`)
)

// timeTypesFixed are the durations and instants of the public API that were
// ints of seconds or minutes, Unix seconds or strings, with the type each has
// now. The scan below finds every other one.
var timeTypesFixed = []struct{ pkg, name, typ string }{
	{".", "Error.RetryDelay", "time.Duration"},              // was int, seconds
	{".", "Error.ExpiresAt", "time.Time"},                   // was int64, Unix seconds
	{".", "Error.LockedUntil", "time.Time"},                 // was string, RFC 3339
	{".", "Network.DepositETA", "time.Duration"},            // was DepositETAMinutes int
	{".", "Network.WithdrawCooling", "*time.Duration"},      // was WithdrawCoolingHours *int
	{".", "Network.WithdrawETA", "*time.Duration"},          // was WithdrawETAMinutes *int
	{"kyc", "Ticket.ExpiresAt", "time.Time"},                // was int64, Unix seconds
	{"qrpay", "Quote.ExpiresAt", "time.Time"},               // was string, as sent
	{"remittance", "VPApplication.ReviewedAt", "time.Time"}, // was string, RFC 3339
}

// timeTypesKept are the names the scan matches that keep a basic type, each
// with its reason.
var timeTypesKept = map[string]string{
	"qrpay.Quote.ExpiresAtText":                 "the upstream's expires_at as sent, beside ExpiresAt, for a value it could not read",
	"remittance.Order.PayoutDate":               "a calendar date (YYYY-MM-DD), not an instant",
	"remittance.ConversionDate.Date":            "a calendar date (YYYY-MM-DD), not an instant",
	"cards.ActivateParams.Expiry":               "the card's printed expiry (MM/YY), a secret the member types, not an instant",
	"simulator.CardPlastic.Expiry":              "the card's printed expiry (MM/YY), not an instant",
	"simulator.DataDirError.FollowingAt":        "a byte offset in the log, not a time",
	"simulator.SignedRequest.Timestamp":         "the x-timestamp header value to send, text of Unix seconds by the contract",
	"simulator.SignatureCheck.Timestamp":        "x-timestamp as sent, which may not be a number",
	"simulator.SignatureCheck.ClockUnix":        "the journal's clock in the Unix seconds other languages sign with; Clock is the same instant as a time.Time",
	"simulator.SignatureCheck.SkewSeconds":      "the journal's JSON for signers in other languages, in the unit of x-timestamp",
	"simulator.SignatureCheck.ToleranceSeconds": "the journal's JSON for signers in other languages, in the unit of x-timestamp",
	"simulator.Fault.DelayMS":                   "the control API's fault object (delay_ms), which the Go type mirrors",
}

// TestDurationsAndInstantsAreTimeTypes scans the exported API of every
// package users import (fields of exported structs, parameters of exported
// functions and methods) for a name that reads as a duration or an instant
// whose type is an integer, a float or a string: durations are
// time.Duration and instants time.Time throughout. The fixed ones are
// listed with their types.
func TestDurationsAndInstantsAreTimeTypes(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	fields := map[string]string{} // pkg.Type.Field -> type
	var offenders []string
	basic := func(e ast.Expr) bool {
		if s, ok := e.(*ast.StarExpr); ok {
			e = s.X
		}
		id, ok := e.(*ast.Ident)
		if !ok {
			return false
		}
		b, ok := types.Universe.Lookup(id.Name).(*types.TypeName)
		return ok && b.Type().Underlying().(*types.Basic) != nil && id.Name != "bool"
	}
	for _, dir := range moduleDirs(t) {
		if isInternal(dir) || dir == "examples" || strings.HasPrefix(dir, "examples/") || strings.HasPrefix(dir, "cmd/") || strings.HasPrefix(dir, "bench/") {
			continue
		}
		files := parsePackage(t, fset, dir)
		if len(files) == 0 || files[0].Name.Name == "main" {
			continue
		}
		pkg, err := doc.NewFromFiles(fset, files, modulePath+"/"+dir)
		if err != nil {
			t.Fatal(err)
		}
		short := dir
		if i := strings.LastIndex(dir, "/"); i >= 0 {
			short = dir[i+1:]
		}
		check := func(name string, typ ast.Expr) {
			key := short + "." + name
			if dir == "." {
				key = "mwallet." + name
			}
			fields[strings.TrimPrefix(key, "mwallet.")] = types.ExprString(typ)
			last, re := name[strings.LastIndex(name, ".")+1:], timeName
			if i := strings.Index(name, "("); i >= 0 {
				last, re = strings.TrimSuffix(name[i+1:], ")"), timeParam
			}
			if !re.MatchString(last) || !basic(typ) {
				return
			}
			if _, ok := timeTypesKept[key]; !ok {
				offenders = append(offenders, key+" "+types.ExprString(typ))
			}
		}
		params := func(fn string, ft *ast.FuncType) {
			for _, f := range ft.Params.List {
				for _, n := range f.Names {
					check(fn+"("+n.Name+")", f.Type)
				}
			}
		}
		for _, f := range pkg.Funcs {
			params(f.Name, f.Decl.Type)
		}
		for _, typ := range pkg.Types {
			for _, f := range typ.Funcs {
				params(f.Name, f.Decl.Type)
			}
			for _, m := range typ.Methods {
				params(typ.Name+"."+m.Name, m.Decl.Type)
			}
			for _, spec := range typ.Decl.Specs {
				st, ok := spec.(*ast.TypeSpec).Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, f := range st.Fields.List {
					for _, n := range f.Names {
						if n.IsExported() {
							check(typ.Name+"."+n.Name, f.Type)
						}
					}
				}
			}
		}
	}
	if len(offenders) > 0 {
		t.Errorf("durations and instants that are not time.Duration or time.Time (%d):\n%s", len(offenders), strings.Join(offenders, "\n"))
	}
	for _, f := range timeTypesFixed {
		key := f.name
		if f.pkg != "." {
			key = f.pkg + "." + f.name
		}
		if diff := cmp.Diff(f.typ, fields[key]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", key, diff)
		}
	}
	for key := range timeTypesKept {
		if _, ok := fields[key]; !ok {
			t.Errorf("timeTypesKept names %s, which is no longer in the API", key)
		}
	}
}
