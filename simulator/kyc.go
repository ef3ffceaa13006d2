package simulator

// kycState is the state of this product line.
type kycState struct{}

func (s *Simulator) registerKYC() {}

// quickBindingActive reports whether bindingID is an active quick KYC binding
// of member m.
func (s *Simulator) quickBindingActive(m *member, bindingID string) bool { return false }
