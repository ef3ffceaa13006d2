package cards

import (
	"net/http"
	"strings"

	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The card ops on one member (the penalty, the KYC country, a shipping
// address, the funds card operations draw on) and the printed plastic.
// A member is named as a member-scoped request names it (domain
// member_ctx: an external_member_id or mem_ id), and resolved by the
// declaring package's lookup; the plastic answers the declaring package's
// public copy of Plastic.

// The inputs of the card ops on a member.
type (
	// PenaltyIn marks a member as having outstanding penalties or not.
	PenaltyIn struct {
		Member      string `path:"id" json:"-" dom:"member_ctx"`
		Outstanding *bool  `json:"outstanding" dom:"boolean,req"`
	}
	// KYCCountryIn sets the country of the KYC a member used.
	KYCCountryIn struct {
		Member  string `path:"id" json:"-" dom:"member_ctx"`
		Country string `json:"country" dom:"country,req"`
	}
	// ShippingIn adds a shipping address to a member.
	ShippingIn struct {
		Member  string `path:"id" json:"-" dom:"member_ctx"`
		Country string `json:"country" dom:"country,req"`
		Default bool   `json:"default" dom:"boolean"`
	}
	// FundsIn names the balances card operations draw on: a member's
	// wallet, or the merchant prepaid account when Member is empty.
	FundsIn struct {
		Member string `json:"member" dom:"member_ctx"`
		Asset  string `json:"asset" dom:"name"`
	}
)

// MemberControlOps are the card ops on a member and the plastic, by Go
// method.
type MemberControlOps[X any] struct {
	Plastic, SetPenalty, SetKYCCountry, AddShippingAddress, Funds *control.Op[X]
}

// NewMemberControlOps declares the ops; at gives the line and the
// transaction of a run, member the id of the member a run's input names
// (its domain, member_ctx, was checked), plastic the answer of Plastic
// (the declaring package's public copy of it).
func NewMemberControlOps[X any](at func(X) (*Line, *kernel.Tx), member func(x X, id string) string, plastic func(Plastic) any) *MemberControlOps[X] {
	return &MemberControlOps[X]{
		Plastic: control.Def[X, CardRef]{
			Route: "POST /_sim/cards/{id}/plastic", Action: "cards/plastic", Name: "Cards.Plastic", NoCall: true,
			Run: func(x X, in *CardRef) (any, error) {
				l, tx := at(x)
				p, err := l.Plastic(tx, in.ID)
				return plastic(p), err
			},
		}.Op(),
		SetPenalty: control.Def[X, PenaltyIn]{
			Route: "POST /_sim/members/{id}/card_penalty", Name: "Cards.SetPenalty",
			Args: func(in *PenaltyIn) []any { return []any{in.Member, *in.Outstanding} },
			Run: func(x X, in *PenaltyIn) (any, error) {
				l, tx := at(x)
				l.SetPenalty(tx, member(x, in.Member), *in.Outstanding)
				return map[string]any{"member": in.Member, "outstanding": *in.Outstanding}, nil
			},
		}.Op(),
		SetKYCCountry: control.Def[X, KYCCountryIn]{
			Route: "POST /_sim/members/{id}/kyc_country", Name: "Cards.SetKYCCountry",
			Args: func(in *KYCCountryIn) []any { return []any{in.Member, upperCode(in.Country)} },
			Run: func(x X, in *KYCCountryIn) (any, error) {
				c := upperCode(in.Country)
				l, tx := at(x)
				l.SetKYCCountry(tx, member(x, in.Member), c)
				return map[string]any{"member": in.Member, "country": c}, nil
			},
		}.Op(),
		AddShippingAddress: control.Def[X, ShippingIn]{
			Route: "POST /_sim/members/{id}/shipping_addresses", Name: "Cards.AddShippingAddress", Status: http.StatusCreated,
			Args: func(in *ShippingIn) []any { return []any{in.Member, upperCode(in.Country), in.Default} },
			Run: func(x X, in *ShippingIn) (any, error) {
				c := upperCode(in.Country)
				l, tx := at(x)
				id := l.AddShippingAddress(tx, member(x, in.Member), c, in.Default)
				return map[string]any{"id": id, "country": c, "is_default": in.Default}, nil
			},
		}.Op(),
		Funds: control.Def[X, FundsIn]{Name: "Cards.Funds", NoCall: true, Run: func(x X, in *FundsIn) (any, error) {
			_, tx := at(x)
			asset := in.Asset
			if in.Member == "" {
				return [2]money.Amount{tx.Balance(kernel.AccountMerchantPrepaid, asset), tx.Balance(kernel.AccountMerchantPrepaidLocked, asset)}, nil
			}
			id := member(x, in.Member)
			return [2]money.Amount{tx.Balance(kernel.MemberAvailable(id), asset), tx.Balance(kernel.MemberLocked(id), asset)}, nil
		}}.Op(),
	}
}

// upperCode is a country or currency code as given, trimmed and upper case.
func upperCode(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }
