package mwclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/cards"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/money"
	"github.com/mwallet/mwallet-go/mwclient"
	"github.com/mwallet/mwallet-go/simulator"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// assetAmountCall is one SDK method that sends a money.Amount in an asset of
// the catalogue: call sends amount in asset (USDT) through it.
type assetAmountCall struct {
	name string // Type.Method.ParamsField, as found by reflection
	call func(ctx context.Context, c *mwclient.Client, amount money.Amount) error
}

// assetAmountCalls lists every such method; TestEveryAssetAmountIsListed
// fails when a params struct gains a money.Amount this list misses.
var assetAmountCalls = []assetAmountCall{
	{"*deposits.Client.Create.Amount", func(ctx context.Context, c *mwclient.Client, x money.Amount) error {
		_, err := c.Deposits.Create(ctx, "member-1", deposits.CreateParams{Asset: "USDT", Amount: x, Reference: "scale-check"})
		return err
	}},
	{"*cards.Client.Apply.FirstTopUp", func(ctx context.Context, c *mwclient.Client, x money.Amount) error {
		_, err := c.Cards.Apply(ctx, "member-1", cards.ApplyParams{ClientKey: cards.NewClientKey(), SourceAsset: "USDT", ProductID: "cpd_virtual_std", FirstTopUp: x})
		return err
	}},
	{"*cards.Client.TopUp.Amount", func(ctx context.Context, c *mwclient.Client, x money.Amount) error {
		_, err := c.Cards.TopUp(ctx, "member-1", "crd_scale-check", cards.TopUpParams{Amount: x, SourceAsset: "USDT"})
		return err
	}},
	{"*cards.Client.EstimateTopUp.Amount", func(ctx context.Context, c *mwclient.Client, x money.Amount) error {
		_, err := c.Cards.EstimateTopUp(ctx, "member-1", "crd_scale-check", cards.EstimateParams{Amount: x, SourceAsset: "USDT"})
		return err
	}},
}

// TestEveryAssetAmountIsListed finds, by reflection over every method of
// every product line, the params fields of type money.Amount, and holds
// them against assetAmountCalls. Amounts of the answers (quotes, balances)
// are not parameters and are not concerned; fiat amounts of the other side
// (QR, remittance payouts) are strings at their currency's precision.
func TestEveryAssetAmountIsListed(t *testing.T) {
	t.Parallel()
	c, err := mwclient.New("https://api.example.com", mwallet.Credentials{ClientID: "c", APIKey: "k", SigningKey: "s"})
	if err != nil {
		t.Fatal(err)
	}
	amountType := reflect.TypeOf(money.Amount{})
	var found []string
	v := reflect.ValueOf(*c)
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).Name == "Client" {
			continue
		}
		typ := v.Field(i).Type()
		for j := 0; j < typ.NumMethod(); j++ {
			m := typ.Method(j)
			for k := 1; k < m.Type.NumIn(); k++ {
				in := m.Type.In(k)
				if in.Kind() != reflect.Struct {
					continue
				}
				for f := 0; f < in.NumField(); f++ {
					ft := in.Field(f).Type
					if ft == amountType || ft.Kind() == reflect.Pointer && ft.Elem() == amountType {
						found = append(found, typ.String()+"."+m.Name+"."+in.Field(f).Name)
					}
				}
			}
		}
	}
	var listed []string
	for _, a := range assetAmountCalls {
		listed = append(listed, a.name)
	}
	sort.Strings(found)
	sort.Strings(listed)
	if diff := cmp.Diff(listed, found); diff != "" {
		t.Errorf("methods taking an asset amount (-assetAmountCalls +found by reflection):\n%s", diff)
	}
}

