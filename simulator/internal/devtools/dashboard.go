package devtools

import (
	"embed"
	"io/fs"
	"net/http"
)

// uiFiles is the dashboard: plain HTML, JavaScript and CSS with no build step
// and no outside resources. It polls GET /_sim/state every second and drives
// the control API.
//
//go:embed ui/index.html ui/app.js ui/style.css
var uiFiles embed.FS

// DashboardFiles are the files GET /_sim/ui/{file} serves besides the page
// itself (GET /_sim/ui/).
var DashboardFiles = []string{"app.js", "style.css"}

// Dashboard serves the dashboard's page and files under /_sim/ui/: never a
// redirect or a directory page, never cached, and a Content-Security-Policy
// that lets the page reach nothing but the simulator.
func Dashboard() (http.Handler, error) {
	sub, err := fs.Sub(uiFiles, "ui")
	if err != nil {
		return nil, err
	}
	files := http.StripPrefix("/_sim/ui/", http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; connect-src 'self'; img-src 'self' data:")
		files.ServeHTTP(w, r)
	}), nil
}
