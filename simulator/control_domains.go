package simulator

import (
	"github.com/mwallet/mwallet-go/simulator/internal/idempotency"
	"time"

	cardline "github.com/mwallet/mwallet-go/simulator/internal/cards"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/devtools"
	"github.com/mwallet/mwallet-go/simulator/internal/kyc"
	"github.com/mwallet/mwallet-go/simulator/internal/members"
	"github.com/mwallet/mwallet-go/simulator/internal/qrpay"
	"github.com/mwallet/mwallet-go/simulator/internal/remittances"
	"github.com/mwallet/mwallet-go/simulator/internal/stepup"
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
// dom tag says: internal/control's SimDomains over this package's
// lookups (its sets of names and its objects), the lines' ControlDomains
// and internal/control's Names and Standard (codes, formats, texts,
// numbers), merged by control.Domains, which applies the rules of earlier
// builds (control.Legacy). domainProblems are what control.Domains found
// wrong with the tables (a key given twice, a rule of earlier builds for a
// key no table gives); TestControlDomainsAreWellFormed requires none.
var domains, domainProblems = buildDomains()

// buildDomains builds the registry.
func buildDomains() (map[string]*domain, []string) {
	return control.Domains(control.SimDomains(control.SimLookups[*opRun]{
		MerchantModels: []string{string(MerchantHosted), string(PlatformHosted)},
		Environments:   environmentNames, FaultKinds: faultKindNames,
		Collections: func(x *opRun) []string { return x.Sim.wiring.timers.Collections() },
		Actions:     func() []string { return controlOps.ActionKeys() },
		Assets:      func(x *opRun) []string { return x.Sim.st.cat.Codes() },
		Member: func(x *opRun, id string) bool {
			_, ae := x.Sim.wiring.gw.ex.ResolveMember(x.Tx, id)
			return ae == nil
		},
		Key:            func(x *opRun, id string) bool { return x.Sim.st.keys.Has(x.Tx, id) },
		DashboardFiles: func() []string { return devtools.DashboardFiles },
		// An object in flight, or a QR order, card application, card, card
		// top-up or remittance.
		OutcomeObject: func(x *opRun, id string) bool {
			st := &x.Sim.st
			return x.Sim.wiring.timers.IsInFlight(x.Tx, id) || st.qr.Has(x.Tx, id) || st.cards.Has(x.Tx, id) || st.remit.HasOrder(x.Tx, id)
		},
	}),
		cardline.ControlDomains(cardsAt), qrpay.ControlDomains(qrAt), remittances.ControlDomains(remitAt), kyc.ControlDomains(kycAt),
		hookline.ControlDomains(hooksAt), stepup.ControlDomains(stepUpAt), members.ControlDomains(membersAt),
		control.Names[*opRun](), control.Standard(control.Lookups[*opRun]{
			BusinessPath:  func(x *opRun, p string) bool { return control.IsBusinessPath(x.Sim.wiring.gw.router, p) },
			OutcomeMode:   func(s string) bool { _, err := ParseOutcomeMode(s); return err == nil },
			MaxAdvance:    maxAdvance,
			MaxInProgress: idempotency.Window,
			MaxDelayMS:    maxFaultDelayMS,
		}))
}

// maxAdvance bounds one advance of the clock.
const maxAdvance = 10 * 365 * 24 * time.Hour

// The fixed sets of the domains above that name public types.
var (
	environmentNames = []string{string(Production), string(Sandbox)}
	faultKindNames   = []string{string(FaultDelay), string(FaultDropAfter), string(FaultDropBefore), string(FaultError), string(FaultErrorAfter)}
)
