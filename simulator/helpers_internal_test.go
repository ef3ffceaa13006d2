package simulator

// mustNewHandler is NewHandler for the package's own tests, whose options are
// fixed: it panics when one is invalid.
func mustNewHandler(opts ...Option) *Simulator {
	s, err := NewHandler(opts...)
	if err != nil {
		panic(err)
	}
	return s
}
