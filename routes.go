package mwallet

import "strings"

// route is one endpoint of the service: method, path template and the SDK
// method that calls it (package.Method), for Observer's CallInfo.
type route struct {
	method, template, operation string
	// secret: the request or the answer carries a secret (an access token,
	// a card's session token, a one-time KYC link, a PIN or CVV), so the
	// answer's body is never copied out of the call (AnswerError.Body).
	secret bool
}

// routes lists every endpoint of the business API the SDK calls (method,
// template, operation, secret). A template segment in braces matches any
// one segment.
var routes = []route{
	{"POST", "/v1/connect/token", "connect.Token", true},
	{"GET", "/v1/assets", "mwallet.Assets", false},
	{"GET", "/v1/members/{id}", "members.Get", false},
	{"POST", "/v1/qrpay/decode", "qrpay.Decode", false},
	{"POST", "/v1/qrpay/quotes", "qrpay.Quote", false},
	{"POST", "/v1/qrpay/payments", "qrpay.Pay", false},
	{"GET", "/v1/qrpay/orders/{id}", "qrpay.Order", false},
	{"GET", "/v1/qrpay/schemes", "qrpay.Schemes", false},
	{"POST", "/v1/deposits", "deposits.Create", false},
	{"GET", "/v1/deposits", "deposits.List", false},
	{"GET", "/v1/deposits/{id}", "deposits.Get", false},
	{"GET", "/v1/cards/products", "cards.Products", false},
	{"GET", "/v1/cards/products/{id}/quote", "cards.Quote", false},
	{"POST", "/v1/cards/applications", "cards.Apply", false},
	{"GET", "/v1/cards/applications/{id}", "cards.GetApplication", false},
	{"GET", "/v1/cards", "cards.List", false},
	{"GET", "/v1/cards/{id}", "cards.Get", false},
	{"GET", "/v1/cards/{id}/close-check", "cards.CheckClose", false},
	{"GET", "/v1/cards/{id}/transactions", "cards.Transactions", false},
	{"POST", "/v1/cards/{id}/activate", "cards.Activate", true},
	{"POST", "/v1/cards/{id}/pin", "cards.SetPIN", true},
	{"POST", "/v1/cards/{id}/lost", "cards.ReportLost", false},
	{"POST", "/v1/cards/{id}/freeze", "cards.Freeze", false},
	{"POST", "/v1/cards/{id}/unfreeze", "cards.Unfreeze", false},
	{"POST", "/v1/cards/{id}/close", "cards.Close", false},
	{"POST", "/v1/cards/{id}/replacements", "cards.Replace", false},
	{"POST", "/v1/cards/{id}/secure-session", "cards.SecureSession", true},
	{"POST", "/v1/cards/{id}/topups", "cards.TopUp", false},
	{"GET", "/v1/cards/{id}/topups/estimate", "cards.EstimateTopUp", false},
	{"POST", "/v1/remittances", "remittance.Create", false},
	{"GET", "/v1/remittances", "remittance.List", false},
	{"GET", "/v1/remittances/{id}", "remittance.Get", false},
	{"GET", "/v1/remit/payees", "remittance.Payees", false},
	{"POST", "/v1/remit/payees", "remittance.CreatePayee", false},
	{"GET", "/v1/remit/quotes", "remittance.Quote", false},
	{"GET", "/v1/remit/products", "remittance.Products", false},
	{"GET", "/v1/remit/conversion-dates", "remittance.ConversionDates", false},
	{"POST", "/v1/remit/vp/applications/query", "remittance.QueryVPApplications", false},
	{"POST", "/v1/kyc/profile-sessions", "kyc.ProfileSession", true},
	{"GET", "/v1/kyc", "kyc.Get", false},
	{"GET", "/v1/kyc/quick", "kyc.QuickBindings", false},
	{"POST", "/v1/kyc/quick", "kyc.CreateQuickBinding", false},
	{"GET", "/v1/webhooks/deliveries", "webhooks.Deliveries", false},
	{"POST", "/v1/webhooks/deliveries/{id}/redeliver", "webhooks.Redeliver", false},
}

// routeOf returns the path template and operation of an escaped path: the
// listed route whose literal segments all match (a literal beats a
// template segment, so /v1/cards/products is not /v1/cards/{id}); for a
// path the SDK does not list, the path with every segment that looks like
// an identifier replaced by {id}, and no operation.
func routeOf(method, path string) (template, operation string) {
	if r := listedRoute(method, path); r != nil {
		return r.template, r.operation
	}
	return genericRoute(path), ""
}

// listedRoute returns the listed route of an escaped path (see routeOf),
// nil when the SDK does not list it.
func listedRoute(method, path string) *route {
	best, bestLiterals := -1, -1
	for i := range routes {
		r := &routes[i]
		if r.method != method {
			continue
		}
		if n, ok := matchRoute(r.template, path); ok && n > bestLiterals {
			best, bestLiterals = i, n
		}
	}
	if best < 0 {
		return nil
	}
	return &routes[best]
}

// matchRoute reports whether path matches template segment by segment and
// how many literal segments matched.
func matchRoute(template, path string) (literals int, ok bool) {
	for template != "" || path != "" {
		var ts, ps string
		var tmore, pmore bool
		ts, template, tmore = strings.Cut(template, "/")
		ps, path, pmore = strings.Cut(path, "/")
		if tmore != pmore {
			return 0, false
		}
		switch {
		case strings.HasPrefix(ts, "{"):
			if ps == "" {
				return 0, false
			}
		case ts == ps:
			literals++
		default:
			return 0, false
		}
	}
	return literals, true
}

// genericRoute replaces the segments of path that look like identifiers
// (holding a digit or one of _ % . : @) with {id}.
func genericRoute(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if strings.ContainsAny(s, "0123456789_%.:@") && !(i == 1 && s == "v1") {
			segs[i] = "{id}"
		}
	}
	return strings.Join(segs, "/")
}
