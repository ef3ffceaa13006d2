package simulator

// qrState is the state of this product line.
type qrState struct{}

func (s *Simulator) registerQRPay() {}
