package validate

import (
	"context"
	"fmt"
	"go/types"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"golang.org/x/tools/go/packages"
)

const sdk = "github.com/mwallet/mwallet-go"

// binding says which SDK type decodes the 2xx answers of one operation of
// mwallet.yaml. Types are named "pkg.Type"; a local variable of a function or
// method is "pkg.Type.Method.var" or "pkg.Func.var" (the SDK decodes some
// answers into function-local structs). With list set, the answer is the
// pagination envelope (the SDK's mwallet.Page) and typ is its item type.
type binding struct {
	op   string // "METHOD /path" of mwallet.yaml, or "webhook" or "error"
	typ  string
	list bool
	// extra lists fields the SDK type reads although this operation's
	// schema lacks them, with the reason in a comment.
	extra []string
}

var bindings = []binding{
	{op: "POST /v1/connect/token", typ: sdk + ".tokenResponse"},
	{op: "GET /v1/assets", typ: sdk + ".assetsAnswer.UnmarshalJSON.wire"},
	{op: "GET /v1/members/{id}", typ: sdk + "/members.Member"},
	{op: "POST /v1/qrpay/decode", typ: sdk + "/qrpay.wireDecoded"},
	{op: "POST /v1/qrpay/quotes", typ: sdk + "/qrpay.wireQuote"},
	{op: "POST /v1/qrpay/payments", typ: sdk + "/qrpay.wireOrder"},
	{op: "GET /v1/qrpay/orders/{id}", typ: sdk + "/qrpay.wireOrder"},
	{op: "GET /v1/qrpay/schemes", typ: sdk + "/qrpay.Scheme", list: true},
	{op: "POST /v1/deposits", typ: sdk + "/deposits.Deposit"},
	{op: "GET /v1/deposits", typ: sdk + "/deposits.Deposit", list: true},
	{op: "GET /v1/deposits/{id}", typ: sdk + "/deposits.Deposit"},
	{op: "GET /v1/cards/products", typ: sdk + "/cards.Product", list: true},
	{op: "GET /v1/cards/products/{id}/quote", typ: sdk + "/cards.invoiceWire"},
	// applicationWire also decodes GET /v1/cards/applications/{id}; the
	// answers of POST (201, and 200 for a known client_key) are the
	// resource's three fields, so these stay zero there (documented on
	// cards.Application).
	{op: "POST /v1/cards/applications", typ: sdk + "/cards.applicationWire",
		extra: []string{"product_id", "card_id", "client_key", "status_version", "created_at", "updated_at"}},
	{op: "GET /v1/cards/applications/{id}", typ: sdk + "/cards.applicationWire"},
	{op: "GET /v1/cards", typ: sdk + "/cards.cardWire", list: true},
	{op: "GET /v1/cards/{id}", typ: sdk + "/cards.cardWire"},
	{op: "GET /v1/cards/{id}/close-check", typ: sdk + "/cards.CloseCheck"},
	{op: "GET /v1/cards/{id}/transactions", typ: sdk + "/cards.transactionWire", list: true},
	{op: "POST /v1/cards/{id}/activate", typ: sdk + "/cards.StatusResult"},
	{op: "POST /v1/cards/{id}/pin", typ: sdk + "/cards.PINResult"},
	{op: "POST /v1/cards/{id}/lost", typ: sdk + "/cards.LostResult"},
	{op: "POST /v1/cards/{id}/freeze", typ: sdk + "/cards.StatusResult"},
	{op: "POST /v1/cards/{id}/unfreeze", typ: sdk + "/cards.StatusResult"},
	{op: "POST /v1/cards/{id}/close", typ: sdk + "/cards.StatusResult"},
	{op: "POST /v1/cards/{id}/replacements", typ: sdk + "/cards.Replacement"},
	{op: "POST /v1/cards/{id}/secure-session", typ: sdk + "/cards.SecureSession"},
	{op: "POST /v1/cards/{id}/topups", typ: sdk + "/cards.TopUp"},
	{op: "GET /v1/cards/{id}/topups/estimate", typ: sdk + "/cards.Estimate.UnmarshalJSON.w"},
	{op: "POST /v1/remittances", typ: sdk + "/remittance.CreateResult"},
	{op: "GET /v1/remittances", typ: sdk + "/remittance.Order", list: true},
	{op: "GET /v1/remittances/{id}", typ: sdk + "/remittance.Order"},
	{op: "GET /v1/remit/payees", typ: sdk + "/remittance.Payee", list: true},
	{op: "POST /v1/remit/payees", typ: sdk + "/remittance.Payee"},
	{op: "GET /v1/remit/quotes", typ: sdk + "/remittance.RemitQuote"},
	{op: "GET /v1/remit/products", typ: sdk + "/remittance.Product", list: true},
	{op: "GET /v1/remit/conversion-dates", typ: sdk + "/remittance.ConversionDate", list: true},
	{op: "POST /v1/remit/vp/applications/query", typ: sdk + "/remittance.VPQueryResult"},
	{op: "POST /v1/kyc/profile-sessions", typ: sdk + "/kyc.Ticket"},
	{op: "GET /v1/kyc", typ: sdk + "/kyc.State"},
	{op: "GET /v1/kyc/quick", typ: sdk + "/kyc.QuickBinding", list: true},
	{op: "POST /v1/kyc/quick", typ: sdk + "/kyc.QuickBinding"},
	{op: "GET /v1/webhooks/deliveries", typ: sdk + "/webhooks.Delivery", list: true},
	{op: "POST /v1/webhooks/deliveries/{id}/redeliver", typ: sdk + "/webhooks.RedeliverResult"},
	// Every webhook body; the schema is WebhookEvent.
	{op: "webhook", typ: sdk + "/webhooks.Event"},
	// Every error answer; the schema is ErrorEnvelope.
	{op: "error", typ: sdk + ".wireError"},
}

