package members

import (
	"net/http"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// Creating a member, the list of members, reading one and its balances,
// over the declaring package's run of one op X: their Go methods take and
// answer the declaring package's public types (its seed, its member info),
// and a member's document and balances are the operator's view of the
// ledger and the other lines, which the declaring package gives (Views).

// The inputs of the ops on whole members.
type (
	// MemberRef names a member (mem_ id, bare uuid or external_member_id).
	MemberRef struct {
		ID string `path:"id" json:"-" dom:"member"`
	}
	// MemberAsset names a member and an asset: the input of
	// Members.Balance.
	MemberAsset struct {
		ID    string `json:"id" dom:"member"`
		Asset string `json:"asset" dom:"name"`
	}
	// SeedIn is the body of POST /_sim/members, the fields of the
	// declaring package's seed of a member.
	SeedIn struct {
		ExternalMemberID string            `json:"external_member_id" dom:"member_ref,req"`
		KYCLevel         int               `json:"kyc_level" dom:"kyc_level"`
		Balances         map[string]string `json:"balances" dom:"decimal,key=asset"`
		Status           string            `json:"status" dom:"member_status"`
		PlatformDirect   bool              `json:"platform_direct" dom:"boolean"`
		MerchantID       string            `json:"merchant_id" dom:"name"`
	}
)

// Views are what the ops on whole members need of the declaring package.
type Views[X any] struct {
	// Seed is the Go method's argument of a creation (the public seed).
	Seed func(SeedIn) any
	// Amounts refuses a balance its asset cannot hold, naming field.
	Amounts func(x X, field string, amounts map[string]string) error
	// Document is the control API's document of a member.
	Document func(x X, m *api.Member) map[string]any
	// Info is the Go method's answer of a member found (the public member
	// info; its zero value when there is none).
	Info func(x X, id string) any
	// Balance is a member's available and locked balance in an asset.
	Balance func(x X, id, asset string) [2]money.Amount
	// Unknown is the refusal of a member named by the empty id.
	Unknown func(id string) error
}

// MemberOps are the ops on whole members, by Go method; List is GET
// /_sim/members, which has no Go method.
type MemberOps[X any] struct {
	Create, List, Get, Balance *control.Op[X]
}

// NewMemberOps declares the ops; at gives the line and the transaction of
// a run.
func NewMemberOps[X any](at func(X) (*Line, *kernel.Tx), v Views[X]) *MemberOps[X] {
	return &MemberOps[X]{
		Create: control.Def[X, SeedIn]{
			Route: "POST /_sim/members", Name: "Members.Create", Status: http.StatusCreated,
			Args: func(in *SeedIn) []any { return []any{v.Seed(*in)} },
			// Every balance is an amount of its asset (at most its ledger
			// scale), checked before the member's id is drawn.
			Rules: func(x X, in *SeedIn) error { return v.Amounts(x, "balances", in.Balances) },
			Run: func(x X, in *SeedIn) (any, error) {
				l, tx := at(x)
				return l.createControl(tx, Seed{ExternalID: in.ExternalMemberID, KYCLevel: in.KYCLevel, Balances: in.Balances,
					Status: in.Status, PlatformDirect: in.PlatformDirect, MerchantID: in.MerchantID})
			},
			Reply: func(x X, _ *SeedIn, out any) (int, any) {
				return http.StatusCreated, v.Document(x, out.(*api.Member))
			},
		}.Op(),
		List: control.Def[X, control.NoInput]{Route: "GET /_sim/members", Run: func(x X, _ *control.NoInput) (any, error) {
			l, tx := at(x)
			all := l.All(tx)
			out := make([]map[string]any, 0, len(all))
			for _, m := range all {
				out = append(out, v.Document(x, &m))
			}
			return control.List(out), nil
		}}.Op(),
		Get: control.Def[X, MemberRef]{Route: "GET /_sim/members/{id}", Name: "Members.Get", NoCall: true,
			Run: func(x X, in *MemberRef) (any, error) { return v.Info(x, in.ID), nil },
			Reply: func(x X, in *MemberRef, _ any) (int, any) {
				l, tx := at(x)
				return http.StatusOK, v.Document(x, l.ByAny(tx, in.ID))
			},
		}.Op(),
		Balance: control.Def[X, MemberAsset]{Name: "Members.Balance", NoCall: true, Run: func(x X, in *MemberAsset) (any, error) {
			if in.ID == "" {
				return nil, v.Unknown(in.ID)
			}
			return v.Balance(x, in.ID, in.Asset), nil
		}}.Op(),
	}
}
