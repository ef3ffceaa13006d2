package deposits_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

const member1 = simulator.DefaultMemberExternalID

func usdt(s string) money.Amount { return money.MustParse(s, 6) }

func TestCreateRejectedLocally(t *testing.T) {
	t.Parallel()
	_, c := simtest.New(t)
	valid := deposits.CreateParams{Asset: "USDT", Amount: usdt("5"), Reference: "ref-1"}
	tests := []struct {
		name  string
		edit  func(p *deposits.CreateParams)
		param string
		code  mwallet.Code
	}{
		{"asset missing", func(p *deposits.CreateParams) { p.Asset = " " }, "Asset", mwallet.CodeInvalidRequest},
		{"amount zero", func(p *deposits.CreateParams) { p.Amount = usdt("0") }, "Amount", mwallet.CodeInvalidRequest},
		{"amount negative", func(p *deposits.CreateParams) { p.Amount = usdt("-1") }, "Amount", mwallet.CodeInvalidRequest},
		{"reference missing", func(p *deposits.CreateParams) { p.Reference = "" }, "Reference", mwallet.CodeInvalidRequest},
		{"reference 121", func(p *deposits.CreateParams) { p.Reference = strings.Repeat("r", 121) }, "Reference", mwallet.CodeInvalidRequest},
		{"network 33", func(p *deposits.CreateParams) { p.Network = strings.Repeat("N", 33) }, "Network", mwallet.CodeInvalidFields},
		{"txid 129", func(p *deposits.CreateParams) { p.Network, p.TxID = "TRON", strings.Repeat("a", 129) }, "TxID", mwallet.CodeInvalidFields},
		{"from 201", func(p *deposits.CreateParams) { p.Network, p.FromAddress = "TRON", strings.Repeat("a", 201) }, "FromAddress", mwallet.CodeInvalidFields},
		{"to 201", func(p *deposits.CreateParams) { p.Network, p.ToAddress = "TRON", strings.Repeat("a", 201) }, "ToAddress", mwallet.CodeInvalidFields},
		{"txid without network", func(p *deposits.CreateParams) { p.TxID = "0xabc" }, "Network", mwallet.CodeInvalidFields},
		{"address without network", func(p *deposits.CreateParams) { p.ToAddress = "T9yD" }, "Network", mwallet.CodeInvalidFields},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := valid
			tt.edit(&p)
			_, err := c.Deposits.Create(context.Background(), member1, p)
			var pe *mwallet.ParamError
			if !errors.As(err, &pe) || pe.Param != tt.param || pe.Code != tt.code {
				t.Fatalf("err = %v, want ParamError %s %s", err, tt.param, tt.code)
			}
		})
	}
	if _, err := c.Deposits.Create(context.Background(), " ", valid); mwallet.CodeOf(err) != mwallet.CodeMemberContextRequired {
		t.Fatalf("blank member: %v", err)
	}
}

func rawDeposit(c *mwclient.Client, member string, body map[string]any) error {
	_, err := c.Do(context.Background(), &mwallet.Request{Method: http.MethodPost, Path: "/v1/deposits", MemberScoped: true, Member: member, Body: body, Idempotent: true}, nil)
	return err
}

