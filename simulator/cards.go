package simulator

// cardState is the state of this product line.
type cardState struct{}

func (s *Simulator) registerCards() {}
