package webhooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
)

// EventType is the event_type of an event (open enumeration: an unknown type
// is kept verbatim and reported by Known).
type EventType string

// The 27 documented event types.
const (
	// EventMemberCreated: member record created (status_version constant 0).
	EventMemberCreated EventType = "member.created"
	// EventMemberSuspended: suspension state changed; suspension and
	// restoration share it (status_version constant 0).
	EventMemberSuspended EventType = "member.suspended"
	// EventKYCResultUpdated: verification result or supplementary documents
	// requested; approval and rejection both use it, so always re-read
	// (status_version constant 0; recurs for L1, L2 and resubmissions).
	EventKYCResultUpdated EventType = "kyc.result.updated"
	// EventKYCQuickCompensated: quick KYC binding compensated, no longer
	// active; carries compensation_source and possibly application_id.
	EventKYCQuickCompensated EventType = "kyc.quick.compensated"
	// EventDepositCredited: on-chain deposit credited to available balance
	// (status_version constant 0; one event per deposit).
	EventDepositCredited EventType = "deposit.credited"
	// EventWithdrawalOrderLocked: member on-chain withdrawal submitted, funds
	// removed from available.
	EventWithdrawalOrderLocked EventType = "withdrawal.order.locked"
	// EventWithdrawalOrderCompleted: withdrawal paid out.
	EventWithdrawalOrderCompleted EventType = "withdrawal.order.completed"
	// EventWithdrawalOrderFailed: withdrawal failed, funds returned.
	EventWithdrawalOrderFailed EventType = "withdrawal.order.failed"
	// EventRemittanceOrderCompleted: payee received.
	EventRemittanceOrderCompleted EventType = "remittance.order.completed"
	// EventRemittanceOrderFailed: failed, locked funds returned.
	EventRemittanceOrderFailed EventType = "remittance.order.failed"
	// EventRemittanceOrderRefunded: returned by the receiving bank after
	// completion.
	EventRemittanceOrderRefunded EventType = "remittance.order.refunded"
	// EventRemittanceOrderActionRequired: the member must confirm a new price
	// or supply documents.
	EventRemittanceOrderActionRequired EventType = "remittance.order.action_required"
	// EventQRPayOrderCompleted: upstream funds released to the acquiring
	// merchant.
	EventQRPayOrderCompleted EventType = "qrpay.order.completed"
	// EventQRPayOrderFailed: full debit returned.
	EventQRPayOrderFailed EventType = "qrpay.order.failed"
	// EventQRPayOrderRefunded: refunded to the member's available balance.
	EventQRPayOrderRefunded EventType = "qrpay.order.refunded"
	// EventCardApplicationApproved: card issued and usable.
	EventCardApplicationApproved EventType = "card.application.approved"
	// EventCardApplicationRejected: application execution failed.
	EventCardApplicationRejected EventType = "card.application.rejected"
	// EventCardApplicationSubmitted: review status synchronised for an
	// associated cardholder; may carry cardholder_review_status approved
	// (cardholder approved, card not necessarily issued).
	EventCardApplicationSubmitted EventType = "card.application.submitted"
	// EventCardApplicationAwaitingBind: physical card ready to bind.
	EventCardApplicationAwaitingBind EventType = "card.application.awaiting_bind"
	// EventCard3DSReceived: card 3DS or OTP code received.
	EventCard3DSReceived EventType = "card.3ds.received"
	// EventCardStatusUpdated: card status changed (freeze, unfreeze,
	// activate, close, manufacturing and shipping progress).
	EventCardStatusUpdated EventType = "card.status.updated"
	// EventCardTopupCredited: top-up funds actually reached the card; the
	// only confirmation of a top-up credit.
	EventCardTopupCredited EventType = "card.topup.credited"
	// EventCardWithdrawCompleted: card funds returned to the member wallet.
	EventCardWithdrawCompleted EventType = "card.withdraw.completed"
	// EventCardTransactionUpdated: card transaction received or updated.
	EventCardTransactionUpdated EventType = "card.transaction.updated"
	// EventMerchantBalanceWaterline: aggregate downstream funding-pool level
	// changed.
	EventMerchantBalanceWaterline EventType = "merchant.balance.waterline"
	// EventEarnOrderSettled: earn proceeds credited (flexible interest, with
	// status_version 0, or fixed-term maturity).
	EventEarnOrderSettled EventType = "earn.order.settled"
	// EventExchangeOrderExecuted: internal exchange executed (status_version
	// constant 0).
	EventExchangeOrderExecuted EventType = "exchange.order.executed"
)

