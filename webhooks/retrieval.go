package webhooks

import (
	"net/url"
	"strings"
)

// Retrieval is one row of the specification's data.object retrieval table,
// as the SDK reads it: how an event's data.id becomes the REST id of the
// object, and how the object is read after the event.
type Retrieval struct {
	// Object is data.object.
	Object ObjectKind
	// DataID is what data.id holds (the specification's words).
	DataID string
	// Prefix is added to data.id to make the REST id, unless data.id
	// already carries it ("cap_" for card_application, which is sent
	// prefixed). Empty when the object has no REST id or data.id is one
	// as sent.
	Prefix string
	// HasRESTID is false when data.id cannot be turned into the object's
	// REST id (a deposit's numeric id differs from dep_<reference>).
	HasRESTID bool
	// Path is the GET path that reads the object, with {id} for the REST
	// id; empty when there is none.
	Path string
	// List is true when Path is a list in which to find the object.
	List bool
	// Note says how to read the object, or what to do when it cannot be
	// read.
	Note string
}

// retrievals is the retrieval table: the specification's 12 rows, then
// quick_kyc_binding, which the kyc.quick.compensated event documents.
var retrievals = []Retrieval{
	{ObjectMember, "internal member id", "mem_", true, "/v1/members/{id}", false,
		"read GET /v1/members/mem_<id>"},
	{ObjectKYC, "internal member id (not an application id)", "mem_", true, "/v1/kyc", false,
		"data.id is the member id, not an application id; re-read GET /v1/kyc for the member (x-on-behalf-of)"},
	{ObjectDeposit, "numeric internal deposit id", "", false, "", false,
		"no single-item endpoint; the numeric data.id differs from the dep_<reference> REST id, so match deposits by your reference (deposits.Client.Get)"},
	{ObjectWithdrawal, "member-initiated withdrawal id", "", false, "", false,
		"no retrieval endpoint; GET /v1/withdrawals/{id} answers not_found for a member-initiated withdrawal: keep the event's status"},
	{ObjectRemittance, "bare uuid (REST adds rmt_)", "rmt_", true, "/v1/remittances/{id}", false,
		"read GET /v1/remittances/rmt_<id>"},
	{ObjectQRPayOrder, "order id (REST adds qrp_)", "qrp_", true, "/v1/qrpay/orders/{id}", false,
		"read GET /v1/qrpay/orders/qrp_<id>"},
	{ObjectCardApplication, "id already prefixed cap_", "cap_", true, "/v1/cards/applications/{id}", false,
		"read GET /v1/cards/applications/{data.id} (already cap_ prefixed)"},
	{ObjectCard, "card id", "crd_", true, "/v1/cards/{id}", false,
		"read GET /v1/cards/crd_<id>"},
	{ObjectCardTopup, "top-up order id (REST ctp_)", "ctp_", true, "", false,
		"no single-item read: match the top-up by its REST id ctp_<id> (cards.TopUp.ID) and read the card balance (cards.Client.Get)"},
	{ObjectCardWithdrawal, "bare uuid (REST cwd_)", "cwd_", true, "", false,
		"no single-item read (REST id cwd_<id>); read the card balance and the member's wallet"},
	{ObjectEarnOrder, "fixed-term order id, or internal member id for flexible interest", "", true, "/v1/earn/orders", true,
		"fixed-term order: list GET /v1/earn/orders; flexible interest (status_version 0): data.id is the member id, read the member's balances"},
	{ObjectExchangeOrder, "exchange order id", "exc_", true, "/v1/exchange/orders", true,
		"list GET /v1/exchange/orders and find id exc_<id>"},
	{ObjectQuickKYCBinding, "quick KYC binding id", "", false, "", false,
		"no single-item read; a compensated binding no longer appears in GET /v1/kyc/quick"},
}

// RetrievalTable returns the retrieval table: one row per documented
// data.object kind (the specification's 12, then quick_kyc_binding). RESTID,
// RetrievalPath and RetrievalNote read it.
func RetrievalTable() []Retrieval {
	return append([]Retrieval(nil), retrievals...)
}

func retrievalOf(k ObjectKind) (Retrieval, bool) {
	for _, r := range retrievals {
		if r.Object == k {
			return r, true
		}
	}
	return Retrieval{}, false
}

// flexibleInterest reports an earn_order event about flexible interest,
// whose status_version is the constant 0 and whose data.id is the member.
func (d Data) flexibleInterest() bool {
	return d.Object == ObjectEarnOrder && d.StatusVersion == 0
}

// RESTID turns data.id into the id the REST API uses for the object, adding
// the prefix of the retrieval table (RetrievalTable):
//
//	member, kyc        mem_<id> (kyc events carry the member id)
//	remittance         rmt_<id>
//	qrpay_order        qrp_<id>
//	card_application   data.id as sent (already cap_)
//	card               crd_<id>
//	card_topup         ctp_<id>, the id cards.Client.TopUp returned
//	card_withdrawal    cwd_<id>
//	exchange_order     exc_<id>
//	earn_order         data.id as sent, fixed-term orders only
//
// An id that already carries its prefix is returned unchanged. ok is false
// when the object has no REST id; RetrievalNote says what to do instead:
// deposit (the numeric event id differs from the dep_<reference> REST id),
// withdrawal (no retrieval endpoint), quick_kyc_binding (no single-item
// read), earn_order for flexible interest (data.id is then the member id),
// and unknown kinds.
func (d Data) RESTID() (string, bool) {
	id := strings.TrimSpace(d.ID)
	r, ok := retrievalOf(d.Object)
	if id == "" || !ok || !r.HasRESTID || d.flexibleInterest() {
		return "", false
	}
	if r.Prefix == "" || strings.HasPrefix(id, r.Prefix) {
		return id, true
	}
	return r.Prefix + id, true
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
// ok is false for deposit, withdrawal, card_topup and card_withdrawal (read
// the card balance), quick_kyc_binding, flexible-interest earn_order and
// unknown kinds; RetrievalNote explains what to do instead.
func (d Data) RetrievalPath() (string, bool) {
	r, ok := retrievalOf(d.Object)
	if !ok || r.Path == "" || d.flexibleInterest() {
		return "", false
	}
	if !strings.Contains(r.Path, "{id}") {
		return r.Path, true
	}
	id, ok := d.RESTID()
	if !ok {
		return "", false
	}
	return strings.Replace(r.Path, "{id}", url.PathEscape(id), 1), true
}

// RetrievalNote explains, in one sentence, how to read the object an event
// is about; it is most useful when RetrievalPath reports false.
func (d Data) RetrievalNote() string {
	r, ok := retrievalOf(d.Object)
	if !ok {
		return "unknown object kind; no retrieval documented"
	}
	if d.Object == ObjectEarnOrder {
		if d.flexibleInterest() {
			return "flexible interest: data.id is the member id; read the member's balances"
		}
		return "fixed-term order: list GET /v1/earn/orders"
	}
	return r.Note
}

func withPrefix(prefix, id string) string {
	if strings.HasPrefix(id, prefix) {
		return id
	}
	return prefix + id
}
