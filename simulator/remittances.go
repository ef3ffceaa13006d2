package simulator

// remitState is the state of this product line.
type remitState struct{}

func (s *Simulator) registerRemittances() {}
