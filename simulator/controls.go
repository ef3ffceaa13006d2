package simulator

// initControls wires the grouped control fields of s.
func (s *Simulator) initControls() {
	s.st.clock.owner = s.wiring.inputs
	s.Clock = s.st.clock
	s.Members = &MembersControl{s}
	s.Merchant = &MerchantControl{s}
	s.Keys = &KeysControl{s}
	s.StepUp = &StepUpControl{s}
	s.QRPay = &QRPayControl{s}
	s.Cards = &CardsControl{s}
	s.Remittances = &RemittancesControl{s}
	s.KYC = &KYCControl{s}
	s.Outcomes = &OutcomesControl{s}
	s.Webhooks = &WebhooksControl{s}
	s.Events = &EventsControl{s}
	s.Faults = &FaultsControl{s}
	s.Requests = &RequestsControl{s}
}
