package simulator

import "github.com/mwallet/mwallet-go/simulator/internal/kernel"

// Limits and gates hold on every path. Each product line checks its gates
// where a request executes, and again wherever an object it accepted moves
// on later without a new request (a queue advancing, an approval, a
// dispatch), through the same functions below, so a deferred path cannot
// skip a gate the direct path enforces. The table of paths and gates is in
// README.md ("Limits and gates on deferred paths"). The card line's gates
// are in its package (internal/cards, gates.go); a member's restriction is
// api.Member.Restriction.

// kycInReview reports a member whose KYC profile is not approved: sent back
// to review by an update, rejected, or waiting for supplementary documents.
// Card issuing and remittances stop meanwhile, whatever level the member
// held and whatever quick KYC binding it has.
func kycInReview(tx *kernel.Tx, st *simState, m *member) bool {
	p := st.kyc.Profile(tx, m)
	return p != nil && p.Status != "approved"
}
