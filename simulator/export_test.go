package simulator

// Test hooks for the external test package (compiled only with the tests).

// Routes lists the business endpoints as "METHOD pattern", plus the token
// exchange, in registration order.
func Routes(s *Simulator) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []string{"POST /v1/connect/token"}
	for _, e := range s.endpoints {
		out = append(out, e.method+" "+e.pattern)
	}
	return out
}
