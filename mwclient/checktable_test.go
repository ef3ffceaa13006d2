package mwclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/kyc"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/qrpay"
	"github.com/mwallet/mwallet-go/remittance"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/emvqr"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// checkEnv is what a row of localChecks needs: a simulator, an SDK client
// and, made on first use, a card and a payee of member-1.
type checkEnv struct {
	t     *testing.T
	sim   *simulator.Simulator
	c     *mwclient.Client
	card  string
	payee string
}

const checkMember = "member-1"

// cardID returns an issued virtual card of member-1.
func (e *checkEnv) cardID() string {
	e.t.Helper()
	if e.card != "" {
		return e.card
	}
	ctx := context.Background()
	app, err := e.c.Cards.Apply(ctx, checkMember, cards.ApplyParams{ClientKey: cards.NewClientKey(), SourceAsset: "USDT", ProductID: "cpd_virtual_std"})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.sim.Cards.ApproveApplication(app.ID); err != nil {
		e.t.Fatal(err)
	}
	got, err := e.c.Cards.GetApplication(ctx, checkMember, app.ID)
	if err != nil || got.CardID == "" {
		e.t.Fatalf("application after approval = %+v, %v", got, err)
	}
	e.card = got.CardID
	return e.card
}

// physicalCard returns a shipped, not yet activated physical card of
// member-1.
func (e *checkEnv) physicalCard() string {
	e.t.Helper()
	if e.card != "" {
		return e.card
	}
	if err := e.sim.Cards.SetLimit("physical", 50); err != nil {
		e.t.Fatal(err)
	}
	ctx := context.Background()
	app, err := e.c.Cards.Apply(ctx, checkMember, cards.ApplyParams{ClientKey: cards.NewClientKey(), SourceAsset: "USDT", ProductID: "cpd_physical_std"})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.sim.Cards.ApproveApplication(app.ID); err != nil {
		e.t.Fatal(err)
	}
	got, err := e.c.Cards.GetApplication(ctx, checkMember, app.ID)
	if err != nil || got.CardID == "" {
		e.t.Fatalf("application after approval = %+v, %v", got, err)
	}
	if err := e.sim.Cards.Ship(got.CardID); err != nil {
		e.t.Fatal(err)
	}
	e.card = got.CardID
	return e.card
}

// payeeID returns member-1's GBP payee.
func (e *checkEnv) payeeID() string {
	e.t.Helper()
	if e.payee != "" {
		return e.payee
	}
	for p, err := range e.c.Remittances.Payees(context.Background(), checkMember, mwallet.ListParams{Limit: 100}) {
		if err != nil {
			e.t.Fatal(err)
		}
		if p.Currency == "GBP" {
			e.payee = p.ID
			return e.payee
		}
	}
	e.t.Fatal("no GBP payee")
	return ""
}

// localCheck is one local check of the SDK: the SDK call with an input the
// check decides on, and the same input sent as it is (Client.Do, no
// product-line check) for the simulator's decision.
type localCheck struct {
	// name is the endpoint and the input; rule is the specification's
	// rule the check mirrors.
	name, rule string
	sdk        func(ctx context.Context, e *checkEnv) error
	raw        func(e *checkEnv) *mwallet.Request
	// guard, when set, says why the SDK refuses what the service
	// accepts: the service would silently put another value in its
	// place. The test then holds that the service accepts it.
	guard string
	// serviceCode is the simulator's answer to a guard row's input ("" for
	// a success).
	serviceCode mwallet.Code
}

func usdtAmt(s string, scale int) money.Amount { return money.MustParse(s, scale) }

func body(m map[string]any) map[string]any { return m }

func depositRow(name, rule string, p deposits.CreateParams, wire map[string]any) localCheck {
	return localCheck{name: "POST /v1/deposits " + name, rule: rule,
		sdk: func(ctx context.Context, e *checkEnv) error {
			q := p
			if q.Reference == "<unique>" {
				q.Reference = "chk-" + uuid.NewString()
			}
			_, err := e.c.Deposits.Create(ctx, checkMember, q)
			return err
		},
		raw: func(e *checkEnv) *mwallet.Request {
			b := map[string]any{}
			for k, v := range wire {
				b[k] = v
			}
			if b["reference"] == "<unique>" {
				b["reference"] = "chk-" + uuid.NewString()
			}
			return &mwallet.Request{Method: http.MethodPost, Path: "/v1/deposits", MemberScoped: true, Member: checkMember, Body: b, Idempotent: true}
		}}
}

func applyRow(name, rule string, p cards.ApplyParams, wire map[string]any, guard string) localCheck {
	return localCheck{name: "POST /v1/cards/applications " + name, rule: rule, guard: guard,
		sdk: func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Cards.Apply(ctx, checkMember, p)
			return err
		},
		raw: func(e *checkEnv) *mwallet.Request {
			return &mwallet.Request{Method: http.MethodPost, Path: "/v1/cards/applications", MemberScoped: true, Member: checkMember, Body: wire, Idempotent: true}
		}}
}

