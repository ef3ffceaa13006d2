package remittance

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/money"
)

// Status is the status of a remittance order. It is an open enumeration:
// values this package does not know are kept verbatim (check Known) and never
// mapped to a default.
type Status string

// Known statuses. pending is also the public form of pending_merchant_funds;
// the member must not be told why an order is pending.
const (
	StatusPending           Status = "pending"
	StatusReviewing         Status = "reviewing"
	StatusPlatformReviewing Status = "platform_reviewing"
	StatusDispatching       Status = "dispatching"
	StatusProcessing        Status = "processing"
	StatusNeedsReconfirm    Status = "needs_reconfirm"
	StatusCompleted         Status = "completed"
	StatusFailed            Status = "failed"
	StatusRefunded          Status = "refunded"
)

// Known reports whether s is one of the statuses the specification names.
func (s Status) Known() bool {
	switch s {
	case StatusPending, StatusReviewing, StatusPlatformReviewing, StatusDispatching, StatusProcessing,
		StatusNeedsReconfirm, StatusCompleted, StatusFailed, StatusRefunded:
		return true
	}
	return false
}

// IsCompleted reports whether the payee has received the money. This is the
// only completion test: never infer completion from payout_date, which is a
// value date set at dispatch. A completed order can still become refunded when
// the receiving bank returns the funds.
func (s Status) IsCompleted() bool { return s == StatusCompleted }

// IsFinal reports whether the order's funds are no longer in flight:
// completed, failed or refunded. Only a bank return (completed to refunded)
// can follow. Unknown statuses are not final.
func (s Status) IsFinal() bool {
	return s == StatusCompleted || s == StatusFailed || s == StatusRefunded
}

// NeedsAction reports whether the member must confirm a new price or supply
// documents (event remittance.order.action_required).
func (s Status) NeedsAction() bool { return s == StatusNeedsReconfirm }

// Line is the remittance line. The service treats an unrecognised line as
// express; this package rejects it locally instead.
type Line string

// Lines.
const (
	// LineExpress is the default line; it needs KYC level 1 and queues an
	// order when a merchant_hosted prepaid account is short.
	LineExpress Line = "express"
	// LinePOBO (payment on behalf of) needs KYC level 2 and an active upstream
	// subaccount; it does not queue.
	LinePOBO Line = "pobo"
)

// Known reports whether l is express or pobo.
func (l Line) Known() bool { return l == LineExpress || l == LinePOBO }

// PurposeCode is the purpose of a remittance. The service fixes 23 codes and
// permits a subset per line (see Product.PurposeCodes). The specification
// shows three of them; the rest of the constants below are this package's
// list, which the bundled simulator accepts.
type PurposeCode string

// Purpose codes. FAMILY_SUPPORT, GOODS_PURCHASED and EDUCATION_TRAINING are
// named by the specification.
const (
	PurposeFamilySupport        PurposeCode = "FAMILY_SUPPORT"
	PurposeEducationTraining    PurposeCode = "EDUCATION_TRAINING"
	PurposeGoodsPurchased       PurposeCode = "GOODS_PURCHASED"
	PurposeServicesPurchased    PurposeCode = "SERVICES_PURCHASED"
	PurposeSalaryPayment        PurposeCode = "SALARY_PAYMENT"
	PurposePersonalSavings      PurposeCode = "PERSONAL_SAVINGS"
	PurposeGift                 PurposeCode = "GIFT"
	PurposeCharitableDonation   PurposeCode = "CHARITABLE_DONATION"
	PurposeMedicalTreatment     PurposeCode = "MEDICAL_TREATMENT"
	PurposeTravelExpenses       PurposeCode = "TRAVEL_EXPENSES"
	PurposeRentPayment          PurposeCode = "RENT_PAYMENT"
	PurposeUtilityBills         PurposeCode = "UTILITY_BILLS"
	PurposeLoanRepayment        PurposeCode = "LOAN_REPAYMENT"
	PurposeInvestment           PurposeCode = "INVESTMENT"
	PurposeRealEstatePurchase   PurposeCode = "REAL_ESTATE_PURCHASE"
	PurposeTaxPayment           PurposeCode = "TAX_PAYMENT"
	PurposeInsurancePremium     PurposeCode = "INSURANCE_PREMIUM"
	PurposeBusinessExpenses     PurposeCode = "BUSINESS_EXPENSES"
	PurposeProfessionalFees     PurposeCode = "PROFESSIONAL_FEES"
	PurposeRoyaltiesLicenseFees PurposeCode = "ROYALTIES_LICENSE_FEES"
	PurposeTransportFreight     PurposeCode = "TRANSPORT_FREIGHT"
	PurposeConstructionServices PurposeCode = "CONSTRUCTION_SERVICES"
	PurposePensionPayment       PurposeCode = "PENSION_PAYMENT"
)

