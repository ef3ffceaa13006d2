package mwallet

import (
	"encoding/json"
	"time"
)

// durationOf converts an optional count of units from the wire.
func durationOf(n *int, unit time.Duration) *time.Duration {
	if n == nil {
		return nil
	}
	d := time.Duration(*n) * unit
	return &d
}

// countOf converts an optional duration back to whole units, rounded up.
func countOf(d *time.Duration, unit time.Duration) *int {
	if d == nil {
		return nil
	}
	n := int((*d + unit - 1) / unit)
	return &n
}

// networkJSON is a Network with its durations in the units of the wire.
type networkJSON struct {
	*networkFields
	DepositETAMinutes    int  `json:"deposit_eta_minutes"`
	WithdrawCoolingHours *int `json:"withdraw_cooling_hours,omitempty"`
	WithdrawETAMinutes   *int `json:"withdraw_eta_minutes,omitempty"`
}

// networkFields has the fields of Network without its JSON methods.
type networkFields Network

// MarshalJSON writes the network as the service sends it: the durations as
// deposit_eta_minutes, withdraw_cooling_hours and withdraw_eta_minutes,
// rounded up to whole units.
func (n Network) MarshalJSON() ([]byte, error) {
	return json.Marshal(networkJSON{
		networkFields:        (*networkFields)(&n),
		DepositETAMinutes:    *countOf(&n.DepositETA, time.Minute),
		WithdrawCoolingHours: countOf(n.WithdrawCooling, time.Hour),
		WithdrawETAMinutes:   countOf(n.WithdrawETA, time.Minute),
	})
}

// UnmarshalJSON reads what MarshalJSON writes (the service's network
// object; its amounts at the scale they are written in).
func (n *Network) UnmarshalJSON(b []byte) error {
	w := networkJSON{networkFields: (*networkFields)(n)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	n.DepositETA = time.Duration(w.DepositETAMinutes) * time.Minute
	n.WithdrawCooling = durationOf(w.WithdrawCoolingHours, time.Hour)
	n.WithdrawETA = durationOf(w.WithdrawETAMinutes, time.Minute)
	return nil
}
