package exchange

import (
	"net/http"
	"strings"

	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/gateway"
)

// notFoundAnswer is the not_found envelope of the router for r: message,
// or, without one, a message naming the methods the path serves with them
// in the Allow header.
func (rt *Router) notFoundAnswer(r *http.Request, message string) *api.Error {
	ae := api.NotFound("path " + gateway.RawRequestPath(r))
	if message != "" {
		ae.Message = message
		return ae
	}
	if allow := rt.AllowedMethods(r); len(allow) > 0 {
		list := strings.Join(allow, ", ")
		ae.Message = r.Method + " " + gateway.RawRequestPath(r) + ": no such endpoint; the path serves " + list
		ae.Header = map[string]string{"Allow": list}
	}
	return ae
}

// ServeNotFound answers a business path no endpoint serves (the catch-all
// pattern's handler).
func (rt *Router) ServeNotFound(w http.ResponseWriter, r *http.Request) {
	rt.serveNotFound(w, r, "")
}

// serveNotFound answers a path no endpoint serves with message (or,
// without one, the methods the path serves), journaled as a business
// request; a control path is answered by Host.ControlNotFound.
func (rt *Router) serveNotFound(w http.ResponseWriter, r *http.Request, message string) {
	if gateway.PathOf(r).Control {
		rt.p.host.ControlNotFound(w, r, message)
		return
	}
	ae := rt.notFoundAnswer(r, message)
	x := rt.p.Begin(w, r)
	defer x.Tx.Release()
	if x.PreFault() {
		return
	}
	x.Delay()
	x.Finish(x.AfterFault(gateway.ErrorResponse(ae, x.ID)))
}

// ControlNotFoundAnswer is the control API's not_found for r: message, or
// the methods the path serves (with Allow), or "no control endpoint".
func (rt *Router) ControlNotFoundAnswer(r *http.Request, message string) *api.Error {
	ae := rt.notFoundAnswer(r, message)
	if message == "" && ae.Header == nil {
		ae.Message = "no control endpoint " + r.Method + " " + gateway.RawRequestPath(r)
	}
	return ae
}
