package simulator

func (s *Simulator) registerControl() {}