// wireOf names the wire type of SDK types that decode themselves with
// UnmarshalJSON: such a type, as a binding or as a field, is compared
// through its wire type ("T.UnmarshalJSON.v" is the local variable the
// method decodes into, often of a local `type plain T`). A struct type that
// decodes itself and is neither here nor in leaves fails the test: it would
// otherwise hide its fields from the comparison.
var wireOf = map[string]string{
	sdk + "/cards.Card":               sdk + "/cards.cardWire",
	sdk + "/cards.Invoice":            sdk + "/cards.invoiceWire",
	sdk + "/cards.Application":        sdk + "/cards.applicationWire",
	sdk + "/cards.Transaction":        sdk + "/cards.transactionWire",
	sdk + "/cards.Estimate":           sdk + "/cards.Estimate.UnmarshalJSON.w",
	sdk + "/cards.SecureSession":      sdk + "/cards.SecureSession.UnmarshalJSON.w",
	sdk + "/qrpay.Decoded":            sdk + "/qrpay.wireDecoded",
	sdk + "/qrpay.Quote":              sdk + "/qrpay.wireQuote",
	sdk + "/qrpay.Order":              sdk + "/qrpay.wireOrder",
	sdk + "/deposits.Deposit":         sdk + "/deposits.Deposit.UnmarshalJSON.v",
	sdk + "/remittance.Order":         sdk + "/remittance.Order.UnmarshalJSON.v",
	sdk + "/remittance.RemitQuote":    sdk + "/remittance.RemitQuote.UnmarshalJSON.v",
	sdk + "/remittance.VPApplication": sdk + "/remittance.VPApplication.UnmarshalJSON.w",
	sdk + "/kyc.Ticket":               sdk + "/kyc.Ticket.UnmarshalJSON.w",
	sdk + "/webhooks.Data":            sdk + "/webhooks.Data.UnmarshalJSON.p",
}

// leaves are the struct types with UnmarshalJSON that decode one JSON
// value (a string or a number), not an object.
var leaves = map[string]bool{
	sdk + "/money.Amount": true,
	"time.Time":           true,
}

var (
	loadOnce sync.Once
	loaded   map[string]*packages.Package
	loadErr  error
)

