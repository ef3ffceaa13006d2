package simulator

import (
	"net/http"
	"slices"
	"time"

	cardline "github.com/mwallet/mwallet-go/simulator/internal/cards"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
	"github.com/mwallet/mwallet-go/simulator/internal/qrpay"
	hookline "github.com/mwallet/mwallet-go/simulator/internal/webhooks"
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
// dom tag says: the tables of this package (its sets of names and its
// object lookups) and internal/control's Standard (codes, formats, texts,
// numbers), merged by control.Domains, which applies the rules of earlier
// builds (control.Legacy). domainProblems are what control.Domains found
// wrong with the tables (a key given twice, a rule of earlier builds for a
// key no table gives); TestControlDomainsAreWellFormed requires none.
var domains, domainProblems = buildDomains()

// buildDomains builds the registry.
func buildDomains() (map[string]*domain, []string) {
	return control.Domains(fixedDomains(), objectDomains(), control.Names[*opRun](), control.Standard(control.Lookups[*opRun]{
		BusinessPath:  func(x *opRun, p string) bool { return x.s.wiring.ctl.businessPath(p) },
		OutcomeMode:   func(s string) bool { _, err := ParseOutcomeMode(s); return err == nil },
		MaxAdvance:    maxAdvance,
		MaxInProgress: idempotencyWindow,
		MaxDelayMS:    maxFaultDelayMS,
	}))
}

// fixedDomains are the domains of a set of names this package gives (the
// sets that need nothing of it are control.Names).
func fixedDomains() map[string]*domain {
	return map[string]*domain{
		"card_status":    control.OneOf[*opRun]("card status", "frozen ", cardline.Statuses()...),
		"merchant_model": control.OneOf[*opRun]("merchant model", "self_hosted", string(MerchantHosted), string(PlatformHosted)),
		"environment":    control.OneOf[*opRun]("environment", "staging", environmentNames...),
		"fault_kind":     control.OneOf[*opRun]("fault kind", "drop", faultKindNames...),
		"qr_scenario":    control.OneOf[*opRun]("QR scenario", "timeout_", qrpay.Scenarios()...),
		"outcome_collection": &domain{Name: "outcome collection",
			Choices: func(x *opRun) []string { return x.s.wiring.timers.Collections() }, Bad: []any{"remittance"}},
		"action": &domain{Name: "control action", Choices: func(*opRun) []string { return controlOps.ActionKeys() }, Bad: []any{"cards/explode"}},
		"asset":  control.Folded(&domain{Name: "asset", Choices: func(x *opRun) []string { return x.s.st.cat.Codes() }, Bad: []any{"USDX"}}),
	}
}

// objectDomains are the ids of objects, looked up in the state.
func objectDomains() map[string]*domain {
	return map[string]*domain{
		"member": control.ObjectOf("member", func(x *opRun, id string) bool { return x.s.st.members.ByAny(x.tx, id) != nil }),
		"member_ctx": control.ObjectOf("member", func(x *opRun, id string) bool {
			_, ae := x.s.wiring.gw.resolveMember(x.tx, id)
			return ae == nil
		}),
		"secure_session": control.ObjectOf("secure session", func(x *opRun, id string) bool {
			_, _, err := x.s.st.cards.SecureSessionPage(x.tx, cardline.PathRequest(id), nil)
			return err == nil
		}),
		"card": control.ObjectOf("card", func(x *opRun, id string) bool {
			return x.s.st.cards.HasCard(x.tx, cardline.WithIDPrefix("crd_", id))
		}),
		"card_application": control.ObjectOf("card application", func(x *opRun, id string) bool {
			return x.s.st.cards.FindApplication(x.tx, id) == nil
		}),
		"card_topup":   control.ObjectOf("card top-up", func(x *opRun, id string) bool { return x.s.st.cards.FindTopUp(x.tx, id) == nil }),
		"card_product": control.ObjectOf("card product", func(x *opRun, id string) bool { return x.s.st.cards.HasProduct(x.tx, id) }),
		"qr_order":     control.ObjectOf("QR payment order", func(x *opRun, id string) bool { return x.s.st.qr.Has(x.tx, qrpay.OrderID(id)) }),
		"remittance": control.ObjectOf("remittance", func(x *opRun, id string) bool {
			return x.s.st.remit.HasOrder(x.tx, cardline.WithIDPrefix("rmt_", id))
		}),
		"kyc_session":   control.ObjectOf("KYC session", func(x *opRun, id string) bool { return x.s.st.kyc.HasSession(x.tx, id) }),
		"quick_binding": control.ObjectOf("quick KYC binding", func(x *opRun, id string) bool { return x.s.st.kyc.HasBinding(x.tx, id) }),
		"webhook_endpoint": control.ObjectOf("webhook endpoint", func(x *opRun, id string) bool {
			id = cardline.WithIDPrefix("whe_", id)
			return slices.ContainsFunc(x.s.st.webhooks.EndpointList(x.tx), func(e hookline.EndpointView) bool { return e.ID == id })
		}),
		"webhook_delivery": control.ObjectOf("webhook delivery", func(x *opRun, id string) bool {
			id = cardline.WithIDPrefix("whd_", id)
			return slices.ContainsFunc(x.s.st.webhooks.Deliveries(x.tx), func(d hookline.DeliveryView) bool { return d.ID == id })
		}),
		"challenge":      control.ObjectOf("step-up challenge", func(x *opRun, id string) bool { _, ok := x.s.st.stepUp.Get(x.tx, id); return ok }),
		"key":            control.ObjectOf("key", func(x *opRun, id string) bool { return x.s.st.keys.Has(x.tx, id) }),
		"dashboard_file": control.ObjectOf("dashboard file", func(_ *opRun, name string) bool { return slices.Contains(dashboardFiles, name) }),
		"outcome_object": control.ObjectOf("object of an outcome collection", func(x *opRun, id string) bool {
			return x.s.wiring.ctl.outcomeObject(x.tx, id)
		}),
	}
}

// maxAdvance bounds one advance of the clock.
const maxAdvance = 10 * 365 * 24 * time.Hour

// businessPath reports a path of the business API (control.BusinessPath):
// one a business endpoint serves (any method), one the contract names, or
// a prefix ending in * of one of those.
func (ctl *controlAPI) businessPath(p string) bool {
	gw := ctl.sim.wiring.gw
	patterns := func() []string {
		var out []string
		for _, e := range gw.endpoints {
			out = append(out, e.Pattern)
		}
		return out
	}
	return control.BusinessPath(p, patterns, func(r *http.Request) bool { return len(gw.allowedMethods(r)) > 0 })
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

// The fixed sets of the domains above that name public types.
var (
	environmentNames = []string{string(Production), string(Sandbox)}
	faultKindNames   = []string{string(FaultDelay), string(FaultDropAfter), string(FaultDropBefore), string(FaultError), string(FaultErrorAfter)}
)

// checkBusinessEndpoint refuses a write method and path that no business
// endpoint serves (control.BusinessEndpoint): a request in progress there
// would never be met.
func (ctl *controlAPI) checkBusinessEndpoint(method, target string) error {
	gw := ctl.sim.wiring.gw
	if r := control.BusinessEndpoint(method, target, gw.endpoints, gw.allowedMethods); r != nil {
		return ctl.Refused(r)
	}
	return nil
}
