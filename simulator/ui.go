package simulator

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

// uiFiles is the dashboard: plain HTML, JavaScript and CSS with no build step
// and no outside resources. It polls GET /_sim/state every second and drives
// the control API.
//
//go:embed ui/index.html ui/app.js ui/style.css
var uiFiles embed.FS

// registerUI serves the dashboard at /_sim/ui/.
func (ctl *controlAPI) registerUI() {
	s := ctl.sim
	sub, err := fs.Sub(uiFiles, "ui")
	if err != nil {
		// The embedded directory is part of the binary; Sub cannot fail on it.
		return
	}
	files := http.StripPrefix("/_sim/ui/", http.FileServerFS(sub))
	s.wiring.mux.Handle("GET /_sim/ui/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Only the dashboard's own files; anything else is the control
		// API's not_found envelope (never a redirect or a directory page).
		name := strings.TrimPrefix(r.URL.Path, "/_sim/ui/")
		if name != "" && name != "app.js" && name != "style.css" {
			s.wiring.gw.controlNotFound(w, r, "no dashboard file "+r.URL.Path)
			return
		}
		s.wiring.gw.controlRequestID(w)
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; connect-src 'self'; img-src 'self' data:")
		files.ServeHTTP(w, r)
	}))
	// The one redirect of the simulator: a browser opening /_sim/ui needs
	// the trailing slash for the page's relative links.
	s.wiring.mux.HandleFunc("GET /_sim/ui", func(w http.ResponseWriter, r *http.Request) {
		s.wiring.gw.controlRequestID(w)
		http.Redirect(w, r, "/_sim/ui/", http.StatusMovedPermanently)
	})
}