func sdkPackages(t *testing.T) map[string]*packages.Package {
	t.Helper()
	loadOnce.Do(func() {
		cfg := &packages.Config{Mode: packages.NeedName | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedImports | packages.NeedDeps}
		pkgs, err := packages.Load(cfg, sdk, sdk+"/members", sdk+"/qrpay", sdk+"/cards", sdk+"/remittance",
			sdk+"/deposits", sdk+"/kyc", sdk+"/webhooks", sdk+"/simulator")
		if err != nil {
			loadErr = err
			return
		}
		loaded = map[string]*packages.Package{}
		packages.Visit(pkgs, nil, func(p *packages.Package) {
			loaded[p.PkgPath] = p
			for _, e := range p.Errors {
				if loadErr == nil {
					loadErr = fmt.Errorf("%s: %v", p.PkgPath, e)
				}
			}
		})
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return loaded
}

// lookup resolves a binding's type name.
func lookup(pkgs map[string]*packages.Package, name string) (types.Type, error) {
	slash := strings.LastIndex(name, "/")
	dot := strings.Index(name[slash+1:], ".")
	if dot < 0 {
		return nil, fmt.Errorf("%s: no type name", name)
	}
	pkgPath, rest := name[:slash+1+dot], strings.Split(name[slash+1+dot+1:], ".")
	p := pkgs[pkgPath]
	if p == nil || p.Types == nil {
		return nil, fmt.Errorf("%s: package %s not loaded", name, pkgPath)
	}
	obj := p.Types.Scope().Lookup(rest[0])
	if obj == nil {
		return nil, fmt.Errorf("%s: %s not found in %s", name, rest[0], pkgPath)
	}
	switch len(rest) {
	case 1:
		return obj.Type(), nil
	case 2: // Func.var
		fn, ok := obj.(*types.Func)
		if !ok {
			return nil, fmt.Errorf("%s: %s is not a function", name, rest[0])
		}
		return localVar(fn, rest[1])
	case 3: // Type.Method.var
		m, _, _ := types.LookupFieldOrMethod(types.NewPointer(obj.Type()), true, p.Types, rest[1])
		fn, ok := m.(*types.Func)
		if !ok {
			return nil, fmt.Errorf("%s: method %s not found", name, rest[1])
		}
		return localVar(fn, rest[2])
	}
	return nil, fmt.Errorf("%s: too many parts", name)
}

func localVar(fn *types.Func, name string) (types.Type, error) {
	var find func(s *types.Scope) types.Object
	find = func(s *types.Scope) types.Object {
		if o := s.Lookup(name); o != nil {
			return o
		}
		for i := 0; i < s.NumChildren(); i++ {
			if o := find(s.Child(i)); o != nil {
				return o
			}
		}
		return nil
	}
	if fn.Scope() == nil {
		return nil, fmt.Errorf("%s has no body", fn.FullName())
	}
	if o := find(fn.Scope()); o != nil {
		return o.Type(), nil
	}
	return nil, fmt.Errorf("no local %s in %s", name, fn.FullName())
}

// jsonField is one field the SDK decodes.
type jsonField struct {
	name string
	typ  types.Type
}

// jsonFields lists the JSON fields encoding/json decodes into struct type t:
// tagged fields, exported untagged fields under their Go name, embedded
// structs flattened.
func jsonFields(t *types.Struct) []jsonField {
	var out []jsonField
	for i := 0; i < t.NumFields(); i++ {
		f := t.Field(i)
		tag := reflect.StructTag(t.Tag(i)).Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" && tag == "-" {
			continue
		}
		if f.Embedded() && name == "" {
			if st, ok := deref(f.Type()).Underlying().(*types.Struct); ok {
				out = append(out, jsonFields(st)...)
				continue
			}
		}
		if !f.Exported() {
			continue
		}
		if name == "" {
			name = f.Name()
		}
		out = append(out, jsonField{name: name, typ: f.Type()})
	}
	return out
}

func deref(t types.Type) types.Type {
	for {
		switch x := t.(type) {
		case *types.Pointer:
			t = x.Elem()
		case *types.Slice:
			t = x.Elem()
		default:
			return t
		}
	}
}

// objectShape is the properties and the required set of an object schema,
// through allOf (union), oneOf and anyOf (union of the object branches;
// required only when every branch requires it).
func objectShape(s *openapi3.Schema) (props map[string]*openapi3.SchemaRef, required map[string]bool) {
	props, required = map[string]*openapi3.SchemaRef{}, map[string]bool{}
	if s == nil {
		return
	}
	for k, v := range s.Properties {
		props[k] = v
	}
	for _, r := range s.Required {
		required[r] = true
	}
	for _, m := range s.AllOf {
		p, r := objectShape(m.Value)
		for k, v := range p {
			if props[k] == nil {
				props[k] = v
			}
		}
		for k := range r {
			required[k] = true
		}
	}
	var branches []map[string]bool
	for _, group := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf} {
		for _, m := range group {
			if m.Value == nil || isNull(m.Value) || len(m.Value.Properties) == 0 {
				continue
			}
			p, r := objectShape(m.Value)
			for k, v := range p {
				if props[k] == nil {
					props[k] = v
				}
			}
			branches = append(branches, r)
		}
	}
	if len(branches) > 0 {
		for k := range branches[0] {
			all := true
			for _, b := range branches[1:] {
				all = all && b[k]
			}
			if all {
				required[k] = true
			}
		}
	}
	return props, required
}

