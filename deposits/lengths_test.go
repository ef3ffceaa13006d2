package deposits_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	mwallet "github.com/mwallet/mwallet-go"
	"github.com/mwallet/mwallet-go/deposits"
	"github.com/mwallet/mwallet-go/simulator/simtest"
)

// TestFieldLengthsCountCharacters: the deposit fields' limits (reference
// 120, network 32, txid 128, addresses 200) are counted in characters. At
// the limit, in multi-byte characters, the deposit is sent and credited; one
// more character is refused locally.
func TestFieldLengthsCountCharacters(t *testing.T) {
	t.Parallel()
	fields := []struct {
		name string
		max  int
		set  func(p *deposits.CreateParams, v string)
	}{
		{"Reference", deposits.MaxReferenceLen, func(p *deposits.CreateParams, v string) { p.Reference = v }},
		{"Network", deposits.MaxNetworkLen, func(p *deposits.CreateParams, v string) { p.Network = v }},
		{"TxID", deposits.MaxTxIDLen, func(p *deposits.CreateParams, v string) { p.Network, p.TxID = "TRON", v }},
		{"FromAddress", deposits.MaxAddressLen, func(p *deposits.CreateParams, v string) { p.Network, p.FromAddress = "TRON", v }},
		{"ToAddress", deposits.MaxAddressLen, func(p *deposits.CreateParams, v string) { p.Network, p.ToAddress = "TRON", v }},
	}
	for _, f := range fields {
		for _, ch := range []string{"É", "€", "𝄞"} {
			t.Run(f.name+" "+ch, func(t *testing.T) {
				t.Parallel()
				sim, c := simtest.New(t)
				ctx := context.Background()
				for _, n := range []int{f.max, f.max + 1} {
					p := deposits.CreateParams{Asset: "USDT", Amount: usdt("1"), Reference: "len-" + f.name + "-" + string(rune('0'+n%10))}
					f.set(&p, strings.Repeat(ch, n))
					before := len(sim.Requests.List())
					d, err := c.Deposits.Create(ctx, member1, p)
					sent := len(sim.Requests.List()) - before
					if n == f.max {
						if err != nil {
							t.Fatalf("%d characters (%d bytes): %v", n, n*len(ch), err)
						}
						if f.name == "Reference" && d.Reference != p.Reference {
							t.Errorf("reference stored as %q", d.Reference)
						}
						continue
					}
					var pe *mwallet.ParamError
					if !errors.As(err, &pe) || pe.Param != f.name || sent != 0 {
						t.Errorf("%d characters: %v after %d requests, want a local *ParamError on %s", n, err, sent, f.name)
					}
				}
			})
		}
	}
}