func TestCreateRejectedByService(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t,
		simulator.WithMember(simulator.MemberSeed{ExternalID: "banned", KYCLevel: 1}),
		simulator.WithMember(simulator.MemberSeed{ExternalID: "frozen", KYCLevel: 1}),
		simulator.WithMember(simulator.MemberSeed{ExternalID: "blocked", KYCLevel: 1}),
	)
	for m, st := range map[string]string{"banned": "banned", "frozen": "frozen", "blocked": "blocklisted"} {
		if err := sim.Members.SetStatus(m, st); err != nil {
			t.Fatal(err)
		}
	}
	body := func(edit func(m map[string]any)) map[string]any {
		m := map[string]any{"asset": "USDT", "amount": "5", "reference": "srv-1"}
		edit(m)
		return m
	}
	tests := []struct {
		name   string
		member string
		edit   func(m map[string]any)
		code   mwallet.Code
		field  string
	}{
		{"asset missing", member1, func(m map[string]any) { delete(m, "asset") }, mwallet.CodeInvalidRequest, ""},
		{"amount missing", member1, func(m map[string]any) { delete(m, "amount") }, mwallet.CodeInvalidRequest, ""},
		{"reference missing", member1, func(m map[string]any) { delete(m, "reference") }, mwallet.CodeInvalidRequest, ""},
		{"amount as number", member1, func(m map[string]any) { m["amount"] = 5 }, mwallet.CodeInvalidRequest, ""},
		{"amount extra non-zero decimal", member1, func(m map[string]any) { m["amount"] = "1.0000001" }, mwallet.CodeInvalidRequest, ""},
		{"amount zero", member1, func(m map[string]any) { m["amount"] = "0.000000" }, mwallet.CodeInvalidRequest, ""},
		{"amount negative", member1, func(m map[string]any) { m["amount"] = "-1" }, mwallet.CodeInvalidRequest, ""},
		{"amount exponent", member1, func(m map[string]any) { m["amount"] = "1e3" }, mwallet.CodeInvalidRequest, ""},
		{"reference 121", member1, func(m map[string]any) { m["reference"] = strings.Repeat("x", 121) }, mwallet.CodeInvalidRequest, ""},
		{"asset unknown", member1, func(m map[string]any) { m["asset"] = "doge" }, mwallet.CodeAssetNotAllowed, ""},
		{"network 33", member1, func(m map[string]any) { m["network"] = strings.Repeat("n", 33) }, mwallet.CodeInvalidFields, "network"},
		{"txid without network", member1, func(m map[string]any) { m["txid"] = "0xabc" }, mwallet.CodeInvalidFields, "network"},
		{"txid 129", member1, func(m map[string]any) { m["network"], m["txid"] = "TRON", strings.Repeat("t", 129) }, mwallet.CodeInvalidFields, "txid"},
		{"from_address 201", member1, func(m map[string]any) { m["network"], m["from_address"] = "TRON", strings.Repeat("f", 201) }, mwallet.CodeInvalidFields, "from_address"},
		{"to_address 201", member1, func(m map[string]any) { m["network"], m["to_address"] = "TRON", strings.Repeat("f", 201) }, mwallet.CodeInvalidFields, "to_address"},
		{"single limit", member1, func(m map[string]any) { m["amount"] = "100000.000001" }, mwallet.CodeLimitExceeded, ""},
		{"banned member", "banned", func(map[string]any) {}, mwallet.CodeRequestRejected, ""},
		{"frozen member", "frozen", func(map[string]any) {}, mwallet.CodeRequestRejected, ""},
		{"blocklisted member", "blocked", func(map[string]any) {}, mwallet.CodeMemberNotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := simtest.WantCode(t, rawDeposit(c, tt.member, body(tt.edit)), tt.code)
			if tt.field != "" && (len(e.Fields) == 0 || e.Fields[0].Key != tt.field) {
				t.Fatalf("fields %+v, want first key %s", e.Fields, tt.field)
			}
			if tt.code == mwallet.CodeLimitExceeded && (e.LimitType != "single" || e.LimitScope != "merchant") {
				t.Fatalf("limit %s/%s", e.LimitType, e.LimitScope)
			}
		})
	}
	if got := simtest.Journal(t, sim, simulator.AccountMerchantCustody, "USDT"); got != "0" {
		t.Fatalf("custody moved to %s by refused deposits", got)
	}
	for d, err := range c.Deposits.List(context.Background(), deposits.ListParams{}) {
		t.Fatalf("deposit stored after refusals: %+v %v", d, err)
	}
}

