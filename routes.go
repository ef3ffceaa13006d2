package mwallet

import "strings"

// route is one endpoint of the service: method, path template and the SDK
// method that calls it (package.Method), for Observer's CallInfo.
type route struct {
	method, template, operation string
}

// routes lists every endpoint of the business API the SDK calls. A
// template segment in braces matches any one segment.
var routes = []route{
	{"POST", "/v1/connect/token", "connect.Token"},
	{"GET", "/v1/assets", "mwallet.Assets"},
	{"GET", "/v1/members/{id}", "members.Get"},
	{"POST", "/v1/qrpay/decode", "qrpay.Decode"},
	{"POST", "/v1/qrpay/quotes", "qrpay.Quote"},
	{"POST", "/v1/qrpay/payments", "qrpay.Pay"},
	{"GET", "/v1/qrpay/orders/{id}", "qrpay.Order"},
	{"GET", "/v1/qrpay/schemes", "qrpay.Schemes"},
	{"POST", "/v1/deposits", "deposits.Create"},
	{"GET", "/v1/deposits", "deposits.List"},
	{"GET", "/v1/deposits/{id}", "deposits.Get"},
	{"GET", "/v1/cards/products", "cards.Products"},
	{"GET", "/v1/cards/products/{id}/quote", "cards.Quote"},
	{"POST", "/v1/cards/applications", "cards.Apply"},
	{"GET", "/v1/cards/applications/{id}", "cards.GetApplication"},
	{"GET", "/v1/cards", "cards.List"},
	{"GET", "/v1/cards/{id}", "cards.Get"},
	{"GET", "/v1/cards/{id}/close-check", "cards.CheckClose"},
	{"GET", "/v1/cards/{id}/transactions", "cards.Transactions"},
	{"POST", "/v1/cards/{id}/activate", "cards.Activate"},
	{"POST", "/v1/cards/{id}/pin", "cards.SetPIN"},
	{"POST", "/v1/cards/{id}/lost", "cards.ReportLost"},
	{"POST", "/v1/cards/{id}/freeze", "cards.Freeze"},
	{"POST", "/v1/cards/{id}/unfreeze", "cards.Unfreeze"},
	{"POST", "/v1/cards/{id}/close", "cards.Close"},
	{"POST", "/v1/cards/{id}/replacements", "cards.Replace"},
	{"POST", "/v1/cards/{id}/secure-session", "cards.SecureSession"},
	{"POST", "/v1/cards/{id}/topups", "cards.TopUp"},
	{"GET", "/v1/cards/{id}/topups/estimate", "cards.EstimateTopUp"},
	{"POST", "/v1/remittances", "remittance.Create"},
	{"GET", "/v1/remittances", "remittance.List"},
	{"GET", "/v1/remittances/{id}", "remittance.Get"},
	{"GET", "/v1/remit/payees", "remittance.Payees"},
	{"POST", "/v1/remit/payees", "remittance.CreatePayee"},
	{"GET", "/v1/remit/quotes", "remittance.Quote"},
	{"GET", "/v1/remit/products", "remittance.Products"},
	{"GET", "/v1/remit/conversion-dates", "remittance.ConversionDates"},
	{"POST", "/v1/remit/vp/applications/query", "remittance.QueryVPApplications"},
	{"POST", "/v1/kyc/profile-sessions", "kyc.ProfileSession"},
	{"GET", "/v1/kyc", "kyc.Get"},
	{"GET", "/v1/kyc/quick", "kyc.QuickBindings"},
	{"POST", "/v1/kyc/quick", "kyc.CreateQuickBinding"},
	{"GET", "/v1/webhooks/deliveries", "webhooks.Deliveries"},
	{"POST", "/v1/webhooks/deliveries/{id}/redeliver", "webhooks.Redeliver"},
}

// routeOf returns the path template and operation of an escaped path: the
// listed route whose literal segments all match (a literal beats a
// template segment, so /v1/cards/products is not /v1/cards/{id}); for a
// path the SDK does not list, the path with every segment that looks like
// an identifier replaced by {id}, and no operation.
func routeOf(method, path string) (template, operation string) {
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
	if best >= 0 {
		return routes[best].template, routes[best].operation
	}
	return genericRoute(path), ""
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
