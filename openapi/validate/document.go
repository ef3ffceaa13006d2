// Package validate holds the repository's OpenAPI documents (openapi/*.yaml)
// to the simulator and to the SDK with an outside validator, kin-openapi's
// openapi3filter.
//
// It lives in its own module so that the core module keeps the dependencies
// of its design card; it imports the core module through a replace
// directive. Three tools use it:
//
//   - cmd/validate-exchanges validates the exchange log that the test suites
//     write with MWALLET_SIM_EXCHANGE_LOG set (every request and response the
//     simulator served, every webhook it sent);
//   - cmd/tour drives every business endpoint of a running mwallet-sim,
//     through a validating proxy such as Prism;
//   - the package tests check the SDK's wire types against the schemas.
//
// Requests are validated against the document as published. Responses and
// webhook bodies are validated in closed-world mode: the published document
// leaves response objects open and open enumerations as plain strings,
// because the service may add fields and values; the simulator must not, so
// for responses every object is closed (unevaluatedProperties: false) and
// every x-extensible-enum becomes an enum.
package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/mwallet/mwallet-go/openapi"
)

func init() {
	// The dashboard's files are text; validate them as strings.
	for _, ct := range []string{"text/html", "text/javascript", "text/css", "application/yaml"} {
		openapi3filter.RegisterBodyDecoder(ct, textDecoder)
	}
	// A recording (GET /_sim/recording) is JSON Lines: a string whose
	// every line is one JSON value.
	openapi3filter.RegisterBodyDecoder("application/x-ndjson", ndjsonDecoder)
}

func ndjsonDecoder(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
	b, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	for i, line := range bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n")) {
		if !json.Valid(line) {
			return nil, fmt.Errorf("JSON Lines: line %d is not one JSON value", i+1)
		}
	}
	return string(b), nil
}

func textDecoder(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
	b, err := io.ReadAll(body)
	return string(b), err
}

// Documents are the two OpenAPI documents, each loaded twice: as published
// (for requests) and in closed-world mode (for responses and webhooks).
type Documents struct {
	Business, BusinessClosed *openapi3.T
	Control, ControlClosed   *openapi3.T
}

// Load parses and validates the embedded documents (openapi.Business and
// openapi.Control).
func Load(ctx context.Context) (*Documents, error) {
	return LoadData(ctx, openapi.Business(), openapi.Control())
}

// LoadData parses and validates the given documents.
func LoadData(ctx context.Context, business, control []byte) (*Documents, error) {
	var d Documents
	var err error
	for _, x := range []struct {
		name   string
		data   []byte
		dst    **openapi3.T
		closed bool
	}{
		{"mwallet.yaml", business, &d.Business, false},
		{"mwallet.yaml", business, &d.BusinessClosed, true},
		{"mwallet-sim.yaml", control, &d.Control, false},
		{"mwallet-sim.yaml", control, &d.ControlClosed, true},
	} {
		if *x.dst, err = load(ctx, x.data, x.closed); err != nil {
			return nil, fmt.Errorf("%s: %w", x.name, err)
		}
	}
	return &d, nil
}

func load(ctx context.Context, data []byte, closed bool) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	loader.Context = ctx
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(ctx); err != nil {
		return nil, fmt.Errorf("invalid document: %w", err)
	}
	if closed {
		closeWorld(doc)
	}
	return doc, nil
}

// closeWorld turns the response and webhook schemas of doc into their
// closed-world form, in place. Request schemas are left as published:
// requests are checked against what the service documents to accept.
func closeWorld(doc *openapi3.T) {
	c := &closer{seen: map[*openapi3.Schema]bool{}}
	ops := func(item *openapi3.PathItem) []*openapi3.Operation {
		if item == nil {
			return nil
		}
		var out []*openapi3.Operation
		for _, op := range item.Operations() {
			out = append(out, op)
		}
		return out
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range ops(item) {
			for _, r := range op.Responses.Map() {
				if r.Value == nil {
					continue
				}
				for _, mt := range r.Value.Content {
					c.visit(mt.Schema, true)
				}
			}
		}
	}
	for _, item := range doc.Webhooks {
		for _, op := range ops(item) {
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				for _, mt := range op.RequestBody.Value.Content {
					c.visit(mt.Schema, true)
				}
			}
		}
	}
}

type closer struct {
	seen map[*openapi3.Schema]bool
}

var falseValue = false

// visit closes s and what it contains. closable is false for an allOf
// member (its properties are evaluated together with its siblings', so only
// the schema that holds the allOf may be closed); shared schemas are visited
// once, in the first position they are met.
func (c *closer) visit(ref *openapi3.SchemaRef, closable bool) {
	if ref == nil || ref.Value == nil {
		return
	}
	s := ref.Value
	if c.seen[s] {
		return
	}
	c.seen[s] = true
	if vals, ok := s.Extensions["x-extensible-enum"].([]any); ok && len(s.Enum) == 0 {
		s.Enum = append([]any(nil), vals...)
	}
	isObject := len(s.Properties) > 0 || len(s.AllOf) > 0 || (s.Type != nil && s.Type.Is("object"))
	if closable && isObject && s.AdditionalProperties.Has == nil && s.AdditionalProperties.Schema == nil &&
		s.UnevaluatedProperties.Has == nil && s.UnevaluatedProperties.Schema == nil {
		s.UnevaluatedProperties = openapi3.BoolSchema{Has: &falseValue}
	}
	for _, p := range s.Properties {
		c.visit(p, true)
	}
	c.visit(s.Items, true)
	c.visit(s.AdditionalProperties.Schema, true)
	for _, m := range s.AllOf {
		c.visit(m, false)
	}
	for _, m := range s.OneOf {
		c.visit(m, true)
	}
	for _, m := range s.AnyOf {
		c.visit(m, true)
	}
	// if/then/else narrow the object that holds them (a webhook event's
	// per-type rules): their known values close, their objects stay as
	// they are (closing one would refuse the fields its siblings describe).
	for _, m := range []*openapi3.SchemaRef{s.If, s.Then, s.Else} {
		closeEnums(m, c.seen)
	}
}

// closeEnums turns every x-extensible-enum under ref into an enum, and
// nothing else.
func closeEnums(ref *openapi3.SchemaRef, seen map[*openapi3.Schema]bool) {
	if ref == nil || ref.Value == nil || seen[ref.Value] {
		return
	}
	s := ref.Value
	seen[s] = true
	if vals, ok := s.Extensions["x-extensible-enum"].([]any); ok && len(s.Enum) == 0 {
		s.Enum = append([]any(nil), vals...)
	}
	for _, p := range s.Properties {
		closeEnums(p, seen)
	}
	for _, list := range [][]*openapi3.SchemaRef{s.AllOf, s.OneOf, s.AnyOf, {s.Items, s.If, s.Then, s.Else}} {
		for _, m := range list {
			closeEnums(m, seen)
		}
	}
}
