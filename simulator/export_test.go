package simulator

import "sort"

// DocumentedStatus exposes to the package's external tests the documented
// HTTP status of every public error code (the contract's 53).
func DocumentedStatus() map[string]int {
	out := make(map[string]int, len(statusByCode))
	for k, v := range statusByCode {
		out[k] = v
	}
	return out
}

// KeyedEndpoints lists the endpoints of s that take an idempotency key, as
// "METHOD pattern", sorted.
func KeyedEndpoints(s *Simulator) []string {
	var out []string
	for _, e := range s.endpoints {
		if e.idempotent {
			out = append(out, e.method+" "+e.pattern)
		}
	}
	sort.Strings(out)
	return out
}
