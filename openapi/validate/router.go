package validate

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
)

// router finds the operation of a request in one document. Of the path
// templates that match, the one with the most literal segments wins, as
// OpenAPI 3.1 matches concrete paths before templated ones
// (/v1/cards/applications/{id} before /v1/cards/{id}/close-check, and
// /v1/cards/applications before /v1/cards/{id}): the path is that
// template's, whatever the method.
type router struct {
	doc    *openapi3.T
	routes []route
}

type route struct {
	template string
	segs     []string // literal segments, or "" for a parameter
	params   []string // parameter name per segment ("" for a literal)
	literals int
	item     *openapi3.PathItem
}

func newRouter(doc *openapi3.T) *router {
	r := &router{doc: doc}
	for template, item := range doc.Paths.Map() {
		rt := route{template: template, item: item}
		for _, seg := range strings.Split(strings.TrimPrefix(template, "/"), "/") {
			if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
				rt.segs = append(rt.segs, "")
				rt.params = append(rt.params, seg[1:len(seg)-1])
				continue
			}
			rt.segs = append(rt.segs, seg)
			rt.params = append(rt.params, "")
			rt.literals++
		}
		r.routes = append(r.routes, rt)
	}
	// A stable order, most literal segments first.
	sort.Slice(r.routes, func(i, j int) bool {
		if r.routes[i].literals != r.routes[j].literals {
			return r.routes[i].literals > r.routes[j].literals
		}
		return r.routes[i].template < r.routes[j].template
	})
	return r
}

// match returns the route of method and the escaped path, with the
// unescaped path parameters; each segment is compared decoded. pathFound reports a path template that matched
// even when the method did not.
func (r *router) match(method, escapedPath string) (rt *routers.Route, params map[string]string, pathFound bool) {
	segs := strings.Split(strings.TrimPrefix(escapedPath, "/"), "/")
	for i := range r.routes {
		c := &r.routes[i]
		if len(c.segs) != len(segs) {
			continue
		}
		p, ok := map[string]string{}, true
		for k, lit := range c.segs {
			if c.params[k] == "" {
				// A literal segment is compared decoded: %5F is _ and %76
				// is v (RFC 3986, 6.2.2.2), as the simulator reads a path.
				if seg, err := url.PathUnescape(segs[k]); err != nil || seg != lit {
					ok = false
					break
				}
				continue
			}
			v, err := url.PathUnescape(segs[k])
			if err != nil || v == "" {
				ok = false
				break
			}
			p[c.params[k]] = v
		}
		if !ok {
			continue
		}
		op := c.item.GetOperation(method)
		if op == nil {
			return nil, nil, true
		}
		return &routers.Route{Spec: r.doc, Path: c.template, PathItem: c.item, Method: method, Operation: op}, p, true
	}
	return nil, nil, false
}

// methods lists the methods (upper case) the document gives the template
// that the escaped path matches, sorted, counting an operation only when
// the path's values meet its path parameters' schemas (a value outside an
// {action} enumeration is no documented path); nil when no template
// matches.
func (r *router) methods(escapedPath string) []string {
	var out []string
	for _, m := range []string{"DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE"} {
		rt, params, found := r.match(m, escapedPath)
		if !found {
			return nil
		}
		if rt != nil && pathParamsAccept(rt, params) == nil {
			out = append(out, m)
		}
	}
	return out
}

// pathParamsAccept checks the path parameters' values against their
// schemas.
func pathParamsAccept(rt *routers.Route, params map[string]string) error {
	var all openapi3.Parameters
	all = append(all, rt.PathItem.Parameters...)
	all = append(all, rt.Operation.Parameters...)
	for _, ref := range all {
		p := ref.Value
		if p == nil || p.In != openapi3.ParameterInPath || p.Schema == nil || p.Schema.Value == nil {
			continue
		}
		if err := p.Schema.Value.VisitJSON(params[p.Name], openapi3.EnableJSONSchema2020()); err != nil {
			return fmt.Errorf("path parameter %s=%q: %w", p.Name, params[p.Name], err)
		}
	}
	return nil
}