func isNull(s *openapi3.Schema) bool {
	return s.Type != nil && len(*s.Type) == 1 && s.Type.Is("null")
}

// objectOf returns the object schema a property describes: through items
// and the non-null branch of a nullable oneOf; nil when it is no object.
func objectOf(ref *openapi3.SchemaRef) *openapi3.Schema {
	if ref == nil || ref.Value == nil {
		return nil
	}
	s := ref.Value
	if s.Items != nil {
		return objectOf(s.Items)
	}
	if len(s.Properties) > 0 || len(s.AllOf) > 0 {
		return s
	}
	// A nullable object (oneOf [X, null]) is X; alternatives of several
	// objects are the schema itself (objectShape unites them).
	var objects []*openapi3.Schema
	for _, group := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf} {
		for _, m := range group {
			if m.Value != nil && !isNull(m.Value) {
				if o := objectOf(m); o != nil {
					objects = append(objects, o)
				}
			}
		}
	}
	switch len(objects) {
	case 0:
		return nil
	case 1:
		return objects[0]
	}
	return s
}

type comparer struct {
	pkgs     map[string]*packages.Package
	problems []string
}

func typeName(t types.Type) string {
	if n, ok := t.(*types.Named); ok && n.Obj().Pkg() != nil {
		return n.Obj().Pkg().Path() + "." + n.Obj().Name()
	}
	return t.String()
}

func hasUnmarshalJSON(t types.Type) bool {
	ms := types.NewMethodSet(types.NewPointer(t))
	for i := 0; i < ms.Len(); i++ {
		if ms.At(i).Obj().Name() == "UnmarshalJSON" {
			return true
		}
	}
	return false
}

// structOf returns the struct a field type decodes through (its wire type
// when it decodes itself), or nil for a leaf.
func (c *comparer) structOf(t types.Type) *types.Struct {
	t = deref(t)
	if wire, ok := wireOf[typeName(t)]; ok {
		wt, err := lookup(c.pkgs, wire)
		if err != nil {
			c.problems = append(c.problems, err.Error())
			return nil
		}
		t = wt
	} else if _, named := t.(*types.Named); named && hasUnmarshalJSON(t) {
		if _, isStruct := t.Underlying().(*types.Struct); isStruct && !leaves[typeName(t)] {
			c.problems = append(c.problems, fmt.Sprintf("%s decodes itself with UnmarshalJSON: name its wire type in wireOf (or add it to leaves if it decodes a single value)", typeName(t)))
		}
		return nil
	}
	st, _ := t.Underlying().(*types.Struct)
	return st
}

