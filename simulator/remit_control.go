package simulator

import "strings"

// dispatchRemittance sends an order upstream (status processing, payout_date
// set, rate dealt). Control action remittances/{id}/dispatch.
func (s *Simulator) dispatchRemittance(id string) error {
	_, err := s.runRemitAction(id, "dispatch", nil)
	return err
}

// completeRemittance completes a processing order at its customer_total
// (the slippage excess returns to where the funds came from); settledAmount,
// when non-empty, is the real cost instead (between the fee and
// locked_amount). Control action remittances/{id}/complete, body
// {"settled_amount": ...}.
func (s *Simulator) completeRemittance(id, settledAmount string) error {
	_, err := s.runRemitAction(id, "complete", &remitActionBody{SettledAmount: settledAmount})
	return err
}

// failRemittance fails an order that is not final; every held fund returns.
// failureCode defaults to payout_rejected. Control action
// remittances/{id}/fail, body {"failure_code": ...}.
func (s *Simulator) failRemittance(id, failureCode string) error {
	_, err := s.runRemitAction(id, "fail", &remitActionBody{FailureCode: failureCode})
	return err
}

// refundRemittance plays the receiving bank returning a completed order's
// funds. Control action remittances/{id}/refund.
func (s *Simulator) refundRemittance(id string) error {
	_, err := s.runRemitAction(id, "refund", nil)
	return err
}

// remittanceNeedsReconfirm plays the execution cost rising above the slippage
// ceiling (status needs_reconfirm, event remittance.order.action_required).
// Control action remittances/{id}/needs_reconfirm.
func (s *Simulator) remittanceNeedsReconfirm(id string) error {
	_, err := s.runRemitAction(id, "needs_reconfirm", nil)
	return err
}

// advanceRemittance moves an order one natural step (pending to
// platform_reviewing when prepaid covers it, reviewing to dispatching,
// dispatching to processing, processing to completed) and returns the new
// public status. Control action remittances/{id}/advance.
func (s *Simulator) advanceRemittance(id string) (string, error) {
	return s.runRemitAction(id, "advance", nil)
}

// topUpMerchantPrepaid credits the merchant prepaid account with amount of
// asset and advances the remittances waiting for merchant funds. Control
// action merchant/prepaid/topup, body {"asset", "amount"}.
func (s *Simulator) topUpMerchantPrepaid(asset, amount string) error {
	tx := s.k.Begin()
	defer tx.End()
	return s.topUpPrepaid(tx, asset, amount)
}

// setPOBOSubaccount sets whether the merchant has an active upstream
// subaccount, which the pobo line needs.
func (s *Simulator) setPOBOSubaccount(active bool) {
	tx := s.k.Begin()
	defer tx.End()
	s.remit.poboInactive = !active
}

// withdrawMerchantPrepaid takes amount of asset out of the merchant prepaid
// account ("" takes the whole available prepaid balance), for example to
// play a merchant whose prepaid cannot fund a remittance.
func (s *Simulator) withdrawMerchantPrepaid(asset, amount string) error {
	tx := s.k.Begin()
	defer tx.End()
	asset = strings.ToUpper(strings.TrimSpace(asset))
	if _, ok := s.cat.scale(asset); !ok {
		return errInvalidRequest("unknown asset " + asset)
	}
	amt := s.ledger.Balance(AccountMerchantPrepaid, asset)
	if amount != "" {
		v, err := s.cat.amount(asset, amount, decimalSigned)
		if err != nil || v.Sign() <= 0 {
			return errInvalidRequest("a positive amount at the asset's ledger scale is required")
		}
		amt = v
	}
	return s.ledger.Transfer(s.clock.Now(), "merchant prepaid withdrawal", asset, amt, AccountMerchantPrepaid, AccountWorld)
}
