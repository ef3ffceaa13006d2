package control

import (
	"sort"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/webhooks"
)

// Names are the domains of a set of names that need nothing of the
// declaring package: the contract's event types, event objects and error
// codes, HTTP methods, and the fixed sets of the control arguments.
func Names[X any]() map[string]*Domain[X] {
	return map[string]*Domain[X]{
		"form_factor":         OneOf[X]("form factor", "plastic", formFactors...),
		"member_status":       OneOf[X]("member status", "activ", memberStatusNames...),
		"merchant_status":     OneOf[X]("merchant status", "paused", "active", "closed", "frozen", "suspended"),
		"fault_method":        Folded(OneOf[X]("HTTP method", "PSOT", faultMethods...)),
		"http_method":         Folded(OneOf[X]("HTTP method", "PSOT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")),
		"write_method":        Folded(OneOf[X]("write method", "GET", writeMethods...)),
		"compensation_source": OneOf[X]("compensation source", "manual", "admin", "auto"),
		"tx_direction":        OneOf[X]("card transaction direction", "sideways", "credit", "debit", "none", "unknown"),
		"event_type":          Trimmed(OneOf[X]("event type", "card.status.update", eventTypeNames()...)),
		"event_object":        OneOf[X]("event data.object", "depost", eventObjects()...),
		"error_code":          OneOf[X]("public error code", "api_eror", errorCodeNames()...),
	}
}

// The fixed sets of the domains above.
var (
	formFactors       = []string{"physical", "virtual"}
	memberStatusNames = []string{"active", "banned", "blocklisted", "frozen", "suspended"}
	writeMethods      = []string{"DELETE", "PATCH", "POST", "PUT"}
	faultMethods      = []string{"*", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"}
)

// eventObjects are the data.object kinds an event may carry: the
// documented ones, and merchant_balance, which the simulator's
// merchant.balance.waterline events carry (the contract names none for it).
func eventObjects() []string {
	kinds := []webhooks.ObjectKind{webhooks.ObjectMember, webhooks.ObjectKYC, webhooks.ObjectQuickKYCBinding, webhooks.ObjectDeposit,
		webhooks.ObjectWithdrawal, webhooks.ObjectRemittance, webhooks.ObjectQRPayOrder, webhooks.ObjectCardApplication,
		webhooks.ObjectCard, webhooks.ObjectCardTopup, webhooks.ObjectCardWithdrawal, webhooks.ObjectEarnOrder, webhooks.ObjectExchangeOrder}
	out := []string{"merchant_balance"}
	for _, k := range kinds {
		out = append(out, string(k))
	}
	return out
}

// errorCodeNames are the public error codes of the contract.
func errorCodeNames() []string {
	var out []string
	for _, c := range mwallet.KnownCodes() {
		out = append(out, string(c))
	}
	return out
}

// eventTypeNames are the documented event types, sorted.
func eventTypeNames() []string {
	var out []string
	for _, t := range webhooks.EventTypes() {
		out = append(out, string(t))
	}
	sort.Strings(out)
	return out
}
