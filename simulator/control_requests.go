package simulator

// RequestsControl reads and empties the request journal (sim.Requests): the
// business-API requests the simulator received, without secrets. Control
// API: GET and DELETE /_sim/requests.
type RequestsControl struct{ s *Simulator }

// List returns the request journal, oldest first: the newest 10 000
// business-API requests (control API calls are not recorded).
func (r *RequestsControl) List() []RequestRecord {
	return r.s.journalRequests()
}

// Reset empties the request journal.
func (r *RequestsControl) Reset() {
	call0(r.s, "Requests.Reset", r.s.resetRequests)
}
