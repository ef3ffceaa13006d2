package simulator

import (
	"math"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	cardline "github.com/mwallet/mwallet-go/simulator/internal/cards"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
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

// domain is the set of values a control argument may take.
type domain = control.Domain[*opRun]

// domains is the registry of the domains control inputs name, by the key a
// dom tag says.
var domains = buildDomains()

func buildDomains() map[string]*domain {
	reg := map[string]*domain{}
	register := func(key string, d *domain) { reg[key] = d }
	anyValue := control.AnyValue[*opRun]
	// Fixed sets.
	register("form_factor", control.OneOf[*opRun]("form factor", "plastic", formFactors...))
	register("card_status", control.OneOf[*opRun]("card status", "frozen ", cardline.Statuses()...))
	register("member_status", control.OneOf[*opRun]("member status", "activ", memberStatusNames...))
	register("merchant_model", control.OneOf[*opRun]("merchant model", "self_hosted", string(MerchantHosted), string(PlatformHosted)))
	register("merchant_status", control.OneOf[*opRun]("merchant status", "paused", "active", "closed", "frozen", "suspended"))
	register("environment", control.OneOf[*opRun]("environment", "staging", environmentNames...))
	register("fault_kind", control.OneOf[*opRun]("fault kind", "drop", faultKindNames...))
	register("fault_method", control.Folded(control.OneOf[*opRun]("HTTP method", "PSOT", faultMethods...)))
	register("http_method", control.Folded(control.OneOf[*opRun]("HTTP method", "PSOT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")))
	register("write_method", control.Folded(control.OneOf[*opRun]("write method", "GET", writeMethods...)))
	register("qr_scenario", control.OneOf[*opRun]("QR scenario", "timeout_", qrpay.Scenarios()...))
	register("compensation_source", control.OneOf[*opRun]("compensation source", "manual", "admin", "auto"))
	register("tx_direction", control.OneOf[*opRun]("card transaction direction", "sideways", "credit", "debit", "none", "unknown"))
	register("event_type", control.Trimmed(control.OneOf[*opRun]("event type", "card.status.update", eventTypeNames...)))
	register("event_object", control.OneOf[*opRun]("event data.object", "depost", eventObjects()...))
	register("error_code", control.OneOf[*opRun]("public error code", "api_eror", errorCodeNames()...))
	register("outcome_collection", &domain{Name: "outcome collection",
		Choices: func(x *opRun) []string { return x.s.wiring.ctl.outcomeCollections() }, Bad: []any{"remittance"}})
	register("action", &domain{Name: "control action", Choices: func(*opRun) []string { return controlOps.ActionKeys() }, Bad: []any{"cards/explode"}})
	register("asset", control.Folded(&domain{Name: "asset", Choices: func(x *opRun) []string { return x.s.st.cat.Codes() }, Bad: []any{"USDX"}}))

	// The ids of objects.
	register("member", control.ObjectOf("member", func(x *opRun, id string) bool { return x.s.st.members.ByAny(x.tx, id) != nil }))
	register("member_ctx", control.ObjectOf("member", func(x *opRun, id string) bool {
		_, ae := x.s.wiring.gw.resolveMember(x.tx, id)
		return ae == nil
	}))
	register("secure_session", control.ObjectOf("secure session", func(x *opRun, id string) bool {
		_, _, err := x.s.st.cards.SecureSessionPage(x.tx, cardline.PathRequest(id), nil)
		return err == nil
	}))
	register("card", control.ObjectOf("card", func(x *opRun, id string) bool {
		return x.s.st.cards.HasCard(x.tx, cardline.WithIDPrefix("crd_", id))
	}))
	register("card_application", control.ObjectOf("card application", func(x *opRun, id string) bool {
		return x.s.st.cards.FindApplication(x.tx, id) == nil
	}))
	register("card_topup", control.ObjectOf("card top-up", func(x *opRun, id string) bool { return x.s.st.cards.FindTopUp(x.tx, id) == nil }))
	register("card_product", control.ObjectOf("card product", func(x *opRun, id string) bool { return x.s.st.cards.HasProduct(x.tx, id) }))
	register("qr_order", control.ObjectOf("QR payment order", func(x *opRun, id string) bool { return x.s.st.qr.Has(x.tx, qrpay.OrderID(id)) }))
	register("remittance", control.ObjectOf("remittance", func(x *opRun, id string) bool {
		return x.s.st.remit.HasOrder(x.tx, cardline.WithIDPrefix("rmt_", id))
	}))
	register("kyc_session", control.ObjectOf("KYC session", func(x *opRun, id string) bool { return x.s.st.kyc.HasSession(x.tx, id) }))
	register("quick_binding", control.ObjectOf("quick KYC binding", func(x *opRun, id string) bool { return x.s.st.kyc.HasBinding(x.tx, id) }))
	register("webhook_endpoint", control.ObjectOf("webhook endpoint", func(x *opRun, id string) bool {
		id = cardline.WithIDPrefix("whe_", id)
		return slices.ContainsFunc(x.s.st.webhooks.EndpointList(x.tx), func(e hookline.EndpointView) bool { return e.ID == id })
	}))
	register("webhook_delivery", control.ObjectOf("webhook delivery", func(x *opRun, id string) bool {
		id = cardline.WithIDPrefix("whd_", id)
		return slices.ContainsFunc(x.s.st.webhooks.Deliveries(x.tx), func(d hookline.DeliveryView) bool { return d.ID == id })
	}))
	register("challenge", control.ObjectOf("step-up challenge", func(x *opRun, id string) bool { _, ok := x.s.st.stepUp.Get(x.tx, id); return ok }))
	register("key", control.ObjectOf("key", func(x *opRun, id string) bool { return x.s.st.keys.Has(x.tx, id) }))
	register("dashboard_file", control.ObjectOf("dashboard file", func(_ *opRun, name string) bool { return slices.Contains(dashboardFiles, name) }))
	register("outcome_object", control.ObjectOf("object of an outcome collection", func(x *opRun, id string) bool {
		return x.s.wiring.ctl.outcomeObject(x.tx, id)
	}))

	// Codes and formats.
	register("currency", control.FormatOf("ISO 4217 currency code", "an ISO 4217 alphabetic currency code such as THB",
		func(_ *opRun, v any) bool { return api.IsCurrency(strings.ToUpper(strings.TrimSpace(v.(string)))) }, "QQQ", "TH", "XXX"))
	register("country", control.FormatOf("ISO 3166 country code", "an ISO 3166-1 alpha-2 country code such as SG",
		func(_ *opRun, v any) bool { return api.IsCountry(strings.ToUpper(strings.TrimSpace(v.(string)))) }, "XX", "ZZ", "SGP"))
	register("business_path", control.FormatOf("business API path",
		"a path of the business API (/v1/...) a business endpoint serves or the contract names, or a prefix of one ending in *",
		func(x *opRun, v any) bool { return x.s.wiring.ctl.businessPath(v.(string)) }, "/v1/deposit", "/v2/assets", "v1/assets"))
	register("business_target", control.FormatOf("business API request target",
		"a path of the business API (/v1/...) with its query as it will be sent, without control characters",
		func(x *opRun, v any) bool {
			s := v.(string)
			p, _, _ := strings.Cut(s, "?")
			return control.CleanText(s, 2048) && x.s.wiring.ctl.businessPath(p) && !strings.HasSuffix(p, "*")
		}, "/v1/deposit", "/v1/assets\n"))
	register("idempotency_key", control.FormatOf("idempotency key", "a UUID-shaped key (8-4-4-4-12 hex digits)",
		func(_ *opRun, v any) bool { return api.UUIDShaped(v.(string)) }, "not-a-uuid"))
	register("decimal", control.FormatOf("decimal amount", "a non-negative decimal string such as 12.5",
		func(_ *opRun, v any) bool { return control.IsDecimal(v.(string), false) }, "-1", "1.2.3", "ten"))
	register("positive_decimal", control.FormatOf("positive decimal", "a decimal string above 0 such as 0.0291",
		func(_ *opRun, v any) bool { return control.IsDecimal(v.(string), true) }, "0", "-0.5", "abc"))
	register("minor_amount", control.FormatOf("amount in minor units", "a non-negative integer string in the smallest unit",
		func(_ *opRun, v any) bool { return control.IsMinorUnits(v.(string)) }, "-1", "12.50", "ten"))
	register("url", control.FormatOf("webhook URL", "an absolute http or https URL without control characters",
		func(_ *opRun, v any) bool { return control.IsHTTPURL(v.(string)) }, "ftp://example.com/hook", "/hook", "http://exa mple.com/\n"))
	register("go_duration", control.FormatOf("duration", "a non-negative Go duration of at most ten years, such as 90s or 24h",
		func(_ *opRun, v any) bool {
			d, err := time.ParseDuration(v.(string))
			return err == nil && d >= 0 && d <= maxAdvance
		}, "-5s", "soon", "87700h"))
	register("outcome_mode", control.FormatOf("outcome mode", "manual, immediate or after:<Go duration>, such as after:5m",
		func(_ *opRun, v any) bool { _, err := ParseOutcomeMode(v.(string)); return err == nil }, "later", "after:-1s"))
	register("event_extra", control.FormatOf("event data fields", "an object of lower snake case names to strings, numbers or booleans",
		func(_ *opRun, v any) bool { return control.EventExtraOK(v) }, map[string]any{"Bad Key": "x"}, map[string]any{"a": map[string]any{"b": 1}}))

	// Texts.
	register("text", control.TextOf[*opRun]("text", 256))
	register("name", control.TextOf[*opRun]("name", 64))
	register("member_ref", control.FormatOf("external member id",
		"text of at most 64 characters without control characters, not starting with mem_",
		func(_ *opRun, v any) bool {
			s := strings.TrimSpace(v.(string))
			return control.CleanText(s, 64) && !strings.HasPrefix(s, "mem_")
		}, "a\x00b", "a\nb", "mem_x", strings.Repeat("m", 65)))
	register("body_text", control.FormatOf("request body text", "text of at most 524288 bytes",
		func(_ *opRun, v any) bool { return len(v.(string)) <= 512<<10 }, strings.Repeat("b", 512<<10+1)))
	register("qr_code", control.TextOf[*opRun]("QR code value", 512))
	register("snake_code", control.FormatOf("code", "a lower snake case code such as payout_rejected",
		func(_ *opRun, v any) bool { return control.SnakeName(v.(string)) }, "Payout Rejected", "payout\nrejected"))
	register("seq", control.IntRange[*opRun]("input sequence number", 0, math.MaxInt64-1))
	register("step", control.FormatOf("recording step", "a non-negative integer", func(_ *opRun, v any) bool { return control.IsMinorUnits(v.(string)) }, "-1", "x"))
	register("bin", control.FormatOf("BIN", "6 to 8 digits", func(_ *opRun, v any) bool {
		b := v.(string)
		return len(b) >= 6 && len(b) <= 8 && control.IsMinorUnits(b)
	}, "41111", "4111111111", "41111x"))

	// Numbers.
	register("seconds_advance", &domain{Name: "seconds to advance", Want: "a number from 0 to 315360000 (ten years)",
		OK: func(_ *opRun, v any) bool {
			f, _ := control.ToFloat(v)
			return f >= 0 && f <= maxAdvance.Seconds()
		}, Bad: []any{-5, 315360001}})
	register("seconds_in_progress", &domain{Name: "seconds in progress", Want: "a number above 0 and at most 86400",
		OK: func(_ *opRun, v any) bool {
			f, _ := control.ToFloat(v)
			return f > 0 && f <= idempotencyWindow.Seconds()
		}, Bad: []any{0, 86401}})
	register("kyc_level", control.IntRange[*opRun]("KYC level", 0, 2))
	register("kyc_approval_level", control.IntRange[*opRun]("KYC approval level", 1, 2))
	register("count", control.IntRange[*opRun]("count", 0, math.MaxInt32))
	register("card_limit", control.IntRange[*opRun]("card limit", 0, 1_000_000))
	register("quota", control.IntRange[*opRun]("write quota per minute", 0, 1_000_000))
	register("fee_rate", control.IntRange[*opRun]("fee rate in basis points", 0, 10000))
	register("status_version", control.IntRange[*opRun]("status_version", 0, math.MaxInt64-1))
	register("fault_status", &domain{Name: "HTTP error status", Want: "0 (the code's own) or an integer from 400 to 599",
		OK: func(_ *opRun, v any) bool { n, _ := v.(int64); return n == 0 || (n >= 400 && n <= 599) }, Bad: []any{200, 600}})
	register("delay_ms", control.IntRange[*opRun]("delay in milliseconds", 0, maxFaultDelayMS))
	register("scale", control.IntRange[*opRun]("card scale", 0, 18))

	// Values whose every JSON value of the field's type is in the domain.
	register("boolean", &domain{Name: "boolean", Want: "true or false", OK: anyValue})
	register("time", &domain{Name: "time", Want: "an RFC 3339 time", OK: anyValue})

	// What earlier builds checked of the arguments whose domain came later:
	// nothing (their lines refused what they refused), or a weaker rule.
	for _, key := range []string{"http_method", "event_object", "error_code", "currency", "country", "business_path",
		"business_target", "idempotency_key", "decimal", "positive_decimal", "minor_amount", "url", "event_extra", "text",
		"name", "member_ref", "body_text", "qr_code", "bin", "snake_code", "kyc_approval_level", "scale"} {
		reg[key].Legacy = anyValue
	}
	nonNegative := func(_ *opRun, v any) bool { f, _ := control.ToFloat(v); return f >= 0 }
	for _, key := range []string{"card_limit", "quota", "count", "status_version"} {
		reg[key].Legacy = nonNegative
	}
	reg["seconds_in_progress"].Legacy = func(_ *opRun, v any) bool { f, _ := control.ToFloat(v); return f > 0 }
	reg["go_duration"].Legacy = func(_ *opRun, v any) bool { d, err := time.ParseDuration(v.(string)); return err == nil && d >= 0 }
	return reg
}

// maxAdvance bounds one advance of the clock.
const maxAdvance = 10 * 365 * 24 * time.Hour

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
	if !control.CleanText(p, 2048) {
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
