package simulator

import "github.com/mwallet/mwallet-go/simulator/internal/kernel"

// mustNewHandler is NewHandler for the package's own tests, whose options are
// fixed: it panics when one is invalid.
func mustNewHandler(opts ...Option) *Simulator {
	s, err := NewHandler(opts...)
	if err != nil {
		panic(err)
	}
	return s
}

// inTx runs fn in a transaction of s, as one step (an input of the test).
func inTx(s *Simulator, fn func(tx *kernel.Tx) error) error {
	tx := s.k.Begin()
	defer tx.End()
	return tx.Step("test", func() error { return fn(tx) })
}
