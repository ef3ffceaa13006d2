package simulator

import "github.com/mwallet/mwallet-go/simulator/internal/kernel"

// nextSeq returns the next creation sequence number.
func (s *Simulator) nextSeq(tx *kernel.Tx) int64 {
	s.st.listSeq++
	return s.st.listSeq
}
