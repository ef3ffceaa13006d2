package gateway

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

// Path is a request's path as the gateway reads it, once, before anything
// else looks at it: the router, the control guard (which belongs to the
// control routes as the router matched them on this form), the journal, the
// faults, the endpoints. It is kept in the request's context (WithPath,
// PathOf); the request's URL carries Clean as its path.
type Path struct {
	// Sent is the path as the client sent it: the request target up to the
	// query (the escaped path for an absolute-form target). The signature
	// covers it, the journal and the router's messages show it.
	Sent string
	// Clean is the path decoded once, segment by segment (a %2F stays inside
	// its segment); Escaped is the same path escaped the one canonical way.
	Clean, Escaped string
	// Canonical: Sent starts with /, decodes, and has no empty, "." or ".."
	// segment once decoded (a trailing slash is a path of its own).
	Canonical bool
	// Control: the first non-empty decoded segment is _sim, the control
	// API's namespace.
	Control bool
}

// pathKey is the context key of a request's Path.
type pathKey struct{}

// ReadPath reads r's path.
func ReadPath(r *http.Request) Path {
	p := Path{Sent: RawRequestPath(r)}
	segs := strings.Split(p.Sent, "/")
	dec := make([]string, len(segs))
	esc := make([]string, len(segs))
	p.Canonical = strings.HasPrefix(p.Sent, "/")
	first := true
	for i, seg := range segs {
		d, err := url.PathUnescape(seg)
		if err != nil {
			p.Canonical = false
			d = seg
		}
		dec[i], esc[i] = d, url.PathEscape(d)
		if i == 0 {
			continue
		}
		if (d == "" && i < len(segs)-1) || d == "." || d == ".." {
			p.Canonical = false
		}
		if first && d != "" {
			p.Control, first = d == "_sim", false
		}
	}
	p.Clean, p.Escaped = strings.Join(dec, "/"), strings.Join(esc, "/")
	return p
}

// WithPath returns r carrying p as the path the gateway read for it.
func WithPath(r *http.Request, p Path) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), pathKey{}, p))
}

// PathOf is the path the gateway read for r (WithPath), or r's path read
// now when it carries none.
func PathOf(r *http.Request) Path {
	if p, ok := r.Context().Value(pathKey{}).(Path); ok {
		return p
	}
	return ReadPath(r)
}

// RawRequestPath is the path as the client sent it: the request target up
// to the query, or the escaped path for an absolute-form target.
func RawRequestPath(r *http.Request) string {
	p := r.RequestURI
	if !strings.HasPrefix(p, "/") {
		return r.URL.EscapedPath()
	}
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	return p
}

// IsControlPath reports a path of the control API's namespace (a request
// target as a string, the first non-empty segment decoded).
func IsControlPath(target string) bool {
	p, _, _ := strings.Cut(target, "?")
	return ReadPath(&http.Request{RequestURI: p, URL: &url.URL{Path: p}}).Control
}