func TestReplayByReferenceUnderNewKey(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t, simulator.WithMember(simulator.MemberSeed{ExternalID: "member-2", KYCLevel: 1}))
	ctx := context.Background()
	first, err := c.Deposits.Create(ctx, member1, deposits.CreateParams{
		Asset: "usdt", Amount: usdt("250.5"), Reference: "chain:TRON:0xfeed:0",
		Network: "tron", TxID: "0xfeed", ToAddress: "TXYZaddr",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := &deposits.Deposit{
		ID: "dep_chain:TRON:0xfeed:0", Reference: "chain:TRON:0xfeed:0", ExternalMemberID: member1,
		Asset: "USDT", Amount: usdt("250.5"), LedgerScale: 6, Status: deposits.StatusCredited,
		Network: "TRON", TxID: "0xfeed", ToAddress: "TXYZaddr",
	}
	opts := []cmp.Option{cmp.Comparer(money.Amount.Equal), cmpopts.IgnoreFields(deposits.Deposit{}, "Response")}
	if diff := cmp.Diff(want, first, opts...); diff != "" {
		t.Fatalf("first (-want +got):\n%s", diff)
	}
	if first.Response.StatusCode != http.StatusCreated || first.Replayed {
		t.Fatalf("first: status %d replayed %v", first.Response.StatusCode, first.Replayed)
	}
	// The same reference again, with a new idempotency key, another member
	// and other values: nothing is credited, the first values come back.
	again, err := c.Deposits.Create(ctx, "member-2", deposits.CreateParams{Asset: "USDC", Amount: money.MustParse("999", 6), Reference: "chain:TRON:0xfeed:0"})
	if err != nil {
		t.Fatal(err)
	}
	want.Replayed = true
	if diff := cmp.Diff(want, again, opts...); diff != "" {
		t.Fatalf("replay (-want +got):\n%s", diff)
	}
	if again.Response.StatusCode != http.StatusOK || again.Response.IdempotencyKey == first.Response.IdempotencyKey {
		t.Fatalf("replay: status %d, keys %s / %s", again.Response.StatusCode, first.Response.IdempotencyKey, again.Response.IdempotencyKey)
	}
	if got := simtest.Available(t, sim, member1, "USDT"); got != "1250.500000" {
		t.Fatalf("member-1 USDT %s", got)
	}
	if got := simtest.Available(t, sim, "member-2", "USDC"); got != "0" {
		t.Fatalf("member-2 USDC %s", got)
	}
	if got := simtest.Journal(t, sim, simulator.AccountMerchantCustody, "USDT"); got != "-250.500000" {
		t.Fatalf("custody %s", got)
	}
	if got := simtest.Journal(t, sim, simulator.AccountMerchantPrepaid, "USDT"); got != "100000.000000" {
		t.Fatalf("prepaid %s: deposits must not touch it", got)
	}
	var credited []simulator.Event
	for _, e := range sim.Events.List() {
		if e.Type == "deposit.credited" {
			credited = append(credited, e)
		}
	}
	if len(credited) != 1 || credited[0].Object != "deposit" || credited[0].Status != "credited" || credited[0].StatusVersion != 0 || credited[0].ExternalMemberID != member1 {
		t.Fatalf("events %+v", credited)
	}
	if _, err := strconv.ParseInt(credited[0].ObjectID, 10, 64); err != nil {
		t.Fatalf("deposit event data.id %q is not numeric", credited[0].ObjectID)
	}
}

func TestSameKeySameBodyReplays(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	key := "0d3b8a7e-5c1f-4e2a-9b6d-7f8e9a0b1c2d"
	p := deposits.CreateParams{Asset: "BTC", Amount: money.MustParse("0.5", 8), Reference: "btc-1"}
	for i := 0; i < 2; i++ {
		if _, err := c.Deposits.Create(ctx, member1, p, mwallet.WithIdempotencyKey(key)); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if got := simtest.Available(t, sim, member1, "BTC"); got != "0.50000000" {
		t.Fatalf("BTC %s", got)
	}
	p.Amount = money.MustParse("0.6", 8)
	_, err := c.Deposits.Create(ctx, member1, p, mwallet.WithIdempotencyKey(key))
	simtest.WantCode(t, err, mwallet.CodeIdempotencyKeyReused)
}

func TestPlatformOnlyCheckedBeforeReplay(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	key := "5a1e0c9b-3f4d-4b7a-8e2c-1d0f9e8a7b6c"
	p := deposits.CreateParams{Asset: "USDT", Amount: usdt("10"), Reference: "before-switch"}
	first, err := c.Deposits.Create(ctx, member1, p, mwallet.WithIdempotencyKey(key))
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Deposits.Create(ctx, member1, p, mwallet.WithIdempotencyKey(key))
	if err != nil || !again.Response.Replayed || again.ID != first.ID {
		t.Fatalf("replay before the switch: %+v %v", again, err)
	}
	if err := sim.Merchant.Set(simulator.MerchantSettings{Model: simulator.MerchantHosted}); err != nil {
		t.Fatal(err)
	}
	// The stored 201 is not replayed: the platform-only rule comes first,
	// with the same key, a new key and another reference alike.
	for _, opt := range []mwallet.CallOption{mwallet.WithIdempotencyKey(key), nil} {
		_, err = c.Deposits.Create(ctx, member1, p, opt)
		simtest.WantCode(t, err, mwallet.CodeInsufficientScope)
	}
	p.Reference = "after-switch"
	_, err = c.Deposits.Create(ctx, member1, p)
	simtest.WantCode(t, err, mwallet.CodeInsufficientScope)
	if got := simtest.Available(t, sim, member1, "USDT"); got != "1010.000000" {
		t.Fatalf("member USDT %s", got)
	}
}

func TestDailyLimit(t *testing.T) {
	t.Parallel()
	_, c := simtest.New(t)
	ctx := context.Background()
	for i, amt := range []string{"100000", "100000", "50000"} {
		if _, err := c.Deposits.Create(ctx, member1, deposits.CreateParams{Asset: "USDT", Amount: usdt(amt), Reference: "d" + strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.Deposits.Create(ctx, member1, deposits.CreateParams{Asset: "USDT", Amount: usdt("0.000001"), Reference: "d3"})
	e := simtest.WantCode(t, err, mwallet.CodeLimitExceeded)
	if e.LimitType != "daily" || e.LimitScope != "merchant" {
		t.Fatalf("limit %s/%s", e.LimitType, e.LimitScope)
	}
}

func TestMerchantHostedRefused(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t, simulator.WithModel(simulator.MerchantHosted))
	_, err := c.Deposits.Create(context.Background(), member1, deposits.CreateParams{Asset: "USDT", Amount: usdt("1"), Reference: "mh-1"})
	simtest.WantCode(t, err, mwallet.CodeInsufficientScope)
	if got := simtest.Journal(t, sim, simulator.AccountMerchantCustody, "USDT"); got != "0" {
		t.Fatalf("custody %s", got)
	}
}

func TestGetAndList(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	refs := []string{"plain-1", "with/slash", "dep_looks-like-an-id", "spaces and ?#%"}
	for _, r := range refs {
		if _, err := c.Deposits.Create(ctx, member1, deposits.CreateParams{Asset: "ETH", Amount: money.MustParse("0.000000000000000001", 18), Reference: r}); err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		sim.Clock.Advance(1)
	}
	for _, r := range refs {
		d, err := c.Deposits.Get(ctx, r)
		if err != nil {
			t.Fatalf("Get(%q): %v", r, err)
		}
		if d.Reference != r || d.ID != deposits.ID(r) || d.Amount.Scale() != 18 || d.Replayed {
			t.Fatalf("Get(%q) = %+v", r, d)
		}
	}
	for _, r := range []string{"missing", "missing/with-slash"} {
		_, err := c.Deposits.Get(ctx, r)
		simtest.WantCode(t, err, mwallet.CodeNotFound)
	}
	var got []string
	for d, err := range c.Deposits.List(ctx, deposits.ListParams{ListParams: mwallet.ListParams{Limit: 1}}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, d.Reference)
	}
	if diff := cmp.Diff([]string{refs[3], refs[2], refs[1], refs[0]}, got); diff != "" {
		t.Fatalf("newest first (-want +got):\n%s", diff)
	}
	got = nil
	for d, err := range c.Deposits.List(ctx, deposits.ListParams{Reference: "with/slash"}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, d.Reference)
	}
	if diff := cmp.Diff([]string{"with/slash"}, got); diff != "" {
		t.Fatalf("by reference (-want +got):\n%s", diff)
	}
}

func TestScopes(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	ctx := context.Background()
	p := deposits.CreateParams{Asset: "USDT", Amount: usdt("1"), Reference: "scoped"}
	// deposits:write is restricted: without operator approval it is not effective.
	if err := sim.Keys.Set(simulator.DefaultClientID, simulator.KeySettings{ApproveRestricted: simulator.Bool(false)}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Deposits.Create(ctx, member1, p)
	simtest.WantCode(t, err, mwallet.CodeInsufficientScope)
	_, err = c.Deposits.Get(ctx, "scoped")
	simtest.WantCode(t, err, mwallet.CodeInsufficientScope)
	if err := sim.Keys.Set(simulator.DefaultClientID, simulator.KeySettings{ApproveRestricted: simulator.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Deposits.Create(ctx, member1, p); err != nil {
		t.Fatal(err)
	}
}

// The asset and amount rules the service applies to accepted deposits: the
// asset is upper-cased and must be explicitly enabled when the merchant has an
// allowlist; extra decimals are accepted only when they are all zero; the
// network is upper-cased. Refusals move nothing.
func TestAssetAllowlistAndAmountExactness(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		allowlist []string
		body      map[string]any
		code      mwallet.Code // "" when the deposit is credited
		asset     string
		amount    string
		network   string
	}{
		{name: "lower-case asset is upper-cased", body: map[string]any{"asset": "usdc", "amount": "5", "reference": "a-1"},
			asset: "USDC", amount: "5.000000"},
		{name: "extra zero decimals accepted", body: map[string]any{"asset": "USDT", "amount": "1.50000000000", "reference": "a-2"},
			asset: "USDT", amount: "1.500000"},
		{name: "network upper-cased", body: map[string]any{"asset": "USDT", "amount": "2", "reference": "a-3", "network": "tron", "txid": "0xabc"},
			asset: "USDT", amount: "2.000000", network: "TRON"},
		{name: "asset on the allowlist", allowlist: []string{"USDT"}, body: map[string]any{"asset": "usdt", "amount": "3", "reference": "a-4"},
			asset: "USDT", amount: "3.000000"},
		{name: "catalogue asset missing from the allowlist", allowlist: []string{"USDT"}, body: map[string]any{"asset": "USDC", "amount": "3", "reference": "a-5"},
			code: mwallet.CodeAssetNotAllowed},
		{name: "extra non-zero decimal at a scale-8 asset", body: map[string]any{"asset": "BTC", "amount": "0.000000001", "reference": "a-6"},
			code: mwallet.CodeInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sim, c := simtest.New(t)
			if tt.allowlist != nil {
				if err := sim.Merchant.Set(simulator.MerchantSettings{AssetAllowlist: tt.allowlist}); err != nil {
					t.Fatal(err)
				}
			}
			before := map[string]string{}
			for _, a := range []string{"USDT", "USDC", "BTC"} {
				before[a] = simtest.Available(t, sim, member1, a)
			}
			err := rawDeposit(c, member1, tt.body)
			if tt.code != "" {
				simtest.WantCode(t, err, tt.code)
				for a, want := range before {
					if got := simtest.Available(t, sim, member1, a); got != want {
						t.Errorf("%s available %s -> %s after a refusal", a, want, got)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("deposit: %v", err)
			}
			d, err := c.Deposits.Get(context.Background(), tt.body["reference"].(string))
			if err != nil {
				t.Fatal(err)
			}
			if d.Asset != tt.asset || d.Amount.String() != tt.amount || d.Network != tt.network {
				t.Fatalf("deposit %s %s network %q, want %s %s network %q", d.Asset, d.Amount, d.Network, tt.asset, tt.amount, tt.network)
			}
			prev, err := money.Parse(before[tt.asset], 6)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := prev.Add(usdt(tt.amount))
			if got := simtest.Available(t, sim, member1, tt.asset); got != want.String() {
				t.Errorf("%s available %s, want %s", tt.asset, got, want)
			}
		})
	}
}
