package simulator

// kycState is the state of this product line.
type kycState struct{}

func (s *Simulator) registerKYC() {}