var purposeCodes = []PurposeCode{
	PurposeFamilySupport, PurposeEducationTraining, PurposeGoodsPurchased, PurposeServicesPurchased,
	PurposeSalaryPayment, PurposePersonalSavings, PurposeGift, PurposeCharitableDonation,
	PurposeMedicalTreatment, PurposeTravelExpenses, PurposeRentPayment, PurposeUtilityBills,
	PurposeLoanRepayment, PurposeInvestment, PurposeRealEstatePurchase, PurposeTaxPayment,
	PurposeInsurancePremium, PurposeBusinessExpenses, PurposeProfessionalFees, PurposeRoyaltiesLicenseFees,
	PurposeTransportFreight, PurposeConstructionServices, PurposePensionPayment,
}

// PurposeCodes returns the 23 purpose codes of this package, in a fixed order.
func PurposeCodes() []PurposeCode { return append([]PurposeCode(nil), purposeCodes...) }

// Known reports whether p is one of the 23 codes of this package.
func (p PurposeCode) Known() bool {
	for _, c := range purposeCodes {
		if c == p {
			return true
		}
	}
	return false
}

// validShape reports whether p looks like a purpose code: upper-case letters,
// digits and underscores, starting with a letter, at most 64 characters.
func (p PurposeCode) validShape() bool {
	if len(p) == 0 || len(p) > 64 || p[0] < 'A' || p[0] > 'Z' {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// PayeeRef is the payee summary carried by an order.
type PayeeRef struct {
	// Summary is a display summary of the payee account (masked).
	Summary string `json:"summary"`
	// Holder is the account holder's name.
	Holder string `json:"holder"`
}

// Order is a remittance order (list item of GET /v1/remittances, answer of
// GET /v1/remittances/{id}).
type Order struct {
	// Meta holds Response, the HTTP exchange that returned the value (nil
	// for list items).
	mwallet.Meta
	// ID carries the rmt_ prefix.
	ID string `json:"id"`
	// Line is express or pobo (open enumeration).
	Line Line `json:"line"`
	// Status is the order status; pending also stands for pending_merchant_funds.
	Status Status `json:"status"`
	// StatusVersion increases with every status move; merge by it, forward only.
	StatusVersion int64 `json:"status_version"`
	// SourceAsset is the debit asset; LockedAmount, SettledAmount and Fee are
	// in it, at LedgerScale.
	SourceAsset  string       `json:"source_asset"`
	LedgerScale  int          `json:"ledger_scale"`
	LockedAmount money.Amount `json:"locked_amount"`
	// SettledAmount is zero until settlement, then the real cost.
	SettledAmount money.Amount `json:"settled_amount"`
	Fee           money.Amount `json:"fee"`
	// PayoutCurrency and PayoutAmount are what the payee receives, at the
	// currency's ISO 4217 precision (not the asset's ledger scale). Parse with
	// Payout.
	PayoutCurrency string `json:"payout_currency"`
	PayoutAmount   string `json:"payout_amount"`
	// Rate is the exact decimal rate (payout currency per unit of the source
	// asset). RateIsDealt false means indicative, true means dealt.
	Rate string `json:"rate"`
	// RateIsDealt: false while Rate is indicative, true once dealt (at dispatch).
	RateIsDealt bool `json:"rate_is_dealt"`
	// PurposeCode is the purpose sent at creation.
	PurposeCode PurposeCode `json:"purpose_code"`
	// Reference is the message to the recipient as stored (truncated at 200).
	Reference string `json:"reference"`
	// FailureCode is a stable public code, non-empty only on failure.
	FailureCode string `json:"failure_code"`
	// PayoutDate (YYYY-MM-DD) is the upstream value date, empty before
	// dispatch. It is not a promise of receipt and never means completion.
	PayoutDate string `json:"payout_date"`
	// Payee summarises the recipient.
	Payee PayeeRef `json:"payee"`
	// CreatedAt and UpdatedAt are the creation and last status move times.
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// IsCompleted reports whether the payee received the money (status
// completed). See Status.IsCompleted.
func (o *Order) IsCompleted() bool { return o.Status.IsCompleted() }

// IsFinal reports whether the order's funds are no longer in flight. See
// Status.IsFinal.
func (o *Order) IsFinal() bool { return o.Status.IsFinal() }

// Payout returns PayoutAmount parsed at the ISO 4217 precision of
// PayoutCurrency.
func (o *Order) Payout() (money.Amount, error) { return ParsePayout(o.PayoutCurrency, o.PayoutAmount) }

// ApplyEvent moves o forward with the status and status_version of a
// remittance event and reports whether it did. An event whose version is not
// newer than o's is dropped (events arrive at least once and out of order).
// Events carry no amounts: after a true return, re-read the order with Get
// for settled_amount, failure_code and payout_date.
func (o *Order) ApplyEvent(status Status, statusVersion int64) bool {
	if statusVersion <= o.StatusVersion {
		return false
	}
	o.Status = status
	o.StatusVersion = statusVersion
	return true
}

// UnmarshalJSON reads an order and carries its amounts at LedgerScale; an
// amount that does not fit the scale is an error, never rounded.
func (o *Order) UnmarshalJSON(b []byte) error {
	type plain Order
	var v plain
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*o = Order(v)
	return o.normalize()
}

// normalize checks the amounts against LedgerScale and carries them at it.
func (o *Order) normalize() error {
	for _, f := range []struct {
		name string
		a    *money.Amount
	}{{"locked_amount", &o.LockedAmount}, {"settled_amount", &o.SettledAmount}, {"fee", &o.Fee}} {
		v, err := f.a.Rescale(o.LedgerScale)
		if err != nil {
			return fmt.Errorf("remittance: order %s: %s %s does not fit ledger_scale %d: %w", o.ID, f.name, f.a, o.LedgerScale, err)
		}
		*f.a = v
	}
	return nil
}

// Merge returns the snapshot of an order to keep, current or update itself
// (never a copy): update when its status_version is newer than current's,
// otherwise current. It never moves backward, so results of Get, List and
// event-driven reads can be fed in any order. Snapshots of different orders
// are not merged: current wins. A nil snapshot is no snapshot: Merge(nil, u)
// is u and Merge(c, nil) is c.
//
// An order is handed around as *Order, as Get returns it; a list yields
// values, so pass an item as &o:
//
//	order, err := client.Remittances.Get(ctx, member, id)
//	...
//	order = remittance.Merge(order, latest)
func Merge(current, update *Order) *Order {
	switch {
	case update == nil:
		return current
	case current == nil || current.ID == "":
		return update
	case update.ID != "" && OrderID(current.ID) != OrderID(update.ID):
		return current
	case update.StatusVersion > current.StatusVersion:
		return update
	}
	return current
}

// OrderID returns the REST id (rmt_<uuid>) of an order id given with or
// without its prefix, such as the bare uuid in a remittance event's data.id;
// surrounding spaces are dropped and an empty id stays empty. It only
// converts: Get and the other methods that take an order id check it and
// refuse a malformed one with a *mwallet.ParamError before anything is
// sent. qrpay.OrderID and cards.CardID have the same shape.
func OrderID(id string) string {
	id = strings.TrimSpace(id)
	if id == "" || strings.HasPrefix(id, "rmt_") {
		return id
	}
	return "rmt_" + id
}

// Quote is the price snapshot returned by Create.
type Quote struct {
	// SourceAsset is the debit asset of the amounts below.
	SourceAsset string `json:"source_asset"`
	// CustomerTotal is the debit at the indicative rate, fee included.
	CustomerTotal money.Amount `json:"customer_total"`
	// Fee is the line fee, inside CustomerTotal.
	Fee money.Amount `json:"fee"`
	// LockedAmount is CustomerTotal × (1 + slippage_bps/10000), the amount held.
	LockedAmount money.Amount `json:"locked_amount"`
	// IndicativeRate and AppliedRate are exact decimal rates (payout currency
	// per unit of the source asset).
	IndicativeRate string `json:"indicative_rate"`
	AppliedRate    string `json:"applied_rate"`
}

// CreateResult is the answer of Create.
type CreateResult struct {
	// Meta holds Response, the HTTP exchange that returned the value.
	mwallet.Meta
	// ID carries the rmt_ prefix.
	ID string `json:"id"`
	// Status is the order's status; on a replay it is the order's current
	// status, not the status it had when first created.
	Status Status `json:"status"`
	// Quote is nil on a replay.
	Quote *Quote `json:"quote"`
	// Duplicated is true when the idempotency key had already created this
	// order (Response.Replayed is then true too).
	Duplicated bool `json:"duplicated"`
}
