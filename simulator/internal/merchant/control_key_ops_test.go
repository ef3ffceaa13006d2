package merchant

import (
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mwallet/mwallet-go/simulator/internal/api"
	"github.com/mwallet/mwallet-go/simulator/internal/control"
	"github.com/mwallet/mwallet-go/simulator/internal/control/controltest"
	"github.com/mwallet/mwallet-go/simulator/internal/kernel/kerneltest"
)

// TestKeyOps: the Keys' declarations, the Go methods' arguments, and each
// op's answer from the views it is given.
func TestKeyOps(t *testing.T) {
	t.Parallel()
	keys := map[string]string{}
	var order []string
	doc := func(id string) map[string]any { return map[string]any{"client_id": id, "env": keys[id]} }
	ops := NewKeyOps(KeyViews[int]{
		Settings: func(ks KeySettingsIn) any { return "settings " + ks.Environment },
		Add: func(_ int, in *KeyAddIn) (any, error) {
			if _, ok := keys[in.ClientID]; ok {
				return nil, api.NewErr("duplicate_resource", "exists")
			}
			keys[in.ClientID], order = in.Environment, append(order, in.ClientID)
			return in.ClientID, nil
		},
		Created: func(out any) map[string]any { return map[string]any{"client_id": out, "api_key": "secret"} },
		Set: func(_ int, id string, ks KeySettingsIn) error {
			keys[id] = ks.Environment
			return nil
		},
		Doc: func(_ int, id string) map[string]any { return doc(id) },
		All: func(int) []map[string]any {
			out := []map[string]any{}
			for _, id := range order {
				out = append(out, doc(id))
			}
			return out
		},
		Sign: func(_ int, in *SignIn) (any, error) { return in.Method + " " + in.Path + " " + in.Body, nil },
	})
	want := []controltest.Decl{{Route: "GET /_sim/keys"}, {Route: "POST /_sim/keys", Name: "Keys.Add"}, {Route: "GET /_sim/keys/{client_id}"},
		{Route: "POST /_sim/keys/{client_id}", Name: "Keys.Set"}, {Route: "POST /_sim/keys/{client_id}/sign", Name: "Keys.Sign"}}
	if diff := cmp.Diff(want, controltest.Decls(ops.List, ops.Add, ops.Get, ops.Set, ops.Sign)); diff != "" {
		t.Errorf("declarations (-want +got):\n%s", diff)
	}
	add := &KeyAddIn{ClientID: "c1", KeySettingsIn: KeySettingsIn{Environment: "sandbox"}}
	_, args, _ := ops.Add.Call(add)
	if diff := cmp.Diff([]any{"c1", "", "", "settings sandbox"}, args); diff != "" {
		t.Errorf("Keys.Add's arguments (-want +got):\n%s", diff)
	}
	tests := []struct {
		name string
		run  func() (any, error)
		want controltest.Result
	}{
		{"add", func() (any, error) {
			out, err := ops.Add.Run(0, add)
			status, body := ops.Add.Reply(0, add, out)
			return []any{status, body}, err
		}, controltest.Result{Out: []any{http.StatusCreated, map[string]any{"client_id": "c1", "api_key": "secret"}}}},
		{"add again", func() (any, error) { return ops.Add.Run(0, add) }, controltest.Result{Code: "duplicate_resource"}},
		{"set", func() (any, error) {
			return ops.Set.Run(0, &KeySetIn{ClientID: "c1", KeySettingsIn: KeySettingsIn{Environment: "production"}})
		}, controltest.Result{Out: map[string]any{"client_id": "c1", "env": "production"}}},
		{"get", func() (any, error) { return ops.Get.Run(0, &KeyID{ClientID: "c1"}) },
			controltest.Result{Out: map[string]any{"client_id": "c1", "env": "production"}}},
		{"list", func() (any, error) { return ops.List.Run(0, &control.NoInput{}) },
			controltest.Result{Out: control.List([]map[string]any{{"client_id": "c1", "env": "production"}})}},
		{"sign", func() (any, error) {
			return ops.Sign.Run(0, &SignIn{ClientID: "c1", Method: "POST", Path: "/v1/x", Body: "{}"})
		},
			controltest.Result{Out: "POST /v1/x {}"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, controltest.Outcome(tt.run())); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestSettingsOp: the settings' Go method takes the public settings, the
// prepaid amounts are checked before the transition, which changes the
// line and answers it.
func TestSettingsOp(t *testing.T) {
	t.Parallel()
	svc := kerneltest.New()
	tx := svc.Begin()
	defer tx.End()
	l := New(svc.Kernel(), &fakeHost{svc: svc}, "mch_1", PlatformHosted, StatusActive, Sandbox)
	errScale := errors.New("too precise")
	o := NewSettingsOp(controltest.At[Line], func(in SettingsIn) any { return "settings " + in.Status },
		func(_ opRun, field string, amounts map[string]string) error {
			if amounts["USDT"] == "0.0000001" {
				return errScale
			}
			return nil
		})
	x := opRun{Line: l, Tx: tx}
	if diff := cmp.Diff([]controltest.Decl{{Route: "POST /_sim/merchant", Name: "Merchant.Set"}}, controltest.Decls(o)); diff != "" {
		t.Errorf("declaration (-want +got):\n%s", diff)
	}
	in := &SettingsIn{Status: StatusSuspended}
	if _, args, _ := o.Call(in); !cmp.Equal([]any{"settings " + StatusSuspended}, args) {
		t.Errorf("Merchant.Set's arguments: %v", args)
	}
	if err := o.Rules(x, &SettingsIn{Prepaid: map[string]string{"USDT": "0.0000001"}}); !errors.Is(err, errScale) {
		t.Errorf("rules: %v, want %v", err, errScale)
	}
	out, err := o.Run(x, in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(l.JSON(tx), out); diff != "" || l.Fields(tx)["status"] != StatusSuspended {
		t.Errorf("answer (-want +got):\n%s\nstatus %v", diff, l.Fields(tx)["status"])
	}
	if _, err := o.Run(x, &SettingsIn{Model: "nonsense"}); err == nil {
		t.Error("a model the line does not know was taken")
	}
}
