package datadir

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestFixtureSame holds which settings a data directory is refused over,
// named and never shown.
func TestFixtureSame(t *testing.T) {
	t.Parallel()
	base := Fixture{Model: "custodial", Environment: "sandbox", ClientID: "c", APIKey: "k", SigningKey: "s",
		WebhookSecret: "w", MerchantID: "m", Seed: 1, Members: []string{"a"}}
	tests := []struct {
		name   string
		change func(*Fixture)
		want   string
	}{
		{name: "same", change: func(*Fixture) {}},
		{name: "members equal by their JSON", change: func(f *Fixture) { f.Members = []any{"a"} }},
		{name: "seed", change: func(f *Fixture) { f.Seed = 2 },
			want: "its log was started with another seed; start with the options it was started with, or use another directory"},
		{name: "credentials", change: func(f *Fixture) { f.APIKey, f.WebhookSecret = "k2", "w2" },
			want: "its log was started with another API key, webhook secret; start with the options it was started with, or use another directory"},
		{name: "members and the fixture member", change: func(f *Fixture) { f.NoFixtureMember = true; f.Model = "hosted" },
			want: "its log was started with another model, members; start with the options it was started with, or use another directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base
			tt.change(&o)
			got := ""
			if err := base.Same(o); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Same = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRepairDir holds what RepairDir refuses and what it repairs.
func TestRepairDir(t *testing.T) {
	t.Parallel()
	if _, err := RepairDir(filepath.Join(t.TempDir(), "missing"), decodeConfig); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing directory: %v, want os.ErrNotExist", err)
	}
	foreign := t.TempDir()
	if err := os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	var d *Damage
	if _, err := RepairDir(foreign, decodeConfig); !errors.As(err, &d) || !d.Foreign {
		t.Errorf("a foreign directory: %v, want a foreign *Damage", err)
	}
	st, ends := newLog(t, 3)
	st.Close()
	flip(t, st.path, ends[1]+12)
	rep, err := RepairDir(st.dir, decodeConfig)
	if err != nil || rep.Damage == nil || rep.KeptInputs != 2 {
		t.Fatalf("RepairDir = %+v, %v; want the damage, 2 inputs kept", rep, err)
	}
	if rep, err := RepairDir(st.dir, decodeConfig); err != nil || rep.Damage != nil || rep.KeptInputs != 2 {
		t.Errorf("again: %+v, %v; want no damage, 2 inputs kept", rep, err)
	}
}