// compare checks the struct against the object schema, recursively.
func (c *comparer) compare(where string, st *types.Struct, s *openapi3.Schema, extra map[string]bool) {
	props, required := objectShape(s)
	fields := jsonFields(st)
	have := map[string]bool{}
	for _, f := range fields {
		have[f.name] = true
		p, ok := props[f.name]
		if !ok {
			if !extra[f.name] {
				c.problems = append(c.problems, fmt.Sprintf("%s: the SDK reads %q, which the schema lacks", where, f.name))
			}
			continue
		}
		if sub := c.structOf(f.typ); sub != nil {
			if o := objectOf(p); o != nil {
				c.compare(where+"."+f.name, sub, o, nil)
			} else {
				c.problems = append(c.problems, fmt.Sprintf("%s.%s: the SDK decodes an object, the schema describes none", where, f.name))
			}
		}
	}
	var req []string
	for k := range required {
		req = append(req, k)
	}
	sort.Strings(req)
	for _, k := range req {
		if !have[k] {
			c.problems = append(c.problems, fmt.Sprintf("%s: the schema requires %q, which the SDK does not read", where, k))
		}
	}
}

// TestSDKResultFieldsMatchSchemas checks, for every 2xx answer of every
// business operation, every webhook body and the error envelope, that the
// JSON fields the SDK decodes are properties of the schema (nothing the
// schema lacks) and that every property the schema requires is decoded
// (nothing it requires missing), recursively through nested objects.
func TestSDKResultFieldsMatchSchemas(t *testing.T) {
	docs, err := Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	doc := docs.Business
	pkgs := sdkPackages(t)

	page, err := lookup(pkgs, sdk+".Page")
	if err != nil {
		t.Fatal(err)
	}
	pageFields := map[string]bool{}
	for _, f := range jsonFields(page.Underlying().(*types.Struct)) {
		pageFields[f.name] = true
	}

	covered := map[string]bool{}
	for _, b := range bindings {
		t.Run(b.op, func(t *testing.T) {
			var schemas []*openapi3.Schema
			switch b.op {
			case "webhook":
				schemas = append(schemas, doc.Components.Schemas["WebhookEvent"].Value)
			case "error":
				schemas = append(schemas, doc.Components.Schemas["ErrorEnvelope"].Value)
			default:
				method, path, _ := strings.Cut(b.op, " ")
				item := doc.Paths.Value(path)
				if item == nil || item.GetOperation(method) == nil {
					t.Fatalf("%s is not an operation of mwallet.yaml", b.op)
				}
				covered[b.op] = true
				for code, r := range item.GetOperation(method).Responses.Map() {
					if !strings.HasPrefix(code, "2") || r.Value == nil {
						continue
					}
					if mt := r.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil {
						schemas = append(schemas, mt.Schema.Value)
					}
				}
			}
			if len(schemas) == 0 {
				t.Fatal("no 2xx JSON schema")
			}
			typ, err := lookup(pkgs, b.typ)
			if err != nil {
				t.Fatal(err)
			}
			c := &comparer{pkgs: pkgs}
			st := c.structOf(typ)
			if st == nil {
				t.Fatalf("%s is not a struct", b.typ)
			}
			extra := map[string]bool{}
			for _, e := range b.extra {
				extra[e] = true
			}
			// One SDK type decodes every 2xx answer of the operation: its
			// fields are checked against the union of their properties,
			// and each answer's required properties must be decoded.
			union := &openapi3.Schema{}
			for _, s := range schemas {
				if b.list {
					props, _ := objectShape(s)
					for k := range props {
						if !pageFields[k] {
							t.Errorf("the list envelope has %q, which the SDK's mwallet.Page does not read", k)
						}
					}
					for k := range pageFields {
						if props[k] == nil {
							t.Errorf("the SDK's mwallet.Page reads %q, which the list envelope lacks", k)
						}
					}
					s = objectOf(props["data"])
					if s == nil {
						t.Fatal("the list envelope's data is not an array of objects")
					}
				}
				union.AllOf = append(union.AllOf, openapi3.NewSchemaRef("", s))
			}
			c.compare(b.typ, st, union, extra)
			for _, p := range c.problems {
				t.Error(p)
			}
		})
	}
	// Every business operation answering JSON has a binding.
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			if op := method + " " + path; !covered[op] {
				t.Errorf("%s has no SDK binding in this test", op)
			}
		}
	}
}
