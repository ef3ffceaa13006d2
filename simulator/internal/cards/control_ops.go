package cards

import (
	"net/http"

	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel"
)

// The card line's control operations whose transitions need only the line
// and the transaction: their rows (route, object action, Go method,
// input and its domains, transition, answer) are declared here, in the
// control engine's form (internal/control), over the declaring package's
// run of one op X. The domains the inputs name ("card", "card_status",
// ...) are the simulator's registry's; the ops on a member and the printed
// plastic are in control_member_ops.go, adding a transaction in
// control_transaction_op.go.

// The inputs of the card ops declared here.
type (
	// CardRef names a card.
	CardRef struct {
		ID string `path:"id" json:"-" dom:"card"`
	}
	// AppRef names a card application.
	AppRef struct {
		ID string `path:"id" json:"-" dom:"card_application"`
	}
	// TopUpRef names a card top-up.
	TopUpRef struct {
		ID string `path:"id" json:"-" dom:"card_topup"`
	}
	// StatusIn sets a card's status.
	StatusIn struct {
		ID     string `path:"id" json:"-" dom:"card"`
		Status string `json:"status" dom:"card_status,req"`
	}
	// ReadableIn makes a card's upstream balance readable or not.
	ReadableIn struct {
		ID       string `path:"id" json:"-" dom:"card"`
		Readable *bool  `json:"readable" dom:"boolean,req"`
	}
	// RefuseCloseIn makes the issuer refuse a card's closes or not.
	RefuseCloseIn struct {
		ID     string `path:"id" json:"-" dom:"card"`
		Refuse *bool  `json:"refuse" dom:"boolean,req"`
	}
	// LimitIn sets the cards of a form factor a member may hold.
	LimitIn struct {
		FormFactor string `json:"form_factor" dom:"form_factor,req"`
		Limit      *int   `json:"limit" dom:"card_limit,req"`
	}
	// BINsIn restricts the products to BINs.
	BINsIn struct {
		BINs []string `json:"bins" dom:"bin"`
	}
	// ProductEnabledIn enables or disables a product.
	ProductEnabledIn struct {
		ID      string `path:"id" json:"-" dom:"card_product"`
		Enabled *bool  `json:"enabled" dom:"boolean,req"`
	}
	// TopUpTimeoutsIn times out the next top-ups.
	TopUpTimeoutsIn struct {
		Count *int `json:"count" dom:"count"`
	}
	// SecureSessionRef names a secure session.
	SecureSessionRef struct {
		ID string `path:"id" json:"-" dom:"secure_session"`
	}
)

// ControlOps are the card line's ops declared here, by Go method; the
// GETs without one are Card, TopUpView and SecureSession.
type ControlOps[X any] struct {
	ApproveApplication, RejectApplication, Ship, CompleteClose, UnlockActivation *control.Op[X]
	CreditTopUp, RejectTopUp, TimeoutTopUp                                       *control.Op[X]
	SetStatus, SetUpstreamBalanceReadable, UpstreamCloseRequests, TopUpStatus    *control.Op[X]
	SetLimit, SetBINAuthorizations, SetProductEnabled, SetCloseRefused           *control.Op[X]
	TimeoutNextTopUps                                                            *control.Op[X]
	Card, TopUpView, SecureSession                                               *control.Op[X]
}