func topUpRow(name, rule string, p cards.TopUpParams, wire map[string]any) localCheck {
	return localCheck{name: "POST /v1/cards/{id}/topups " + name, rule: rule,
		sdk: func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Cards.TopUp(ctx, checkMember, e.cardID(), p)
			return err
		},
		raw: func(e *checkEnv) *mwallet.Request {
			return &mwallet.Request{Method: http.MethodPost, Path: "/v1/cards/" + e.cardID() + "/topups", MemberScoped: true, Member: checkMember, Body: wire, Idempotent: true}
		}}
}

func estimateRow(name, rule string, amount money.Amount) localCheck {
	return localCheck{name: "GET /v1/cards/{id}/topups/estimate " + name, rule: rule,
		sdk: func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Cards.EstimateTopUp(ctx, checkMember, e.cardID(), cards.EstimateParams{Amount: amount, SourceAsset: "USDT"})
			return err
		},
		raw: func(e *checkEnv) *mwallet.Request {
			return &mwallet.Request{Method: http.MethodGet, Path: "/v1/cards/" + e.cardID() + "/topups/estimate", MemberScoped: true, Member: checkMember,
				Query: url.Values{"amount": {amount.String()}, "source_asset": {"USDT"}}}
		}}
}

func txRow(name, rule string, p cards.TransactionListParams, q url.Values) localCheck {
	return localCheck{name: "GET /v1/cards/{id}/transactions " + name, rule: rule,
		sdk: func(ctx context.Context, e *checkEnv) error {
			for _, err := range e.c.Cards.Transactions(ctx, checkMember, e.cardID(), p) {
				return err
			}
			return nil
		},
		raw: func(e *checkEnv) *mwallet.Request {
			return &mwallet.Request{Method: http.MethodGet, Path: "/v1/cards/" + e.cardID() + "/transactions", MemberScoped: true, Member: checkMember, Query: q}
		}}
}

func cardPostRow(name, rule, action string, call func(ctx context.Context, e *checkEnv) error, wire map[string]any, guard string, serviceCode mwallet.Code) localCheck {
	return localCheck{name: "POST /v1/cards/{id}/" + action + " " + name, rule: rule, guard: guard, serviceCode: serviceCode, sdk: call,
		raw: func(e *checkEnv) *mwallet.Request {
			card := e.cardID
			if action != "pin" { // activation and loss are for physical cards
				card = e.physicalCard
			}
			return &mwallet.Request{Method: http.MethodPost, Path: "/v1/cards/" + card() + "/" + action, MemberScoped: true, Member: checkMember, Body: wire, Idempotent: true}
		}}
}

func remitRow(name, rule string, p func(e *checkEnv) remittance.CreateParams, wire func(e *checkEnv) map[string]any, guard string) localCheck {
	return localCheck{name: "POST /v1/remittances " + name, rule: rule, guard: guard,
		sdk: func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Remittances.Create(ctx, checkMember, p(e))
			return err
		},
		raw: func(e *checkEnv) *mwallet.Request {
			return &mwallet.Request{Method: http.MethodPost, Path: "/v1/remittances", MemberScoped: true, Member: checkMember, Body: wire(e), Idempotent: true}
		}}
}

func remitParams(mod func(p *remittance.CreateParams)) func(e *checkEnv) remittance.CreateParams {
	return func(e *checkEnv) remittance.CreateParams {
		p := remittance.CreateParams{PayeeID: e.payeeID(), PayoutAmount: "10.25", PayoutCurrency: "GBP", SlippageBps: 100, PurposeCode: "FAMILY_SUPPORT"}
		mod(&p)
		return p
	}
}

func remitWire(mod func(e *checkEnv, b map[string]any)) func(e *checkEnv) map[string]any {
	return func(e *checkEnv) map[string]any {
		b := map[string]any{"payee_id": e.payeeID(), "payout_amount": "10.25", "slippage_bps": 100, "purpose_code": "FAMILY_SUPPORT"}
		mod(e, b)
		return b
	}
}

func qrRow(name, rule, path string, call func(ctx context.Context, e *checkEnv) error, wire map[string]any) localCheck {
	return localCheck{name: "POST " + path + " " + name, rule: rule, sdk: call,
		raw: func(e *checkEnv) *mwallet.Request {
			return &mwallet.Request{Method: http.MethodPost, Path: path, MemberScoped: true, Member: checkMember, Body: wire}
		}}
}

// customAmountCode is a static PromptPay code without amount: the payer
// types the THB amount.
func customAmountCode() string {
	return emvqr.MustBuild(emvqr.Payload{
		PointOfInitiation: "11",
		MerchantAccounts:  []emvqr.MerchantAccount{{Tag: "29", GUI: "A000000677010111", Fields: []emvqr.Field{{Tag: "01", Value: "0066801234567"}}}},
		Currency:          "764", Country: "TH",
	})
}

func qrQuoteRow(name, rule string, p qrpay.QuoteParams) localCheck {
	return localCheck{name: "POST /v1/qrpay/quotes " + name, rule: rule,
		sdk: func(ctx context.Context, e *checkEnv) error {
			q := p
			q.CodeValue = customAmountCode()
			_, err := e.c.QRPay.Quote(ctx, checkMember, q)
			return err
		},
		raw: func(e *checkEnv) *mwallet.Request {
			b := map[string]any{"code_value": customAmountCode(), "currency": p.Currency, "amount": p.Amount}
			if p.PreferredAsset != "" {
				b["preferred_asset"] = p.PreferredAsset
			}
			return &mwallet.Request{Method: http.MethodPost, Path: "/v1/qrpay/quotes", MemberScoped: true, Member: checkMember, Body: b}
		}}
}