var eventTypes = []EventType{
	EventMemberCreated, EventMemberSuspended, EventKYCResultUpdated, EventKYCQuickCompensated,
	EventDepositCredited, EventWithdrawalOrderLocked, EventWithdrawalOrderCompleted,
	EventWithdrawalOrderFailed, EventRemittanceOrderCompleted, EventRemittanceOrderFailed,
	EventRemittanceOrderRefunded, EventRemittanceOrderActionRequired, EventQRPayOrderCompleted,
	EventQRPayOrderFailed, EventQRPayOrderRefunded, EventCardApplicationApproved,
	EventCardApplicationRejected, EventCardApplicationSubmitted, EventCardApplicationAwaitingBind,
	EventCard3DSReceived, EventCardStatusUpdated, EventCardTopupCredited, EventCardWithdrawCompleted,
	EventCardTransactionUpdated, EventMerchantBalanceWaterline, EventEarnOrderSettled,
	EventExchangeOrderExecuted,
}

var knownEventTypes = func() map[EventType]bool {
	m := make(map[EventType]bool, len(eventTypes))
	for _, t := range eventTypes {
		m[t] = true
	}
	return m
}()

// EventTypes returns the 27 documented event types, in the specification's
// order.
func EventTypes() []EventType { return append([]EventType(nil), eventTypes...) }

// Known reports whether t is one of the 27 documented event types.
func (t EventType) Known() bool { return knownEventTypes[t] }

// Asynchronous reports whether the specification lists t among the events
// not initiated by an endpoint call (kyc.result.updated,
// kyc.quick.compensated, deposit.credited, withdrawal.order.*,
// card.3ds.received, card.transaction.updated, merchant.balance.waterline).
func (t EventType) Asynchronous() bool {
	switch t {
	case EventKYCResultUpdated, EventKYCQuickCompensated, EventDepositCredited,
		EventWithdrawalOrderLocked, EventWithdrawalOrderCompleted, EventWithdrawalOrderFailed,
		EventCard3DSReceived, EventCardTransactionUpdated, EventMerchantBalanceWaterline:
		return true
	}
	return false
}

// AlwaysConstantVersion reports whether every event of type t carries
// status_version 0 (member.created, member.suspended, kyc.result.updated,
// deposit.credited, exchange.order.executed). earn.order.settled is 0 only
// for flexible interest, so it is not listed: use Event.ConstantVersion,
// which looks at the event itself.
func (t EventType) AlwaysConstantVersion() bool {
	switch t {
	case EventMemberCreated, EventMemberSuspended, EventKYCResultUpdated,
		EventDepositCredited, EventExchangeOrderExecuted:
		return true
	}
	return false
}

// ObjectKind is data.object: the kind of object an event is about (open
// enumeration).
type ObjectKind string

// Documented data.object kinds.
const (
	// ObjectMember: data.id is the internal member id (REST mem_<id>).
	ObjectMember ObjectKind = "member"
	// ObjectKYC: data.id is the internal member id, not an application id.
	ObjectKYC ObjectKind = "kyc"
	// ObjectQuickKYCBinding: data.id is the quick KYC binding id.
	ObjectQuickKYCBinding ObjectKind = "quick_kyc_binding"
	// ObjectDeposit: data.id is the numeric internal deposit id, which
	// differs from the dep_<reference> REST id.
	ObjectDeposit ObjectKind = "deposit"
	// ObjectWithdrawal: data.id is the member-initiated withdrawal id.
	ObjectWithdrawal ObjectKind = "withdrawal"
	// ObjectRemittance: data.id is the bare uuid (REST rmt_<id>).
	ObjectRemittance ObjectKind = "remittance"
	// ObjectQRPayOrder: data.id is the order id (REST qrp_<id>).
	ObjectQRPayOrder ObjectKind = "qrpay_order"
	// ObjectCardApplication: data.id is already prefixed cap_.
	ObjectCardApplication ObjectKind = "card_application"
	// ObjectCard: data.id is the card id (REST crd_<id>).
	ObjectCard ObjectKind = "card"
	// ObjectCardTopup: data.id is the top-up order id (REST ctp_<id>, the id
	// cards.Client.TopUp returned), sent bare.
	ObjectCardTopup ObjectKind = "card_topup"
	// ObjectCardWithdrawal: data.id is a bare uuid (REST cwd_<id>).
	ObjectCardWithdrawal ObjectKind = "card_withdrawal"
	// ObjectEarnOrder: data.id is the fixed-term order id, or the internal
	// member id for flexible interest.
	ObjectEarnOrder ObjectKind = "earn_order"
	// ObjectExchangeOrder: data.id is the exchange order id (REST exc_<id>).
	ObjectExchangeOrder ObjectKind = "exchange_order"
)

