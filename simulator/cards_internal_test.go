package simulator

import (
	"testing"

	"github.com/mwallet/mwallet-go/money"
)

// TestAtScaleOfReportsInexactAmounts checks that re-expressing an amount in
// another asset reports an error, instead of panicking inside a request,
// when the target asset is unknown or its ledger scale cannot hold the
// amount exactly.
func TestAtScaleOfReportsInexactAmounts(t *testing.T) {
	t.Parallel()
	s := MustNew()
	t.Cleanup(s.Close)
	tests := []struct {
		name    string
		asset   string
		amount  string
		scale   int
		want    string
		wantErr bool
	}{
		{name: "same scale", asset: "USDT", amount: "12.5", scale: 6, want: "12.500000"},
		{name: "wider scale", asset: "BTC", amount: "12.5", scale: 6, want: "12.50000000"},
		{name: "narrower scale exact", asset: "USDT", amount: "1.25", scale: 8, want: "1.250000"},
		{name: "narrower scale inexact", asset: "USDT", amount: "0.00000001", scale: 8, wantErr: true},
		{name: "unknown asset", asset: "XYZ", amount: "1", scale: 6, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, err := money.Parse(tt.amount, tt.scale)
			if err != nil {
				t.Fatal(err)
			}
			tx := s.k.Begin()
			got, err := s.atScaleOf(tt.asset, a)
			tx.End()
			if tt.wantErr {
				if err == nil {
					t.Fatalf("atScaleOf(%s, %s) = %s, want an error", tt.asset, a, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("atScaleOf(%s, %s): %v", tt.asset, a, err)
			}
			if got.String() != tt.want {
				t.Errorf("atScaleOf(%s, %s) = %s, want %s", tt.asset, a, got, tt.want)
			}
		})
	}
	if err := s.CheckLedger(); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}
