package webhooks

import (
	"net/url"
	"strings"
)

// RESTID turns data.id into the id the REST API uses for the object, adding
// the prefix the specification's retrieval table names:
//
//	member, kyc        mem_<id> (kyc events carry the member id)
//	remittance         rmt_<id>
//	qrpay_order        qrp_<id>
//	card_application   data.id as sent (already cap_)
//	card               crd_<id>
//	card_withdrawal    cwd_<id>
//	exchange_order     exc_<id>
//	earn_order         data.id as sent, fixed-term orders only
//
// An id that already carries its prefix is returned unchanged. ok is false
// when the object has no REST id; RetrievalNote says why:
// deposit (the numeric event id differs from the dep_<reference> REST id),
// withdrawal (no retrieval endpoint), card_topup (read the card balance
// instead), quick_kyc_binding (no single-item read; a compensated binding
// leaves GET /v1/kyc/quick), earn_order for flexible interest (data.id is
// then the member id), and unknown kinds.
func (d Data) RESTID() (string, bool) {
	id := strings.TrimSpace(d.ID)
	if id == "" {
		return "", false
	}
	switch d.Object {
	case ObjectMember, ObjectKYC:
		return withPrefix("mem_", id), true
	case ObjectRemittance:
		return withPrefix("rmt_", id), true
	case ObjectQRPayOrder:
		return withPrefix("qrp_", id), true
	case ObjectCardApplication:
		return withPrefix("cap_", id), true
	case ObjectCard:
		return withPrefix("crd_", id), true
	case ObjectCardWithdrawal:
		return withPrefix("cwd_", id), true
	case ObjectExchangeOrder:
		return withPrefix("exc_", id), true
	case ObjectEarnOrder:
		if d.StatusVersion == 0 {
			return "", false
		}
		return id, true
	}
	return "", false
}

// RetrievalPath returns the GET path that reads the object's current state
// after an event. Send the request with x-on-behalf-of set to
// ExternalMemberID; the event body itself carries no amounts or details.
//
//	member             /v1/members/mem_<id>
//	kyc                /v1/kyc (member-scoped: the member is the header)
//	remittance         /v1/remittances/rmt_<id>
//	qrpay_order        /v1/qrpay/orders/qrp_<id>
//	card_application   /v1/cards/applications/cap_<id>
//	card               /v1/cards/crd_<id>
//	exchange_order     /v1/exchange/orders (a list; find id exc_<id>)
//	earn_order         /v1/earn/orders (a list; fixed-term orders only)
//
// ok is false for deposit, withdrawal, card_topup, card_withdrawal,
// quick_kyc_binding, flexible-interest earn_order and unknown kinds;
// RetrievalNote explains what to do instead.
func (d Data) RetrievalPath() (string, bool) {
	id, hasID := d.RESTID()
	switch d.Object {
	case ObjectKYC:
		return "/v1/kyc", true
	case ObjectEarnOrder:
		if !hasID {
			return "", false
		}
		return "/v1/earn/orders", true
	case ObjectExchangeOrder:
		return "/v1/exchange/orders", true
	}
	if !hasID {
		return "", false
	}
	switch d.Object {
	case ObjectMember:
		return "/v1/members/" + url.PathEscape(id), true
	case ObjectRemittance:
		return "/v1/remittances/" + url.PathEscape(id), true
	case ObjectQRPayOrder:
		return "/v1/qrpay/orders/" + url.PathEscape(id), true
	case ObjectCardApplication:
		return "/v1/cards/applications/" + url.PathEscape(id), true
	case ObjectCard:
		return "/v1/cards/" + url.PathEscape(id), true
	}
	return "", false
}

// RetrievalNote explains, in one sentence, how to read the object an event
// is about; it is most useful when RetrievalPath reports false.
func (d Data) RetrievalNote() string {
	switch d.Object {
	case ObjectMember:
		return "read GET /v1/members/mem_<id>"
	case ObjectKYC:
		return "data.id is the member id, not an application id; re-read GET /v1/kyc for the member"
	case ObjectQuickKYCBinding:
		return "no single-item read; a compensated binding no longer appears in GET /v1/kyc/quick"
	case ObjectDeposit:
		return "no single-item endpoint; the numeric data.id differs from the dep_<reference> REST id, so match deposits by your reference"
	case ObjectWithdrawal:
		return "no retrieval endpoint; GET /v1/withdrawals/{id} answers not_found for a member-initiated withdrawal"
	case ObjectRemittance:
		return "read GET /v1/remittances/rmt_<id>"
	case ObjectQRPayOrder:
		return "read GET /v1/qrpay/orders/qrp_<id>"
	case ObjectCardApplication:
		return "read GET /v1/cards/applications/{data.id} (already cap_ prefixed)"
	case ObjectCard:
		return "read GET /v1/cards/crd_<id>"
	case ObjectCardTopup:
		return "no single-item read; read the card balance"
	case ObjectCardWithdrawal:
		return "no single-item read (REST id cwd_<id>); read the card balance"
	case ObjectEarnOrder:
		if d.StatusVersion == 0 {
			return "flexible interest: data.id is the member id; read the member's balances"
		}
		return "fixed-term order: list GET /v1/earn/orders"
	case ObjectExchangeOrder:
		return "list GET /v1/exchange/orders and find id exc_<id>"
	}
	return "unknown object kind; no retrieval documented"
}

func withPrefix(prefix, id string) string {
	if strings.HasPrefix(id, prefix) {
		return id
	}
	return prefix + id
}
