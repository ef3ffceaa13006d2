package mwallet

// RouteTable lists the endpoints of the SDK's route table (routes.go) as
// method, path template and operation, for the external tests that must
// cover every endpoint.
func RouteTable() [][3]string {
	out := make([][3]string, len(routes))
	for i, r := range routes {
		out[i] = [3]string{r.method, r.template, r.operation}
	}
	return out
}
