package simulator

import "github.com/mwallet/mwallet-go/simulator/internal/devtools"

// dashboardFiles are the files GET /_sim/ui/{file} serves besides the page
// itself (GET /_sim/ui/): the dashboard of internal/devtools.
var dashboardFiles = devtools.DashboardFiles

// dashboardFile answers one of the dashboard's files ("" for the page), as
// GET /_sim/ui/{file...} does (coreOps): never a redirect or a directory
// page.
func (ctl *controlAPI) dashboardFile(name string) (any, error) {
	h, err := devtools.Dashboard()
	if err != nil {
		return nil, err
	}
	return rawAnswer(h.ServeHTTP), nil
}