// TestAssetAmountScaleIsCheckedBeforeSending proves the rule of
// mwallet.AssetAmount on every method that sends an asset amount, on a
// client that has cached the catalogue and on one that has not: an extra
// non-zero decimal is a *mwallet.ParamError wrapping money.ErrPrecision and
// nothing but the catalogue is read; extra zero decimals and fewer decimals
// reach the service.
func TestAssetAmountScaleIsCheckedBeforeSending(t *testing.T) {
	t.Parallel()
	amounts := []struct {
		name    string
		amount  money.Amount
		refused bool
	}{
		{"more decimals, not zero", money.MustParse("1.00000001", 8), true},
		{"more decimals, all zero", money.MustParse("1.5", 8), false},
		{"fewer decimals", money.MustParse("1.5", 2), false},
		{"exact scale", money.MustParse("25", 6), false},
		{"whole, scale 0", money.MustParse("25", 0), false},
	}
	for _, call := range assetAmountCalls {
		for _, a := range amounts {
			for _, cached := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/cached=%v", call.name, a.name, cached), func(t *testing.T) {
					t.Parallel()
					sim, c := simtest.New(t)
					ctx := context.Background()
					if cached {
						if _, err := c.Asset(ctx, "USDT"); err != nil {
							t.Fatal(err)
						}
					}
					before := businessRequests(sim)
					err := call.call(ctx, c, a.amount)
					var pe *mwallet.ParamError
					if !a.refused {
						if errors.As(err, &pe) {
							t.Fatalf("refused locally: %v", err)
						}
						if businessRequests(sim) == before {
							t.Error("nothing reached the service")
						}
						return
					}
					if !errors.As(err, &pe) {
						t.Fatalf("err = %v, want a *mwallet.ParamError", err)
					}
					want := "1.00000001 has a non-zero decimal beyond the ledger scale of USDT (6)"
					if !errors.Is(err, money.ErrPrecision) || !strings.Contains(pe.Reason, want) {
						t.Errorf("err = %v, want one wrapping money.ErrPrecision saying %q", err, want)
					}
					if n := businessRequests(sim) - before; n != 0 {
						t.Errorf("%d requests sent, want none", n)
					}
				})
			}
		}
	}
}

// TestDepositWithExtraZeroDecimalsIsCredited is the USDT 2.50000000 case:
// the service accepts extra decimals that are all zero, so the deposit is
// sent as given and credited 2.5, whether or not the client has cached the
// asset catalogue before.
func TestDepositWithExtraZeroDecimalsIsCredited(t *testing.T) {
	t.Parallel()
	for _, cached := range []bool{false, true} {
		t.Run(fmt.Sprintf("cached=%v", cached), func(t *testing.T) {
			t.Parallel()
			sim := simtest.Start(t)
			var sent map[string]any
			c := sim.Client(mwallet.WithHTTPClient(&http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				if r.URL.Path == "/v1/deposits" {
					b, err := io.ReadAll(r.Body)
					if err != nil {
						return nil, err
					}
					if err := json.Unmarshal(b, &sent); err != nil {
						return nil, err
					}
					r.Body = io.NopCloser(bytes.NewReader(b))
				}
				return sim.HTTPClient().Transport.RoundTrip(r)
			})}))
			ctx := context.Background()
			if cached {
				if _, err := c.Assets(ctx); err != nil {
					t.Fatal(err)
				}
			}
			before := simtest.Available(t, sim, "member-1", "USDT")
			d, err := c.Deposits.Create(ctx, "member-1", deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("2.50000000", 8), Reference: "zero-decimals"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff("2.500000", d.Amount.String()); diff != "" {
				t.Errorf("deposit amount (-want +got):\n%s", diff)
			}
			if sent["amount"] != "2.50000000" {
				t.Errorf("sent amount %v, want 2.50000000 as given", sent["amount"])
			}
			after := simtest.Available(t, sim, "member-1", "USDT")
			b, a := money.MustParse(before, 6), money.MustParse(after, 6)
			if got, err := a.Sub(b); err != nil || got.String() != "2.500000" {
				t.Errorf("available %s -> %s: credited %v (%v), want 2.500000", before, after, got, err)
			}
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestEmptyIdempotencyKeyIsRefused: WithIdempotencyKey("") is a malformed
// key like any other, refused before sending on every kind of call (keyed
// writes of each product line, a raw Do, a read), never replaced by a
// generated key.
func TestEmptyIdempotencyKeyIsRefused(t *testing.T) {
	t.Parallel()
	calls := []struct {
		name string
		call func(ctx context.Context, c *mwclient.Client, o mwallet.CallOption) error
	}{
		{"deposits.Create", func(ctx context.Context, c *mwclient.Client, o mwallet.CallOption) error {
			_, err := c.Deposits.Create(ctx, "member-1", deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("1", 6), Reference: "k"}, o)
			return err
		}},
		{"cards.Apply", func(ctx context.Context, c *mwclient.Client, o mwallet.CallOption) error {
			_, err := c.Cards.Apply(ctx, "member-1", cards.ApplyParams{ClientKey: cards.NewClientKey(), SourceAsset: "USDT", ProductID: "cpd_virtual_std"}, o)
			return err
		}},
		{"Client.Do", func(ctx context.Context, c *mwclient.Client, o mwallet.CallOption) error {
			_, err := c.Do(ctx, &mwallet.Request{Method: http.MethodPost, Path: "/v1/deposits", MemberScoped: true, Member: "member-1",
				Body: map[string]string{"asset": "USDT", "amount": "1.000000", "reference": "k"}, Idempotent: true}, nil, o)
			return err
		}},
		{"Client.Assets (a read)", func(ctx context.Context, c *mwclient.Client, o mwallet.CallOption) error {
			_, err := c.Assets(ctx, o)
			return err
		}},
	}
	for _, tt := range calls {
		for _, key := range []string{"", " ", "not-a-uuid"} {
			t.Run(tt.name+"/"+key, func(t *testing.T) {
				t.Parallel()
				sim, c := simtest.New(t)
				err := tt.call(context.Background(), c, mwallet.WithIdempotencyKey(key))
				var pe *mwallet.ParamError
				if !errors.As(err, &pe) || pe.Code != mwallet.CodeIdempotencyKeyInvalid {
					t.Fatalf("err = %v, want a *mwallet.ParamError with code idempotency_key_invalid", err)
				}
				if n := len(sim.Requests.List()); n != 0 {
					t.Errorf("%d requests sent, want none", n)
				}
			})
		}
	}
}

// TestParseAmountSaysWhy: the error of ParseAmount names the rule that was
// broken, with the asset's ledger scale.
func TestParseAmountSaysWhy(t *testing.T) {
	t.Parallel()
	sim := simtest.Start(t)
	c := sim.Client()
	tests := []struct {
		asset, in string
		want      string
		sentinel  error
	}{
		{"USDT", "1.0000001", `"1.0000001" has more decimals than the ledger scale (6) of USDT`, money.ErrPrecision},
		{"BTC", "0.000000001", `"0.000000001" has more decimals than the ledger scale (8) of BTC`, money.ErrPrecision},
		{"USDT", "1e3", `"1e3" is not a plain decimal string`, money.ErrSyntax},
		{"USDT", "1,000.00", `"1,000.00" is not a plain decimal string`, money.ErrSyntax},
		{"USDT", " 1", `" 1" is not a plain decimal string`, money.ErrSyntax},
	}
	for _, tt := range tests {
		_, err := c.ParseAmount(context.Background(), tt.asset, tt.in)
		var pe *mwallet.ParamError
		if !errors.As(err, &pe) || !errors.Is(err, tt.sentinel) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseAmount(%s, %q) = %v, want a *mwallet.ParamError wrapping %v saying %q", tt.asset, tt.in, err, tt.sentinel, tt.want)
		}
	}
	if !slices.ContainsFunc(sim.Requests.List(), func(r simulator.RequestRecord) bool { return r.Path == "/v1/assets" }) {
		t.Error("the catalogue was not read")
	}
}

