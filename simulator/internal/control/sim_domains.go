package control

import "slices"

// The domains of the simulator as a whole that no line gives: its sets of
// names whose values the declaring package's public types spell (merchant
// models, environments, fault kinds), the names it looks up at run time
// (outcome collections, object actions, assets) and the ids of objects no
// line holds (a member of the caller's context, a Key, a dashboard file,
// an object of an outcome collection). What each reads the declaring
// package gives (SimLookups).

// SimLookups are what SimDomains needs of the declaring package.
type SimLookups[X any] struct {
	// MerchantModels, Environments and FaultKinds are the names the
	// public types' values spell.
	MerchantModels, Environments, FaultKinds []string
	// Collections are the outcome collections, Actions the object
	// actions' keys and Assets the catalogue's asset codes.
	Collections func(x X) []string
	Actions     func() []string
	Assets      func(x X) []string
	// Member reports a member of the caller's context, Key a Key and
	// OutcomeObject an object of an outcome collection.
	Member, Key, OutcomeObject func(x X, id string) bool
	// DashboardFiles are the files of the dashboard.
	DashboardFiles func() []string
}

// SimDomains are the domains of the simulator as a whole, by key.
func SimDomains[X any](l SimLookups[X]) map[string]*Domain[X] {
	return map[string]*Domain[X]{
		"merchant_model":     OneOf[X]("merchant model", "self_hosted", l.MerchantModels...),
		"environment":        OneOf[X]("environment", "staging", l.Environments...),
		"fault_kind":         OneOf[X]("fault kind", "drop", l.FaultKinds...),
		"outcome_collection": &Domain[X]{Name: "outcome collection", Choices: l.Collections, Bad: []any{"remittance"}},
		"action":             &Domain[X]{Name: "control action", Choices: func(X) []string { return l.Actions() }, Bad: []any{"cards/explode"}},
		"asset":              Folded(&Domain[X]{Name: "asset", Choices: l.Assets, Bad: []any{"USDX"}}),
		"member_ctx":         ObjectOf("member", l.Member),
		"key":                ObjectOf("key", l.Key),
		"dashboard_file":     ObjectOf("dashboard file", func(_ X, name string) bool { return slices.Contains(l.DashboardFiles(), name) }),
		"outcome_object":     ObjectOf("object of an outcome collection", l.OutcomeObject),
	}
}