// NewControlOps declares the ops; at gives the line and the transaction of
// a run.
func NewControlOps[X any](at func(X) (*Line, *kernel.Tx)) *ControlOps[X] {
	cardAction := func(route, key, name string, f func(l *Line) func(*kernel.Tx, string) (map[string]any, error)) *control.Op[X] {
		return control.Def[X, CardRef]{
			Route: route, Action: key, Name: name,
			Args: func(in *CardRef) []any { return []any{in.ID} },
			Run:  func(x X, in *CardRef) (any, error) { l, tx := at(x); return f(l)(tx, in.ID) },
		}.Op()
	}
	appAction := func(route, key, name string, f func(l *Line) func(*kernel.Tx, string) (map[string]any, error)) *control.Op[X] {
		return control.Def[X, AppRef]{
			Route: route, Action: key, Name: name,
			Args: func(in *AppRef) []any { return []any{in.ID} },
			Run:  func(x X, in *AppRef) (any, error) { l, tx := at(x); return f(l)(tx, in.ID) },
		}.Op()
	}
	topUpAction := func(route, key, name string, f func(l *Line) func(*kernel.Tx, string) (map[string]any, error)) *control.Op[X] {
		return control.Def[X, TopUpRef]{
			Route: route, Action: key, Name: name,
			Args: func(in *TopUpRef) []any { return []any{in.ID} },
			Run:  func(x X, in *TopUpRef) (any, error) { l, tx := at(x); return f(l)(tx, in.ID) },
		}.Op()
	}
	return &ControlOps[X]{
		ApproveApplication: appAction("POST /_sim/cards/applications/{id}/approve", "cards/applications/approve", "Cards.ApproveApplication",
			func(l *Line) func(*kernel.Tx, string) (map[string]any, error) { return l.ApproveApplication }),
		RejectApplication: appAction("POST /_sim/cards/applications/{id}/reject", "cards/applications/reject", "Cards.RejectApplication",
			func(l *Line) func(*kernel.Tx, string) (map[string]any, error) { return l.RejectApplication }),
		Ship: cardAction("POST /_sim/cards/{id}/ship", "cards/ship", "Cards.Ship",
			func(l *Line) func(*kernel.Tx, string) (map[string]any, error) { return l.Ship }),
		CompleteClose: cardAction("POST /_sim/cards/{id}/close_complete", "cards/close_complete", "Cards.CompleteClose",
			func(l *Line) func(*kernel.Tx, string) (map[string]any, error) { return l.CompleteClose }),
		UnlockActivation: cardAction("POST /_sim/cards/{id}/unlock", "cards/unlock", "Cards.UnlockActivation",
			func(l *Line) func(*kernel.Tx, string) (map[string]any, error) { return l.UnlockActivation }),
		// Crediting, rejecting and timing out a top-up are written once
		// each (CreditTopUp, RejectTopUp, TimeoutTopUp); the Go methods,
		// the routes and Action run these ops.
		CreditTopUp: topUpAction("POST /_sim/cards/topups/{id}/credit", "cards/topups/credit", "Cards.CreditTopUp",
			func(l *Line) func(*kernel.Tx, string) (map[string]any, error) { return l.CreditTopUp }),
		RejectTopUp: topUpAction("POST /_sim/cards/topups/{id}/reject", "cards/topups/reject", "Cards.RejectTopUp",
			func(l *Line) func(*kernel.Tx, string) (map[string]any, error) { return l.RejectTopUp }),
		TimeoutTopUp: topUpAction("POST /_sim/cards/topups/{id}/timeout", "cards/topups/timeout", "Cards.TimeoutTopUp",
			func(l *Line) func(*kernel.Tx, string) (map[string]any, error) { return l.TimeoutTopUp }),

		SetStatus: control.Def[X, StatusIn]{
			Route: "POST /_sim/cards/{id}/set_status", Action: "cards/set_status", Name: "Cards.SetStatus",
			Args: func(in *StatusIn) []any { return []any{in.ID, in.Status} },
			Run:  func(x X, in *StatusIn) (any, error) { l, tx := at(x); return l.SetStatus(tx, in.ID, in.Status) },
		}.Op(),
		SetUpstreamBalanceReadable: control.Def[X, ReadableIn]{
			Route: "POST /_sim/cards/{id}/upstream_balance", Action: "cards/upstream_balance", Name: "Cards.SetUpstreamBalanceReadable",
			Args: func(in *ReadableIn) []any { return []any{in.ID, *in.Readable} },
			Run: func(x X, in *ReadableIn) (any, error) {
				l, tx := at(x)
				return l.SetUpstreamBalanceReadable(tx, in.ID, *in.Readable)
			},
		}.Op(),
		UpstreamCloseRequests: control.Def[X, CardRef]{Name: "Cards.UpstreamCloseRequests", NoCall: true, Run: func(x X, in *CardRef) (any, error) {
			l, tx := at(x)
			return l.UpstreamCloseRequests(tx, in.ID)
		}}.Op(),
		TopUpStatus: control.Def[X, TopUpRef]{Name: "Cards.TopUpStatus", NoCall: true, Run: func(x X, in *TopUpRef) (any, error) {
			l, tx := at(x)
			return l.TopUpStatus(tx, in.ID)
		}}.Op(),
		SetLimit: control.Def[X, LimitIn]{
			Route: "POST /_sim/cards/limits", Name: "Cards.SetLimit",
			Args: func(in *LimitIn) []any { return []any{in.FormFactor, *in.Limit} },
			Run: func(x X, in *LimitIn) (any, error) {
				l, tx := at(x)
				l.SetLimit(tx, in.FormFactor, *in.Limit)
				return map[string]any{"form_factor": in.FormFactor, "limit": *in.Limit}, nil
			},
		}.Op(),
		SetBINAuthorizations: control.Def[X, BINsIn]{
			Route: "POST /_sim/cards/bin_authorizations", Name: "Cards.SetBINAuthorizations",
			Args: func(in *BINsIn) []any { return []any{in.BINs} },
			Run: func(x X, in *BINsIn) (any, error) {
				l, tx := at(x)
				l.SetBINAuthorizations(tx, in.BINs...)
				bins := in.BINs
				if bins == nil {
					bins = []string{}
				}
				return map[string]any{"bins": bins}, nil
			},
		}.Op(),
		SetProductEnabled: control.Def[X, ProductEnabledIn]{
			Route: "POST /_sim/cards/products/{id}/enabled", Name: "Cards.SetProductEnabled",
			Args: func(in *ProductEnabledIn) []any { return []any{in.ID, *in.Enabled} },
			Run: func(x X, in *ProductEnabledIn) (any, error) {
				l, tx := at(x)
				if err := l.SetProductEnabled(tx, in.ID, *in.Enabled); err != nil {
					return nil, err
				}
				return map[string]any{"product_id": WithIDPrefix("cpd_", in.ID), "enabled": *in.Enabled}, nil
			},
		}.Op(),
		SetCloseRefused: control.Def[X, RefuseCloseIn]{
			Route: "POST /_sim/cards/{id}/refuse_close", Name: "Cards.SetCloseRefused",
			Args: func(in *RefuseCloseIn) []any { return []any{in.ID, *in.Refuse} },
			Run: func(x X, in *RefuseCloseIn) (any, error) {
				l, tx := at(x)
				if err := l.SetCloseRefused(tx, in.ID, *in.Refuse); err != nil {
					return nil, err
				}
				return map[string]any{"id": WithIDPrefix("crd_", in.ID), "refuse": *in.Refuse}, nil
			},
		}.Op(),
		TimeoutNextTopUps: control.Def[X, TopUpTimeoutsIn]{
			Route: "POST /_sim/cards/topups/upstream_timeout", Name: "Cards.TimeoutNextTopUps",
			Args: func(in *TopUpTimeoutsIn) []any { return []any{in.count()} },
			Run: func(x X, in *TopUpTimeoutsIn) (any, error) {
				l, tx := at(x)
				l.TimeoutNextTopUps(tx, in.count())
				return map[string]any{"count": in.count()}, nil
			},
		}.Op(),

		Card: control.Def[X, CardRef]{Route: "GET /_sim/cards/{id}", Run: func(x X, in *CardRef) (any, error) {
			l, tx := at(x)
			return l.CardDetail(tx, in.ID)
		}}.Op(),
		TopUpView: control.Def[X, TopUpRef]{Route: "GET /_sim/cards/topups/{id}", Run: func(x X, in *TopUpRef) (any, error) {
			l, tx := at(x)
			return l.TopUp(tx, in.ID)
		}}.Op(),
		SecureSession: control.Def[X, SecureSessionRef]{Route: "GET /_sim/cards/secure-sessions/{id}", Run: func(x X, in *SecureSessionRef) (any, error) {
			l, tx := at(x)
			_, out, err := l.SecureSessionPage(tx, PathRequest(in.ID), nil)
			return out, err
		}}.Op(),
	}
}

// count is the number of top-ups to time out (default 1).
func (in *TopUpTimeoutsIn) count() int {
	if in.Count == nil {
		return 1
	}
	return *in.Count
}

// PathRequest is a request whose path parameter id is id, for a line
// function that reads it.
func PathRequest(id string) *http.Request {
	r := &http.Request{}
	r.SetPathValue("id", id)
	return r
}