// Known reports whether k is a documented data.object kind.
func (k ObjectKind) Known() bool {
	switch k {
	case ObjectMember, ObjectKYC, ObjectQuickKYCBinding, ObjectDeposit, ObjectWithdrawal,
		ObjectRemittance, ObjectQRPayOrder, ObjectCardApplication, ObjectCard, ObjectCardTopup,
		ObjectCardWithdrawal, ObjectEarnOrder, ObjectExchangeOrder:
		return true
	}
	return false
}

// Documented data.status values of the KYC events. Other events' status
// values are not documented and are kept verbatim.
const (
	// StatusKYCUpdated: kyc.result.updated after approval or rejection
	// (re-read the profile to learn which).
	StatusKYCUpdated = "updated"
	// StatusKYCSupplementRequired: kyc.result.updated asking for documents.
	StatusKYCSupplementRequired = "supplement_required"
	// StatusCompensated: kyc.quick.compensated.
	StatusCompensated = "compensated"
)

// CompensationSource is data.compensation_source of kyc.quick.compensated
// (open enumeration).
type CompensationSource string

// Known compensation sources.
const (
	// CompensationAdmin: an operator confirmed the compensation.
	CompensationAdmin CompensationSource = "admin"
	// CompensationAuto: compensated automatically after the first upstream
	// terminal failure.
	CompensationAuto CompensationSource = "auto"
)

// Known reports whether s is admin or auto.
func (s CompensationSource) Known() bool { return s == CompensationAdmin || s == CompensationAuto }

// Event is one webhook event. Bodies carry only identifiers and statuses:
// read the details from the REST API (see Data.RetrievalPath), with
// x-on-behalf-of set to Data.ExternalMemberID.
type Event struct {
	// EventID is the event's id (evt_ prefix); deduplicate on it. A
	// redelivery keeps it.
	EventID string `json:"event_id"`
	// EventType is the event type.
	EventType EventType `json:"event_type"`
	// CreatedAt is when the event was created (UTC).
	CreatedAt time.Time `json:"created_at"`
	// MerchantID is the merchant the event belongs to.
	MerchantID string `json:"merchant_id"`
	// Livemode is false for sandbox events.
	Livemode bool `json:"livemode"`
	// Data names the object the event is about.
	Data Data `json:"data"`
}

// Data is the data object of an event.
type Data struct {
	// Object is the kind of object (data.object).
	Object ObjectKind `json:"object"`
	// ID is data.id; it may be the bare id (see RESTID).
	ID string `json:"id"`
	// ExternalMemberID is the member the object belongs to; send it as
	// x-on-behalf-of when reading the object.
	ExternalMemberID string `json:"external_member_id"`
	// Status is the object's status after the event (values per event are
	// not all documented; kept verbatim).
	Status string `json:"status"`
	// StatusVersion orders the states of one object; merge forward by it.
	// It is the constant 0 for some events (see Event.ConstantVersion).
	StatusVersion int64 `json:"status_version"`
	// CompensationSource is set on kyc.quick.compensated (admin or auto).
	CompensationSource CompensationSource `json:"compensation_source,omitempty"`
	// ApplicationID (cap_ prefixed) is set on kyc.quick.compensated when the
	// binding was tied to a card application.
	ApplicationID string `json:"application_id,omitempty"`
	// CardholderReviewStatus may be set on card.application.submitted;
	// "approved" means the cardholder is approved, not that the card is
	// issued.
	CardholderReviewStatus string `json:"cardholder_review_status,omitempty"`
	// Raw is the data object exactly as received, for fields this version
	// of the SDK does not name.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the data object and keeps a copy of its raw bytes.
func (d *Data) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil
	}
	type plain Data
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*d = Data(p)
	d.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// MarshalJSON encodes the documented fields, followed by any other field