var long = strings.Repeat

// localChecks lists the local checks of the SDK, each with the rule of the
// specification it mirrors; every row also names its input. Asset amounts
// are tried at every scale case (more decimals all zero, fewer, an extra
// non-zero decimal).
var localChecks = []localCheck{
	// Deposits (POST /v1/deposits).
	depositRow("asset missing", "asset required; missing fields give invalid_request",
		deposits.CreateParams{Amount: usdtAmt("1", 6), Reference: "<unique>"}, body(map[string]any{"amount": "1.000000", "reference": "<unique>"})),
	depositRow("amount zero", "amount greater than 0, else invalid_request",
		deposits.CreateParams{Asset: "USDT", Amount: usdtAmt("0", 6), Reference: "<unique>"}, body(map[string]any{"asset": "USDT", "amount": "0.000000", "reference": "<unique>"})),
	depositRow("amount negative", "amount greater than 0, else invalid_request",
		deposits.CreateParams{Asset: "USDT", Amount: usdtAmt("-1", 6), Reference: "<unique>"}, body(map[string]any{"asset": "USDT", "amount": "-1.000000", "reference": "<unique>"})),
	depositRow("amount USDT 2.50000000 (extra zero decimals)", "extra decimals allowed only if all zero",
		deposits.CreateParams{Asset: "USDT", Amount: usdtAmt("2.5", 8), Reference: "<unique>"}, body(map[string]any{"asset": "USDT", "amount": "2.50000000", "reference": "<unique>"})),
	depositRow("amount USDT 2.5 (fewer decimals)", "fixed-point with asset ledger_scale; no rounding",
		deposits.CreateParams{Asset: "USDT", Amount: usdtAmt("2.5", 1), Reference: "<unique>"}, body(map[string]any{"asset": "USDT", "amount": "2.5", "reference": "<unique>"})),
	depositRow("amount USDT 2.50000001 (extra non-zero decimal)", "extra decimals allowed only if all zero, otherwise 400 (invalid_request); no rounding",
		deposits.CreateParams{Asset: "USDT", Amount: usdtAmt("2.50000001", 8), Reference: "<unique>"}, body(map[string]any{"asset": "USDT", "amount": "2.50000001", "reference": "<unique>"})),
	depositRow("amount BTC 0.1234567800 (extra zero decimals)", "extra decimals allowed only if all zero",
		deposits.CreateParams{Asset: "BTC", Amount: usdtAmt("0.12345678", 10), Reference: "<unique>"}, body(map[string]any{"asset": "BTC", "amount": "0.1234567800", "reference": "<unique>"})),
	depositRow("amount BTC 0.123456789 (extra non-zero decimal)", "extra decimals allowed only if all zero, otherwise 400",
		deposits.CreateParams{Asset: "BTC", Amount: usdtAmt("0.123456789", 9), Reference: "<unique>"}, body(map[string]any{"asset": "BTC", "amount": "0.123456789", "reference": "<unique>"})),
	depositRow("reference missing", "reference required",
		deposits.CreateParams{Asset: "USDT", Amount: usdtAmt("1", 6)}, body(map[string]any{"asset": "USDT", "amount": "1.000000"})),
	depositRow("reference 121 characters", "reference at most 120 characters (invalid_request)",
		deposits.CreateParams{Asset: "USDT", Amount: usdtAmt("1", 6), Reference: long("r", 121)}, body(map[string]any{"asset": "USDT", "amount": "1.000000", "reference": long("r", 121)})),
	depositRow("network 33 characters", "network at most 32",
		deposits.CreateParams{Asset: "USDT", Amount: usdtAmt("1", 6), Reference: "<unique>", Network: long("N", 33)}, body(map[string]any{"asset": "USDT", "amount": "1.000000", "reference": "<unique>", "network": long("N", 33)})),
	depositRow("txid 129 characters", "txid at most 128",
		deposits.CreateParams{Asset: "USDT", Amount: usdtAmt("1", 6), Reference: "<unique>", Network: "TRON", TxID: long("t", 129)}, body(map[string]any{"asset": "USDT", "amount": "1.000000", "reference": "<unique>", "network": "TRON", "txid": long("t", 129)})),
	depositRow("from_address 201 characters", "from_address at most 200",
		deposits.CreateParams{Asset: "USDT", Amount: usdtAmt("1", 6), Reference: "<unique>", Network: "TRON", FromAddress: long("a", 201)}, body(map[string]any{"asset": "USDT", "amount": "1.000000", "reference": "<unique>", "network": "TRON", "from_address": long("a", 201)})),
	depositRow("to_address 201 characters", "to_address at most 200",
		deposits.CreateParams{Asset: "USDT", Amount: usdtAmt("1", 6), Reference: "<unique>", Network: "TRON", ToAddress: long("a", 201)}, body(map[string]any{"asset": "USDT", "amount": "1.000000", "reference": "<unique>", "network": "TRON", "to_address": long("a", 201)})),
	depositRow("txid without network", "network required if txid or either address is given (else invalid_fields)",
		deposits.CreateParams{Asset: "USDT", Amount: usdtAmt("1", 6), Reference: "<unique>", TxID: "0xabc"}, body(map[string]any{"asset": "USDT", "amount": "1.000000", "reference": "<unique>", "txid": "0xabc"})),
	{name: "POST /v1/deposits member missing", rule: "x-on-behalf-of required (member_context_required when missing or blank)",
		sdk: func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Deposits.Create(ctx, " ", deposits.CreateParams{Asset: "USDT", Amount: usdtAmt("1", 6), Reference: "chk-" + uuid.NewString()})
			return err
		},
		raw: func(e *checkEnv) *mwallet.Request {
			return &mwallet.Request{Method: http.MethodPost, Path: "/v1/deposits", Body: map[string]any{"asset": "USDT", "amount": "1.000000", "reference": "chk-" + uuid.NewString()}, Idempotent: true}
		}},

	{name: "GET /v1/deposits/{id} reference empty", rule: "the reference is the path id of the single-item read",
		sdk: func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Deposits.Get(ctx, "")
			return err
		},
		raw: func(e *checkEnv) *mwallet.Request {
			return &mwallet.Request{Method: http.MethodGet, Path: "/v1/deposits/dep_"}
		}},
	{name: "POST /v1/webhooks/deliveries/{id}/redeliver id with a slash", rule: "delivery id whd_<id>",
		sdk: func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Webhooks.Redeliver(ctx, "whd_a/b")
			return err
		},
		raw: func(e *checkEnv) *mwallet.Request {
			return &mwallet.Request{Method: http.MethodPost, Path: "/v1/webhooks/deliveries/whd_a%2Fb/redeliver", Idempotent: true}
		}},

	// Card applications.
	applyRow("first_topup USDT 10.12345600 (extra zero decimals)", "first_topup is a decimal in the source asset (ledger_scale; extra zero decimals accepted)",
		cards.ApplyParams{ClientKey: "chk-1", SourceAsset: "USDT", ProductID: "cpd_virtual_std", FirstTopUp: usdtAmt("10.123456", 8)},
		map[string]any{"client_key": "chk-1", "source_asset": "USDT", "product_id": "cpd_virtual_std", "first_topup": "10.12345600"}, ""),
	applyRow("first_topup USDT 10.1234567 (extra non-zero decimal)", "first_topup at the source asset's ledger_scale; extra non-zero decimals give invalid_fields",
		cards.ApplyParams{ClientKey: cards.NewClientKey(), SourceAsset: "USDT", ProductID: "cpd_virtual_std", FirstTopUp: usdtAmt("10.1234567", 7)},
		map[string]any{"client_key": "chk-2", "source_asset": "USDT", "product_id": "cpd_virtual_std", "first_topup": "10.1234567"}, ""),
	applyRow("first_topup negative", "first_topup a positive decimal (invalid_fields)",
		cards.ApplyParams{ClientKey: cards.NewClientKey(), SourceAsset: "USDT", ProductID: "cpd_virtual_std", FirstTopUp: usdtAmt("-1", 6)},
		map[string]any{"client_key": "chk-3", "source_asset": "USDT", "product_id": "cpd_virtual_std", "first_topup": "-1.000000"}, ""),
	applyRow("funding_source unknown", "funding_source member or merchant (common rule: invalid_fields)",
		cards.ApplyParams{ClientKey: cards.NewClientKey(), SourceAsset: "USDT", ProductID: "cpd_virtual_std", FundingSource: "bank"},
		map[string]any{"client_key": "chk-4", "source_asset": "USDT", "product_id": "cpd_virtual_std", "funding_source": "bank"}, ""),
	applyRow("form_factor Physical (wrong case)", "anything but physical, including wrong case, makes a virtual card",
		cards.ApplyParams{ClientKey: cards.NewClientKey(), SourceAsset: "USDT", ProductID: "cpd_virtual_std", FormFactor: "Physical"},
		map[string]any{"client_key": "chk-5", "source_asset": "USDT", "product_id": "cpd_virtual_std", "form_factor": "Physical"},
		"the service issues a virtual card for a mistyped physical; the SDK refuses the typo"),
	applyRow("source_asset missing", "source_asset required (invalid_request)",
		cards.ApplyParams{ClientKey: "chk-7", ProductID: "cpd_virtual_std"},
		map[string]any{"client_key": "chk-7", "product_id": "cpd_virtual_std"}, ""),
	applyRow("neither product_id nor bin", "product_id, or bin when product_id is omitted",
		cards.ApplyParams{ClientKey: "chk-8", SourceAsset: "USDT"},
		map[string]any{"client_key": "chk-8", "source_asset": "USDT"}, ""),
	applyRow("product_id with a slash", "product_id from the products list, else product_not_available",
		cards.ApplyParams{ClientKey: "chk-6", SourceAsset: "USDT", ProductID: "cpd_a/b"},
		map[string]any{"client_key": "chk-6", "source_asset": "USDT", "product_id": "cpd_a/b"}, ""),
	applyRow("client_key missing", "client_key optional; a random one is generated if omitted",
		cards.ApplyParams{SourceAsset: "USDT", ProductID: "cpd_virtual_std"},
		map[string]any{"source_asset": "USDT", "product_id": "cpd_virtual_std"},
		"without a stored client_key a resend after 24 hours can issue a second card; the SDK requires one (cards.NewClientKey)"),

	// Card top-ups and estimates.
	topUpRow("amount zero", "amount required, greater than zero (invalid_fields)",
		cards.TopUpParams{Amount: usdtAmt("0", 6), SourceAsset: "USDT"}, map[string]any{"amount": "0.000000", "source_asset": "USDT"}),
	topUpRow("amount USDT 10.5 (fewer decimals)", "amount in the source asset at its ledger_scale; fewer decimals accepted",
		cards.TopUpParams{Amount: usdtAmt("10.5", 1), SourceAsset: "USDT"}, map[string]any{"amount": "10.5", "source_asset": "USDT"}),
	topUpRow("amount USDT 10.1234567 (extra non-zero decimal)", "extra non-zero decimals give invalid_fields",
		cards.TopUpParams{Amount: usdtAmt("10.1234567", 7), SourceAsset: "USDT"}, map[string]any{"amount": "10.1234567", "source_asset": "USDT"}),
	topUpRow("funding_source unknown", "funding_source member or merchant (invalid_fields)",
		cards.TopUpParams{Amount: usdtAmt("1", 6), SourceAsset: "USDT", FundingSource: "bank"}, map[string]any{"amount": "1.000000", "source_asset": "USDT", "funding_source": "bank"}),
	estimateRow("amount zero", "amount greater than zero (invalid_fields)", usdtAmt("0", 6)),
	estimateRow("amount USDT 10.12345600 (extra zero decimals)", "extra zero decimals accepted", usdtAmt("10.123456", 8)),
	estimateRow("amount USDT 10.1234567 (extra non-zero decimal)", "extra non-zero decimals give invalid_fields", usdtAmt("10.1234567", 7)),

	// Card transactions filters.
	txRow("id not a transaction id", "id: ctx_ prefix optional; invalid form gives 400 invalid_fields",
		cards.TransactionListParams{ID: "ctx_nope"}, url.Values{"id": {"ctx_nope"}}),
	txRow("auth_code 65 characters", "auth_code at most 64 chars (invalid_fields)",
		cards.TransactionListParams{AuthCode: long("A", 65)}, url.Values{"auth_code": {long("A", 65)}}),
	txRow("kind 65 characters", "kind at most 64 (invalid_fields)",
		cards.TransactionListParams{Kind: cards.TransactionKind(long("k", 65))}, url.Values{"kind": {long("k", 65)}}),
	txRow("status 65 characters", "status at most 64 (invalid_fields)",
		cards.TransactionListParams{Status: cards.TransactionStatus(long("s", 65))}, url.Values{"status": {long("s", 65)}}),
	txRow("direction sideways", "direction debit, credit, none or unknown; else 400 invalid_fields",
		cards.TransactionListParams{Direction: "sideways"}, url.Values{"direction": {"sideways"}}),

	// Card PIN, activation, lost.
	cardPostRow("new_pin not digits", "new_pin digits only (empty or non-digit rejected: invalid_fields)", "pin",
		func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Cards.SetPIN(ctx, checkMember, e.cardID(), cards.SetPINParams{NewPIN: "12a4", CVV: "123"})
			return err
		}, map[string]any{"new_pin": "12a4", "cvv": "123"}, "", ""),
	cardPostRow("both current_pin and cvv", "exactly one of current_pin or cvv (invalid_fields)", "pin",
		func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Cards.SetPIN(ctx, checkMember, e.cardID(), cards.SetPINParams{NewPIN: "1234", CurrentPIN: "4321", CVV: "123"})
			return err
		}, map[string]any{"new_pin": "1234", "current_pin": "4321", "cvv": "123"}, "", ""),
	cardPostRow("cvv two digits", "cvv three digits (invalid_fields)", "pin",
		func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Cards.SetPIN(ctx, checkMember, e.cardID(), cards.SetPINParams{NewPIN: "1234", CVV: "12"})
			return err
		}, map[string]any{"new_pin": "1234", "cvv": "12"}, "", ""),
	cardPostRow("expiry missing", "expiry string MM/YY required; pin required (invalid_request)", "activate",
		func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Cards.Activate(ctx, checkMember, e.physicalCard(), cards.ActivateParams{PIN: "135790"})
			return err
		}, map[string]any{"pin": "135790"}, "", ""),
	cardPostRow("pin missing", "expiry string MM/YY required; pin required (invalid_request)", "activate",
		func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Cards.Activate(ctx, checkMember, e.physicalCard(), cards.ActivateParams{Expiry: "12/30"})
			return err
		}, map[string]any{"expiry": "12/30"}, "", ""),
	cardPostRow("pin not digits", "pin digits", "activate",
		func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Cards.Activate(ctx, checkMember, e.physicalCard(), cards.ActivateParams{Expiry: "12/30", PIN: "13a790"})
			return err
		}, map[string]any{"expiry": "12/30", "pin": "13a790"}, "", ""),
	cardPostRow("expiry 13/30", "expiry MM/YY", "activate",
		func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Cards.Activate(ctx, checkMember, e.physicalCard(), cards.ActivateParams{Expiry: "13/30", PIN: "135790"})
			return err
		}, map[string]any{"expiry": "13/30", "pin": "135790"},
		"the service counts a malformed expiry as a failed activation (three lock the card for 24 hours); the SDK refuses it uncounted", mwallet.CodeCardActivateFailed),
	cardPostRow("kind misplaced", "kind lost or stolen (unrecognised values are treated as lost)", "lost",
		func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Cards.ReportLost(ctx, checkMember, e.physicalCard(), "misplaced")
			return err
		}, map[string]any{"kind": "misplaced"},
		"the service reports a mistyped kind as lost; the SDK refuses the typo", ""),

	// QR payments.
	qrRow("code_value missing", "code_value required (invalid_request)", "/v1/qrpay/decode",
		func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.QRPay.Decode(ctx, checkMember, qrpay.DecodeParams{})
			return err
		}, map[string]any{"code_value": ""}),
	qrRow("code_value missing", "code_value required (invalid_request)", "/v1/qrpay/quotes",
		func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.QRPay.Quote(ctx, checkMember, qrpay.QuoteParams{})
			return err
		}, map[string]any{"code_value": ""}),

	qrQuoteRow("currency thb (lower case)", "currency an ISO 4217 alphabetic code (invalid_request)", qrpay.QuoteParams{Currency: "thb", Amount: "150.25"}),
	qrQuoteRow("amount 1e2", "amount a plain decimal string (invalid_request)", qrpay.QuoteParams{Currency: "THB", Amount: "1e2"}),
	qrQuoteRow("amount -150.25", "amount a positive decimal (invalid_request)", qrpay.QuoteParams{Currency: "THB", Amount: "-150.25"}),
	qrQuoteRow("amount 150.2500 (extra zero decimals)", "amount at the currency's precision; extra zero decimals accepted", qrpay.QuoteParams{Currency: "THB", Amount: "150.2500"}),
	qrQuoteRow("amount 150.251 (extra non-zero decimal)", "amount at the currency's precision (invalid_request)", qrpay.QuoteParams{Currency: "THB", Amount: "150.251"}),
	qrQuoteRow("preferred_asset \" USDT\"", "preferred_asset an asset code", qrpay.QuoteParams{Currency: "THB", Amount: "150.25", PreferredAsset: " USDT"}),
	{name: "GET /v1/qrpay/orders/{id} id with a slash", rule: "order id qrp_<id>",
		sdk: func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.QRPay.Order(ctx, checkMember, "qrp_a/b")
			return err
		},
		raw: func(e *checkEnv) *mwallet.Request {
			return &mwallet.Request{Method: http.MethodGet, Path: "/v1/qrpay/orders/qrp_a%2Fb", MemberScoped: true, Member: checkMember}
		}},

	// Members and KYC.
	{name: "GET /v1/members/{id} external_member_id", rule: "GET /v1/members/mem_<id>: the internal member id",
		sdk: func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Members.Get(ctx, checkMember)
			return err
		},
		raw: func(e *checkEnv) *mwallet.Request {
			return &mwallet.Request{Method: http.MethodGet, Path: "/v1/members/" + checkMember}
		}},
	{name: "POST /v1/kyc/quick email not an address", rule: "quick_kyc_email an e-mail address",
		sdk: func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.KYC.CreateQuickBinding(ctx, checkMember, kyc.QuickBindingParams{Email: "not an address"})
			return err
		},
		raw: func(e *checkEnv) *mwallet.Request {
			return &mwallet.Request{Method: http.MethodPost, Path: "/v1/kyc/quick", MemberScoped: true, Member: checkMember, Body: map[string]any{"email": "not an address"}, Idempotent: true}
		}},

	// Remittances.
	remitRow("purpose_code family support", "purpose_code one of the fixed enumerated codes",
		remitParams(func(p *remittance.CreateParams) { p.PurposeCode = "family support" }), remitWire(func(_ *checkEnv, b map[string]any) { b["purpose_code"] = "family support" }), ""),
	remitRow("payee_id not digits", "payee_id: optional pye_ prefix, remainder digits only (invalid_request)",
		remitParams(func(p *remittance.CreateParams) { p.PayeeID = "pye_12x" }), remitWire(func(_ *checkEnv, b map[string]any) { b["payee_id"] = "pye_12x" }), ""),
	remitRow("slippage_bps 49", "slippage_bps 50 to 1000, else invalid_fields",
		remitParams(func(p *remittance.CreateParams) { p.SlippageBps = 49 }), remitWire(func(_ *checkEnv, b map[string]any) { b["slippage_bps"] = 49 }), ""),
	remitRow("slippage_bps 1001", "slippage_bps 50 to 1000, else invalid_fields",
		remitParams(func(p *remittance.CreateParams) { p.SlippageBps = 1001 }), remitWire(func(_ *checkEnv, b map[string]any) { b["slippage_bps"] = 1001 }), ""),
	remitRow("purpose_code missing", "purpose_code required",
		remitParams(func(p *remittance.CreateParams) { p.PurposeCode = "" }), remitWire(func(_ *checkEnv, b map[string]any) { delete(b, "purpose_code") }), ""),
	remitRow("funding_source unknown", "funding_source member or merchant (invalid_fields)",
		remitParams(func(p *remittance.CreateParams) { p.FundingSource = "bank" }), remitWire(func(_ *checkEnv, b map[string]any) { b["funding_source"] = "bank" }), ""),
	remitRow("payout_amount GBP 10.251", "payout_amount precision exactly that of the currency (invalid_request)",
		remitParams(func(p *remittance.CreateParams) { p.PayoutAmount = "10.251" }), remitWire(func(_ *checkEnv, b map[string]any) { b["payout_amount"] = "10.251" }), ""),
	remitRow("payout_amount GBP 10.5", "payout_amount precision exactly that of the currency (invalid_request)",
		remitParams(func(p *remittance.CreateParams) { p.PayoutAmount = "10.5" }), remitWire(func(_ *checkEnv, b map[string]any) { b["payout_amount"] = "10.5" }), ""),
	{name: "GET /v1/remit/quotes slippage_bps 1001", rule: "slippage_bps 50 to 1000, else invalid_fields",
		sdk: func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Remittances.Quote(ctx, checkMember, remittance.QuoteParams{PayeeID: e.payeeID(), PayoutAmount: "10.25", PayoutCurrency: "GBP", SlippageBps: 1001})
			return err
		},
		raw: func(e *checkEnv) *mwallet.Request {
			return &mwallet.Request{Method: http.MethodGet, Path: "/v1/remit/quotes", MemberScoped: true, Member: checkMember,
				Query: url.Values{"payee_id": {e.payeeID()}, "payout_amount": {"10.25"}, "slippage_bps": {"1001"}}}
		}},
	{name: "GET /v1/remit/quotes payout_amount GBP 10.251", rule: "payout_amount precision exactly that of the currency (invalid_request)",
		sdk: func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Remittances.Quote(ctx, checkMember, remittance.QuoteParams{PayeeID: e.payeeID(), PayoutAmount: "10.251", PayoutCurrency: "GBP"})
			return err
		},
		raw: func(e *checkEnv) *mwallet.Request {
			return &mwallet.Request{Method: http.MethodGet, Path: "/v1/remit/quotes", MemberScoped: true, Member: checkMember,
				Query: url.Values{"payee_id": {e.payeeID()}, "payout_amount": {"10.251"}}}
		}},
	{name: "GET /v1/remit/conversion-dates payout_currency GBPX", rule: "payout_currency an ISO 4217 code",
		sdk: func(ctx context.Context, e *checkEnv) error {
			_, err := mwallet.Collect(e.c.Remittances.ConversionDates(ctx, "GBPX"))
			return err
		},
		raw: func(e *checkEnv) *mwallet.Request {
			return &mwallet.Request{Method: http.MethodGet, Path: "/v1/remit/conversion-dates", Query: url.Values{"payout_currency": {"GBPX"}}}
		}},
	{name: "POST /v1/remit/payees holder_name missing", rule: "payee fields required (invalid_fields)",
		sdk: func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Remittances.CreatePayee(ctx, checkMember, remittance.PayeeParams{Country: "GB", Currency: "GBP", AccountNumber: "12345678", BankCode: "400000"})
			return err
		},
		raw: func(e *checkEnv) *mwallet.Request {
			return &mwallet.Request{Method: http.MethodPost, Path: "/v1/remit/payees", MemberScoped: true, Member: checkMember, Idempotent: true,
				Body: map[string]any{"country": "GB", "currency": "GBP", "account_number": "12345678", "bank_code": "400000"}}
		}},
	{name: "POST /v1/remit/vp/applications/query no member", rule: "VP batch query: 1 to 100 members",
		sdk: func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Remittances.QueryVPApplications(ctx, nil)
			return err
		},
		raw: func(e *checkEnv) *mwallet.Request {
			return &mwallet.Request{Method: http.MethodPost, Path: "/v1/remit/vp/applications/query", Body: map[string][]string{"members": {}}}
		}},
	{name: "POST /v1/remit/vp/applications/query 101 members", rule: "VP batch query: 1 to 100 members",
		sdk: func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Remittances.QueryVPApplications(ctx, slices.Repeat([]string{checkMember}, 101))
			return err
		},
		raw: func(e *checkEnv) *mwallet.Request {
			return &mwallet.Request{Method: http.MethodPost, Path: "/v1/remit/vp/applications/query", Body: map[string][]string{"members": slices.Repeat([]string{checkMember}, 101)}}
		}},
	{name: "GET /v1/remittances/{id} id with a slash", rule: "order id rmt_<uuid>",
		sdk: func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Remittances.Get(ctx, checkMember, "rmt_a/b")
			return err
		},
		raw: func(e *checkEnv) *mwallet.Request {
			return &mwallet.Request{Method: http.MethodGet, Path: "/v1/remittances/rmt_a%2Fb", MemberScoped: true, Member: checkMember}
		}},
	{name: "GET /v1/cards/{id} id with a slash", rule: "card id crd_<id>",
		sdk: func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Cards.Get(ctx, checkMember, "crd_a/b")
			return err
		},
		raw: func(e *checkEnv) *mwallet.Request {
			return &mwallet.Request{Method: http.MethodGet, Path: "/v1/cards/crd_a%2Fb", MemberScoped: true, Member: checkMember}
		}},
	cardPostRow("current_pin not digits", "current_pin digits (invalid_fields)", "pin",
		func(ctx context.Context, e *checkEnv) error {
			_, err := e.c.Cards.SetPIN(ctx, checkMember, e.cardID(), cards.SetPINParams{NewPIN: "135790", CurrentPIN: "12a4"})
			return err
		}, map[string]any{"new_pin": "135790", "current_pin": "12a4"}, "", ""),
	remitRow("payout_amount GBP 10.5 without PayoutCurrency", "payout_amount precision exactly that of the payee's currency (invalid_request); checked by the service when the SDK is not told the currency",
		remitParams(func(p *remittance.CreateParams) { p.PayoutAmount, p.PayoutCurrency = "10.5", "" }), remitWire(func(_ *checkEnv, b map[string]any) { b["payout_amount"] = "10.5" }), ""),
	remitRow("line Express (wrong case)", "line express or pobo; unrecognised falls back to express",
		remitParams(func(p *remittance.CreateParams) { p.Line = "Express" }), remitWire(func(_ *checkEnv, b map[string]any) { b["line"] = "Express" }),
		"the service silently uses express for an unrecognised line; the SDK refuses the typo"),
}