// TestAssetAmountWithoutReadableCatalogue: a Key without merchant:read
// cannot load the asset catalogue, so an amount with a non-zero decimal
// beyond the ledger scale is sent and the service refuses it with the same
// code the local check gives; an amount with extra zero decimals is
// credited.
func TestAssetAmountWithoutReadableCatalogue(t *testing.T) {
	t.Parallel()
	sim, c := simtest.New(t)
	if err := sim.Keys.Set(simulator.DefaultClientID, simulator.KeySettings{Scopes: []string{"deposits:write", "members:read"}}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err := c.Deposits.Create(ctx, "member-1", deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("2.50000001", 8), Reference: "no-catalogue-1"})
	var pe *mwallet.ParamError
	if errors.As(err, &pe) || mwallet.CodeOf(err) != mwallet.CodeInvalidRequest {
		t.Fatalf("err = %v, want the service's invalid_request", err)
	}
	d, err := c.Deposits.Create(ctx, "member-1", deposits.CreateParams{Asset: "USDT", Amount: money.MustParse("2.50000000", 8), Reference: "no-catalogue-2"})
	if err != nil || d.Amount.String() != "2.500000" {
		t.Fatalf("deposit = %+v, %v; want 2.500000 credited", d, err)
	}
	loads := 0
	for _, r := range sim.Requests.List() {
		if r.Path == "/v1/assets" {
			loads++
			if r.Code != string(mwallet.CodeInsufficientScope) {
				t.Errorf("catalogue load answered %q, want insufficient_scope", r.Code)
			}
		}
	}
	if loads != 1 {
		t.Errorf("%d catalogue loads, want 1 (a refused load is remembered)", loads)
	}
}