// present in Raw, so a decoded event re-encodes without losing extras.
func (d Data) MarshalJSON() ([]byte, error) {
	type plain Data
	b, err := json.Marshal(plain(d))
	if err != nil || len(d.Raw) == 0 {
		return b, err
	}
	var extra map[string]json.RawMessage
	if json.Unmarshal(d.Raw, &extra) != nil {
		return b, nil
	}
	for _, k := range []string{"object", "id", "external_member_id", "status", "status_version",
		"compensation_source", "application_id", "cardholder_review_status"} {
		delete(extra, k)
	}
	if len(extra) == 0 {
		return b, nil
	}
	e, err := json.Marshal(extra)
	if err != nil {
		return nil, err
	}
	out := append(b[:len(b)-1:len(b)-1], ',')
	return append(out, e[1:]...), nil
}

// Extra returns the raw JSON of a data field this SDK does not name, such
// as a field added after this version.
func (d Data) Extra(key string) (json.RawMessage, bool) {
	if len(d.Raw) == 0 {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(d.Raw, &m) != nil {
		return nil, false
	}
	v, ok := m[key]
	return v, ok
}

// ConstantVersion reports whether the event's status_version is the constant
// 0, in which case events are ordered by created_at and an equal version is
// never a reason to skip: always for member.created, member.suspended,
// kyc.result.updated, deposit.credited and exchange.order.executed;
// earn.order.settled only for flexible interest, recognised by
// status_version 0. An unknown event type with status_version 0 is treated
// the same way, which never drops an event wrongly.
func (e Event) ConstantVersion() bool {
	if e.EventType.AlwaysConstantVersion() {
		return true
	}
	if e.EventType.Known() && e.EventType != EventEarnOrderSettled {
		return false
	}
	return e.Data.StatusVersion == 0
}

// ErrMalformedEvent is wrapped by the errors of DecodeEvent when the body is
// not a well-formed event.
var ErrMalformedEvent = errors.New("webhooks: malformed event body")

// DecodeEvent decodes an event body WITHOUT verifying it. Use it only for
// bodies already verified (for example taken from your own queue after
// Verify); for bodies received over HTTP use Handler, or ConstructEvent
// outside an http.Handler.
func DecodeEvent(payload []byte) (Event, error) {
	var ev Event
	dec := json.NewDecoder(bytes.NewReader(payload))
	if err := dec.Decode(&ev); err != nil {
		return Event{}, fmt.Errorf("%w: %w", ErrMalformedEvent, err)
	}
	if dec.More() {
		return Event{}, fmt.Errorf("%w: trailing data after the JSON object", ErrMalformedEvent)
	}
	switch {
	case ev.EventID == "":
		return Event{}, fmt.Errorf("%w: event_id is empty", ErrMalformedEvent)
	case ev.EventType == "":
		return Event{}, fmt.Errorf("%w: event_type is empty", ErrMalformedEvent)
	case ev.Data.Raw == nil:
		return Event{}, fmt.Errorf("%w: data is missing", ErrMalformedEvent)
	}
	return ev, nil
}

// ConstructEvent verifies header (the z-signature value) over payload (the
// raw body as received) and decodes the event. Verification errors are
// *VerifyError (see Verify); decoding errors wrap ErrMalformedEvent.
func ConstructEvent(payload []byte, header string, secret mwallet.Secret, opts ...Option) (Event, error) {
	if err := Verify(payload, header, secret, opts...); err != nil {
		return Event{}, err
	}
	return DecodeEvent(payload)
}

// ErrBodyTooLarge is answered 413 by Handler when the body is larger than the limit (WithMaxBodyBytes).
var ErrBodyTooLarge = errors.New("webhooks: request body too large")

// readBody reads at most limit bytes; more gives ErrBodyTooLarge.
func readBody(r io.Reader, limit int64) ([]byte, error) {
	if r == nil {
		return nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("webhooks: reading body: %w", err)
	}
	if int64(len(b)) > limit {
		return nil, ErrBodyTooLarge
	}
	return b, nil
}