// decision is what became of one input: refused before sending (Local)
// or answered by the service, with the code ("" for a success).
type decision struct {
	Local bool
	Code  mwallet.Code
}

func decide(t *testing.T, err error) decision {
	t.Helper()
	var pe *mwallet.ParamError
	var ae *mwallet.Error
	switch {
	case err == nil:
		return decision{}
	case errors.As(err, &pe):
		return decision{Local: true, Code: pe.Code}
	case errors.As(err, &ae):
		return decision{Code: ae.Code}
	}
	t.Fatalf("neither a *mwallet.ParamError nor a *mwallet.Error: %v", err)
	return decision{}
}

// businessRequests counts the requests other than token exchange and the
// asset catalogue.
func businessRequests(sim *simulator.Simulator) int {
	n := 0
	for _, r := range sim.Requests.List() {
		if r.Path != "/v1/connect/token" && r.Path != "/v1/assets" {
			n++
		}
	}
	return n
}

// TestLocalChecksMatchTheService runs every row of localChecks three ways
// on its own simulator: through the SDK on a client that has not loaded the
// asset catalogue, through the SDK on one that has, and as it is
// (Client.Do) for the simulator's own decision. The two SDK answers are the
// same; a local refusal sends nothing and carries the code the simulator
// answers for the same input; an input the SDK lets through gets the
// simulator's answer. Guard rows are refused by the SDK both ways while
// the simulator accepts them (their reason says why).
func TestLocalChecksMatchTheService(t *testing.T) {
	t.Parallel()
	for _, row := range localChecks {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t)
			ctx := context.Background()
			e := &checkEnv{t: t, sim: sim, c: sim.Client()}
			if row.raw(e) == nil {
				t.Fatal("no raw request")
			}
			var got [2]decision
			for i, cached := range []bool{false, true} {
				c := sim.Client()
				if cached {
					if _, err := c.Assets(ctx); err != nil {
						t.Fatal(err)
					}
				}
				before := businessRequests(sim)
				got[i] = decide(t, row.sdk(ctx, &checkEnv{t: t, sim: sim, c: c, card: e.card, payee: e.payee}))
				if sent := businessRequests(sim) - before; got[i].Local && sent != 0 {
					t.Errorf("cached=%v: refused locally but %d requests sent", cached, sent)
				}
			}
			if diff := cmp.Diff(got[0], got[1]); diff != "" {
				t.Fatalf("the SDK's decision depends on the cached catalogue (-not cached +cached):\n%s", diff)
			}
			req := row.raw(e)
			_, err := e.c.Do(ctx, req, nil)
			if su, ok := mwallet.AsStepUp(err); ok {
				// The service decides on this input after the step-up:
				// complete it and resend.
				if err := sim.StepUp.Complete(su.ChallengeID); err != nil {
					t.Fatal(err)
				}
				_, err = e.c.Do(ctx, req, nil, mwallet.StepUpResend(err)...)
			}
			service := decide(t, err)
			if row.guard != "" {
				if !got[0].Local || service.Code != row.serviceCode {
					t.Errorf("guard row: SDK %+v, service %+v; want a local refusal of what the service accepts (%s)", got[0], service, row.guard)
				}
				return
			}
			if diff := cmp.Diff(service.Code, got[0].Code); diff != "" {
				t.Errorf("SDK %+v, service %+v: codes differ (-service +SDK):\n%s", got[0], service, diff)
			}
		})
	}
}
