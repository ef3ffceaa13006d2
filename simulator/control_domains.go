package simulator

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	cardline "github.com/mwallet/mwallet-go/simulator/internal/cards"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/qrpay"
	hookline "github.com/mwallet/mwallet-go/simulator/internal/webhooks"
	"github.com/mwallet/mwallet-go/webhooks"
)

// The domains of the control arguments. Every field of a control op's
// input names one (dom:"name" in control_decl.go), and the runner checks
// every argument against its domain, in the transaction of the op and
// before its transition writes anything: a value outside its domain is
// refused with a *NameError naming the argument and the domain, 400
// invalid_request over HTTP, or 404 not_found for the id of an object that
// does not exist. TestControlArgumentDomains sends each declared argument
// the domain's values outside it (bad) and expects exactly that, with the
// state digest unchanged.

// domain is the set of values a control argument may take. One of choices,
// object and ok says what is in it.
type domain struct {
	// name is how refusals and the document name the domain ("form factor",
	// "ISO 4217 currency code").
	name string
	// want says what the domain holds, for refusals: "an integer from 0 to
	// 2". Empty for a fixed set (the choices are listed) and an object.
	want string
	// choices is a fixed set, sorted; norm, when set, is applied to a
	// value before it is looked up (trimmed, upper case).
	choices func(x *opRun) []string
	norm    func(string) string
	// object reports whether the id names an object of the kind: an unknown
	// one is not_found.
	object func(x *opRun, id string) bool
	// ok reports whether a value (string, int64, float64, bool, time.Time,
	// or map[string]any) is in the domain.
	ok func(x *opRun, v any) bool
	// legacy is the rule earlier builds applied to the argument (nil: the
	// same one), which the inputs of their recordings and data directories
	// replay under: anyValue where they checked nothing.
	legacy func(x *opRun, v any) bool
	// bad are values outside the domain, as JSON values (for
	// TestControlArgumentDomains); a domain whose every JSON value of the
	// field's type is in it (a boolean, a time) has none.
	bad []any
}

// domains is the registry of the domains control inputs name, by the key a
// dom tag says.
var domains = buildDomains()

// oneOf is a fixed set of names.
func oneOf(name string, bad any, choices ...string) *domain {
	set := slices.Clone(choices)
	sort.Strings(set)
	return &domain{name: name, choices: func(*opRun) []string { return set }, bad: []any{bad}}
}

// folded matches d's choices after trimming and upper-casing the value.
func folded(d *domain) *domain {
	d.norm = func(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }
	return d
}

// trimmed matches d's choices after trimming the value.
func trimmed(d *domain) *domain {
	d.norm = strings.TrimSpace
	return d
}

// objectOf is the id of an object of a kind, looked up in the state.
func objectOf(name string, has func(x *opRun, id string) bool) *domain {
	return &domain{name: name, object: has, bad: []any{"nonsense-0000", "crd_\x00", "x\ny"}}
}

// intRange is an integer in [lo, hi].
func intRange(name string, lo, hi int64) *domain {
	return &domain{name: name, want: fmt.Sprintf("an integer from %d to %d", lo, hi),
		ok:  func(_ *opRun, v any) bool { n, isInt := v.(int64); return isInt && n >= lo && n <= hi },
		bad: []any{lo - 1, hi + 1}}
}

// textOf is free text of at most max characters, without control
// characters, and not only space.
func textOf(name string, max int) *domain {
	return &domain{name: name, want: fmt.Sprintf("text of at most %d characters without control characters", max),
		ok:  func(_ *opRun, v any) bool { s, _ := v.(string); return cleanText(s, max) },
		bad: []any{"a\x00b", "a\nb", strings.Repeat("x", max+1)}}
}

