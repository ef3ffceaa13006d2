package simulator

// depositState is the state of this product line.
type depositState struct{}

func (s *Simulator) registerDeposits() {}
