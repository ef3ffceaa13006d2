package simulator

// webhookState is the state of this product line.
type webhookState struct{}

func (s *Simulator) registerWebhooks() {}

// queueDeliveries creates the delivery rows of ev.
func (s *Simulator) queueDeliveries(ev *Event) {}