// cleanText reports text of at most max characters (runes), valid UTF-8,
// without control characters, not only space.
func cleanText(s string, max int) bool {
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > max || strings.TrimSpace(s) == "" {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// formatOf is any other rule.
func formatOf(name, want string, ok func(x *opRun, v any) bool, bad ...any) *domain {
	return &domain{name: name, want: want, ok: ok, bad: bad}
}

func buildDomains() map[string]*domain {
	reg := map[string]*domain{}
	register := func(key string, d *domain) { reg[key] = d }
	anyValue := func(*opRun, any) bool { return true }
	// Fixed sets.
	register("form_factor", oneOf("form factor", "plastic", formFactors...))
	register("card_status", oneOf("card status", "frozen ", cardline.Statuses()...))
	register("member_status", oneOf("member status", "activ", memberStatusNames...))
	register("merchant_model", oneOf("merchant model", "self_hosted", string(MerchantHosted), string(PlatformHosted)))
	register("merchant_status", oneOf("merchant status", "paused", "active", "closed", "frozen", "suspended"))
	register("environment", oneOf("environment", "staging", environmentNames...))
	register("fault_kind", oneOf("fault kind", "drop", faultKindNames...))
	register("fault_method", folded(oneOf("HTTP method", "PSOT", faultMethods...)))
	register("http_method", folded(oneOf("HTTP method", "PSOT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")))
	register("write_method", folded(oneOf("write method", "GET", writeMethods...)))
	register("qr_scenario", oneOf("QR scenario", "timeout_", qrpay.Scenarios()...))
	register("compensation_source", oneOf("compensation source", "manual", "admin", "auto"))
	register("tx_direction", oneOf("card transaction direction", "sideways", "credit", "debit", "none", "unknown"))
	register("event_type", trimmed(oneOf("event type", "card.status.update", eventTypeNames...)))
	register("event_object", oneOf("event data.object", "depost", eventObjects()...))
	register("error_code", oneOf("public error code", "api_eror", errorCodeNames()...))
	register("outcome_collection", &domain{name: "outcome collection",
		choices: func(x *opRun) []string { return x.s.wiring.ctl.outcomeCollections() }, bad: []any{"remittance"}})
	register("action", &domain{name: "control action", choices: func(*opRun) []string { return actionKeys() }, bad: []any{"cards/explode"}})
	register("asset", folded(&domain{name: "asset", choices: func(x *opRun) []string { return x.s.st.cat.Codes() }, bad: []any{"USDX"}}))

	// The ids of objects.
	register("member", objectOf("member", func(x *opRun, id string) bool { return x.s.st.members.ByAny(x.tx, id) != nil }))
	register("member_ctx", objectOf("member", func(x *opRun, id string) bool {
		_, ae := x.s.wiring.gw.resolveMember(x.tx, id)
		return ae == nil
	}))
	register("secure_session", objectOf("secure session", func(x *opRun, id string) bool {
		_, _, err := x.s.st.cards.SecureSessionPage(x.tx, pathRequest(id), nil)
		return err == nil
	}))
	register("card", objectOf("card", func(x *opRun, id string) bool {
		return x.s.st.cards.HasCard(x.tx, cardline.WithIDPrefix("crd_", id))
	}))
	register("card_application", objectOf("card application", func(x *opRun, id string) bool {
		return x.s.st.cards.FindApplication(x.tx, id) == nil
	}))
	register("card_topup", objectOf("card top-up", func(x *opRun, id string) bool { return x.s.st.cards.FindTopUp(x.tx, id) == nil }))
	register("card_product", objectOf("card product", func(x *opRun, id string) bool { return x.s.st.cards.HasProduct(x.tx, id) }))
	register("qr_order", objectOf("QR payment order", func(x *opRun, id string) bool { return x.s.st.qr.Has(x.tx, qrpay.OrderID(id)) }))
	register("remittance", objectOf("remittance", func(x *opRun, id string) bool {
		return x.s.st.remit.HasOrder(x.tx, cardline.WithIDPrefix("rmt_", id))
	}))
	register("kyc_session", objectOf("KYC session", func(x *opRun, id string) bool { return x.s.st.kyc.HasSession(x.tx, id) }))
	register("quick_binding", objectOf("quick KYC binding", func(x *opRun, id string) bool { return x.s.st.kyc.HasBinding(x.tx, id) }))
	register("webhook_endpoint", objectOf("webhook endpoint", func(x *opRun, id string) bool {
		id = cardline.WithIDPrefix("whe_", id)
		return slices.ContainsFunc(x.s.st.webhooks.EndpointList(x.tx), func(e hookline.EndpointView) bool { return e.ID == id })
	}))
	register("webhook_delivery", objectOf("webhook delivery", func(x *opRun, id string) bool {
		id = cardline.WithIDPrefix("whd_", id)
		return slices.ContainsFunc(x.s.st.webhooks.Deliveries(x.tx), func(d hookline.DeliveryView) bool { return d.ID == id })
	}))
	register("challenge", objectOf("step-up challenge", func(x *opRun, id string) bool { _, ok := x.s.st.stepUp.Get(x.tx, id); return ok }))
	register("key", objectOf("key", func(x *opRun, id string) bool { return x.s.st.keys.Has(x.tx, id) }))
	register("dashboard_file", objectOf("dashboard file", func(_ *opRun, name string) bool { return slices.Contains(dashboardFiles, name) }))
	register("outcome_object", objectOf("object of an outcome collection", func(x *opRun, id string) bool {
		return x.s.wiring.ctl.outcomeObject(x.tx, id)
	}))

	// Codes and formats.
	register("currency", formatOf("ISO 4217 currency code", "an ISO 4217 alphabetic currency code such as THB",
		func(_ *opRun, v any) bool { return api.IsCurrency(strings.ToUpper(strings.TrimSpace(v.(string)))) }, "QQQ", "TH", "XXX"))
	register("country", formatOf("ISO 3166 country code", "an ISO 3166-1 alpha-2 country code such as SG",
		func(_ *opRun, v any) bool { return api.IsCountry(strings.ToUpper(strings.TrimSpace(v.(string)))) }, "XX", "ZZ", "SGP"))
	register("business_path", formatOf("business API path",
		"a path of the business API (/v1/...) a business endpoint serves or the contract names, or a prefix of one ending in *",
		func(x *opRun, v any) bool { return x.s.wiring.ctl.businessPath(v.(string)) }, "/v1/deposit", "/v2/assets", "v1/assets"))
	register("business_target", formatOf("business API request target",
		"a path of the business API (/v1/...) with its query as it will be sent, without control characters",
		func(x *opRun, v any) bool {
			s := v.(string)
			p, _, _ := strings.Cut(s, "?")
			return cleanText(s, 2048) && x.s.wiring.ctl.businessPath(p) && !strings.HasSuffix(p, "*")
		}, "/v1/deposit", "/v1/assets\n"))
	register("idempotency_key", formatOf("idempotency key", "a UUID-shaped key (8-4-4-4-12 hex digits)",
		func(_ *opRun, v any) bool { return api.UUIDShaped(v.(string)) }, "not-a-uuid"))
	register("decimal", formatOf("decimal amount", "a non-negative decimal string such as 12.5",
		func(_ *opRun, v any) bool { return isDecimal(v.(string), false) }, "-1", "1.2.3", "ten"))
	register("positive_decimal", formatOf("positive decimal", "a decimal string above 0 such as 0.0291",
		func(_ *opRun, v any) bool { return isDecimal(v.(string), true) }, "0", "-0.5", "abc"))
	register("minor_amount", formatOf("amount in minor units", "a non-negative integer string in the smallest unit",
		func(_ *opRun, v any) bool { return isMinorUnits(v.(string)) }, "-1", "12.50", "ten"))
	register("url", formatOf("webhook URL", "an absolute http or https URL without control characters",
		func(_ *opRun, v any) bool { return isHTTPURL(v.(string)) }, "ftp://example.com/hook", "/hook", "http://exa mple.com/\n"))
	register("go_duration", formatOf("duration", "a non-negative Go duration of at most ten years, such as 90s or 24h",
		func(_ *opRun, v any) bool {
			d, err := time.ParseDuration(v.(string))
			return err == nil && d >= 0 && d <= maxAdvance
		}, "-5s", "soon", "87700h"))
	register("outcome_mode", formatOf("outcome mode", "manual, immediate or after:<Go duration>, such as after:5m",
		func(_ *opRun, v any) bool { _, err := ParseOutcomeMode(v.(string)); return err == nil }, "later", "after:-1s"))
	register("event_extra", formatOf("event data fields", "an object of lower snake case names to strings, numbers or booleans",
		func(_ *opRun, v any) bool { return eventExtraOK(v) }, map[string]any{"Bad Key": "x"}, map[string]any{"a": map[string]any{"b": 1}}))

	// Texts.
	register("text", textOf("text", 256))
	register("name", textOf("name", 64))
	register("member_ref", formatOf("external member id",
		"text of at most 64 characters without control characters, not starting with mem_",
		func(_ *opRun, v any) bool {
			s := strings.TrimSpace(v.(string))
			return cleanText(s, 64) && !strings.HasPrefix(s, "mem_")
		}, "a\x00b", "a\nb", "mem_x", strings.Repeat("m", 65)))
	register("body_text", formatOf("request body text", "text of at most 524288 bytes",
		func(_ *opRun, v any) bool { return len(v.(string)) <= 512<<10 }, strings.Repeat("b", 512<<10+1)))
	register("qr_code", textOf("QR code value", 512))
	register("snake_code", formatOf("code", "a lower snake case code such as payout_rejected",
		func(_ *opRun, v any) bool { return snakeName(v.(string)) }, "Payout Rejected", "payout\nrejected"))
	register("seq", intRange("input sequence number", 0, math.MaxInt64-1))
	register("step", formatOf("recording step", "a non-negative integer", func(_ *opRun, v any) bool { return isMinorUnits(v.(string)) }, "-1", "x"))
	register("bin", formatOf("BIN", "6 to 8 digits", func(_ *opRun, v any) bool {
		b := v.(string)
		return len(b) >= 6 && len(b) <= 8 && isMinorUnits(b)
	}, "41111", "4111111111", "41111x"))

	// Numbers.
	register("seconds_advance", &domain{name: "seconds to advance", want: "a number from 0 to 315360000 (ten years)",
		ok: func(_ *opRun, v any) bool {
			f, _ := toFloat(v)
			return f >= 0 && f <= maxAdvance.Seconds()
		}, bad: []any{-5, 315360001}})
	register("seconds_in_progress", &domain{name: "seconds in progress", want: "a number above 0 and at most 86400",
		ok: func(_ *opRun, v any) bool {
			f, _ := toFloat(v)
			return f > 0 && f <= idempotencyWindow.Seconds()
		}, bad: []any{0, 86401}})
	register("kyc_level", intRange("KYC level", 0, 2))
	register("kyc_approval_level", intRange("KYC approval level", 1, 2))
	register("count", intRange("count", 0, math.MaxInt32))
	register("card_limit", intRange("card limit", 0, 1_000_000))
	register("quota", intRange("write quota per minute", 0, 1_000_000))
	register("fee_rate", intRange("fee rate in basis points", 0, 10000))
	register("status_version", intRange("status_version", 0, math.MaxInt64-1))
	register("fault_status", &domain{name: "HTTP error status", want: "0 (the code's own) or an integer from 400 to 599",
		ok: func(_ *opRun, v any) bool { n, _ := v.(int64); return n == 0 || (n >= 400 && n <= 599) }, bad: []any{200, 600}})
	register("delay_ms", intRange("delay in milliseconds", 0, maxFaultDelayMS))
	register("scale", intRange("card scale", 0, 18))

	// Values whose every JSON value of the field's type is in the domain.
	register("boolean", &domain{name: "boolean", want: "true or false", ok: anyValue})
	register("time", &domain{name: "time", want: "an RFC 3339 time", ok: anyValue})

	// What earlier builds checked of the arguments whose domain came later:
	// nothing (their lines refused what they refused), or a weaker rule.
	for _, key := range []string{"http_method", "event_object", "error_code", "currency", "country", "business_path",
		"business_target", "idempotency_key", "decimal", "positive_decimal", "minor_amount", "url", "event_extra", "text",
		"name", "member_ref", "body_text", "qr_code", "bin", "snake_code", "kyc_approval_level", "scale"} {
		reg[key].legacy = anyValue
	}
	nonNegative := func(_ *opRun, v any) bool { f, _ := toFloat(v); return f >= 0 }
	for _, key := range []string{"card_limit", "quota", "count", "status_version"} {
		reg[key].legacy = nonNegative
	}
	reg["seconds_in_progress"].legacy = func(_ *opRun, v any) bool { f, _ := toFloat(v); return f > 0 }
	reg["go_duration"].legacy = func(_ *opRun, v any) bool { d, err := time.ParseDuration(v.(string)); return err == nil && d >= 0 }
	return reg
}

// maxAdvance bounds one advance of the clock.
const maxAdvance = 10 * 365 * 24 * time.Hour

// toFloat reads a number.
func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// isDecimal reports a decimal string (digits, at most one point), above 0
// when positive.
func isDecimal(s string, positive bool) bool {
	s = strings.TrimSpace(s)
	if s == "" || strings.Count(s, ".") > 1 || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") {
		return false
	}
	nonZero := false
	for _, r := range s {
		switch {
		case r == '.':
		case r >= '0' && r <= '9':
			nonZero = nonZero || r != '0'
		default:
			return false
		}
	}
	return !positive || nonZero
}

// isMinorUnits reports a non-negative integer string.
func isMinorUnits(s string) bool {
	if s == "" || len(s) > 30 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// isHTTPURL reports an absolute http or https URL.
func isHTTPURL(s string) bool {
	if !cleanText(s, 2048) || strings.ContainsAny(s, " \t") {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// eventExtraOK reports extra data fields of an event: lower snake case names
// to scalars.
func eventExtraOK(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for k, e := range m {
		if !snakeName(k) {
			return false
		}
		switch e.(type) {
		case string, bool, float64, json.Number, int, int64, nil:
		default:
			return false
		}
	}
	return true
}

// snakeName reports a lower snake case name.
func snakeName(s string) bool {
	if s == "" || len(s) > 64 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

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

// namedBusinessPaths are the business paths the contract names without
// showing their shapes (specification, "Other endpoints named"), which
// faults and requests in progress may target: the simulator serves none
// of them, so an injected fault is the only answer they have.
var namedBusinessPaths = []string{
	"/v1/kyc/sessions", "/v1/members", "/v1/merchant/*", "/v1/withdrawals*", "/v1/withdraw-addresses",
	"/v1/earn/orders", "/v1/exchange/*",
}

// businessPath reports a path of the business API: one a business endpoint
// serves (any method), one the contract names, or a prefix ending in * of
// one of those.
func (ctl *controlAPI) businessPath(p string) bool {
	if !cleanText(p, 2048) {
		return false
	}
	if prefix, ok := strings.CutSuffix(p, "*"); ok {
		return strings.HasPrefix(prefix, "/") && (strings.HasPrefix("/v1/", prefix) || ctl.businessPrefix(prefix))
	}
	if !strings.HasPrefix(p, "/v1/") {
		return false
	}
	for _, n := range namedBusinessPaths {
		if prefix, ok := strings.CutSuffix(n, "*"); ok && strings.HasPrefix(p, prefix) || n == p {
			return true
		}
	}
	r, err := http.NewRequest(http.MethodGet, p, nil)
	if err != nil || r.URL.Path != p {
		return false
	}
	return len(ctl.sim.wiring.gw.allowedMethods(r)) > 0
}

// businessPrefix reports a prefix of a business route or named path.
func (ctl *controlAPI) businessPrefix(prefix string) bool {
	for _, n := range namedBusinessPaths {
		n = strings.TrimSuffix(n, "*")
		if strings.HasPrefix(n, prefix) || strings.HasPrefix(prefix, n) {
			return true
		}
	}
	for _, e := range ctl.sim.wiring.gw.endpoints {
		tmpl := e.Pattern
		if i := strings.IndexByte(tmpl, '{'); i >= 0 {
			if strings.HasPrefix(prefix, tmpl[:i]) {
				return true
			}
			tmpl = tmpl[:i]
		}
		if strings.HasPrefix(tmpl, prefix) {
			return true
		}
	}
	return false
}

// outcomeCollections lists the outcome collections, sorted.
func (ctl *controlAPI) outcomeCollections() []string {
	return ctl.sim.wiring.timers.Collections()
}

// outcomeObject reports an id that names an object of an outcome
// collection: one in flight, or a QR order, card application, card, card
// top-up or remittance.
func (ctl *controlAPI) outcomeObject(tx *kernel.Tx, id string) bool {
	s := ctl.sim
	if s.wiring.timers.IsInFlight(tx, id) {
		return true
	}
	return s.st.qr.Has(tx, id) || s.st.cards.Has(tx, id) || s.st.remit.HasOrder(tx, id)
}

// eventTypeNames are the documented event types, sorted.
var eventTypeNames = func() []string {
	var out []string
	for _, t := range webhooks.EventTypes() {
		out = append(out, string(t))
	}
	sort.Strings(out)
	return out
}()

// The fixed sets of the domains above.
var (
	formFactors       = []string{"physical", "virtual"}
	memberStatusNames = []string{"active", "banned", "blocklisted", "frozen", "suspended"}
	environmentNames  = []string{string(Production), string(Sandbox)}
	faultKindNames    = []string{string(FaultDelay), string(FaultDropAfter), string(FaultDropBefore), string(FaultError), string(FaultErrorAfter)}
	writeMethods      = []string{"DELETE", "PATCH", "POST", "PUT"}
	faultMethods      = []string{"*", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"}
)

// checkBusinessEndpoint refuses a write method and path that no business
// endpoint serves: a request in progress there would never be met.
func (ctl *controlAPI) checkBusinessEndpoint(method, target string) error {
	s := ctl.sim
	m := strings.ToUpper(strings.TrimSpace(method))
	path, _, _ := strings.Cut(target, "?")
	r, err := http.NewRequest(m, path, nil)
	if err == nil && slices.Contains(s.wiring.gw.allowedMethods(r), m) {
		return nil
	}
	var valid []string
	for _, e := range s.wiring.gw.endpoints {
		if !isWrite(e.Method) {
			continue
		}
		paths := e.Routes
		if len(paths) == 0 {
			paths = []string{e.Pattern}
		}
		for _, p := range paths {
			valid = append(valid, e.Method+" "+p)
		}
	}
	sort.Strings(valid)
	return &NameError{Kind: "business endpoint", Name: m + " " + path, Valid: slices.Compact(valid), Field: "method and path"}
}
