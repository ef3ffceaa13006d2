package simulator

import (
	"fmt"
	"sort"
)

// Test hooks for the external test package (compiled only with the tests).

// Routes lists the business endpoints as "METHOD pattern", plus the token
// exchange, in registration order.
func Routes(s *Simulator) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []string{"POST /v1/connect/token"}
	for _, e := range s.endpoints {
		out = append(out, e.method+" "+e.pattern)
	}
	return out
}

// SetStoreCaps lowers the bounds of the nonce, idempotency record and
// step-up challenge stores (0 leaves one as it is).
func SetStoreCaps(s *Simulator, nonces, idem, challenges int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if nonces > 0 {
		s.gw.maxNonces = nonces
	}
	if idem > 0 {
		s.gw.maxIdem = idem
	}
	if challenges > 0 {
		s.gw.maxChallenges = challenges
	}
}

// SetJournalCapacity replaces the request journal with an empty one keeping
// the newest n requests.
func SetJournalCapacity(s *Simulator, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seq := s.gw.journal.seq
	s.gw.journal = newJournal(n)
	s.gw.journal.seq = seq
}

// Test-only views of the simulator's internals, for the external tests.

// EndpointInfo is one business endpoint of the registry: a catch-all
// pattern is listed once per contract path it serves.
type EndpointInfo struct {
	Method     string
	Path       string
	Pattern    string // the registered ServeMux pattern serving Path
	Scope      string
	Member     bool
	Idempotent bool
}

// Key is "METHOD /path".
func (e EndpointInfo) Key() string { return e.Method + " " + e.Path }

// Endpoints lists the registered business endpoints in registration order.
func Endpoints(s *Simulator) []EndpointInfo {
	var out []EndpointInfo
	for _, e := range s.endpoints {
		paths := e.routes
		if len(paths) == 0 {
			paths = []string{e.pattern}
		}
		for _, p := range paths {
			out = append(out, EndpointInfo{Method: e.method, Path: p, Pattern: e.pattern, Scope: e.scope, Member: e.member, Idempotent: e.idempotent})
		}
	}
	return out
}

// ScopeCatalogue lists the scopes the simulator knows, sorted.
func ScopeCatalogue(s *Simulator) []string {
	out := make([]string, 0, len(s.gw.scopeCatalog))
	for sc := range s.gw.scopeCatalog {
		out = append(out, sc)
	}
	sort.Strings(out)
	return out
}

// ContractScopes and ServiceScopes are the two halves of the catalogue.
func ContractScopes() []string { return append([]string(nil), contractScopes...) }

// ServiceScopes are the scopes the simulator adds where the contract names
// none.
func ServiceScopes() []string { return append([]string(nil), serviceScopes...) }

// InternalCounts counts the objects a business request may create that the
// StateSnapshot does not show (payees, KYC tickets and bindings, secure
// sessions, PIN calls, VP applications, stored remittance keys, card
// transactions).
func InternalCounts(s *Simulator) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	pins := 0
	for _, calls := range s.cards.pinCalls {
		pins += len(calls)
	}
	return fmt.Sprintf("payees=%d kyc_sessions=%d bindings=%d profiles=%d card_sessions=%d pin_calls=%d vp=%d remit_keys=%d txs=%d",
		len(s.remit.payeeByID), len(s.kyc.sessions), len(s.kyc.bindings), len(s.kyc.profiles), len(s.cards.sessions), pins,
		len(s.remit.vpApps), len(s.remit.byIdem), len(s.cards.transactions))
}
